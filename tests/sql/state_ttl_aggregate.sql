-- STATE_TTL hints on group aggregates (Flink 1.19+, StateTtlHintTest's aggregate
-- cases): a key naming the FROM item of a SELECT that groups sets that
-- aggregate's TTL, over table.exec.state.ttl; it does not reach aggregates
-- inside a view or a derived table, nor out of one; a key naming nothing is
-- an error.
SET 'table.exec.state.ttl' = '1 h';
CREATE TABLE T1 (a1 INT, b1 INT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE T2 (a2 INT, b2 INT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE VIEW V6 AS SELECT a1, b1, COUNT(*) AS cnt FROM T1 GROUP BY a1, b1;

-- the hint names the table the aggregate reads
EXPLAIN SELECT /*+ STATE_TTL('T1' = '2d') */ a1, MAX(b1) FROM T1 GROUP BY a1;
-- an alias; SELECT DISTINCT is an aggregate too
EXPLAIN SELECT /*+ STATE_TTL('t' = '12h') */ DISTINCT a1 FROM T1 AS t;
-- cascaded aggregates: each hint stays in its own SELECT
EXPLAIN SELECT /*+ STATE_TTL('TMP' = '2d') */ MAX(b1) FROM (SELECT /*+ STATE_TTL('T1' = '4d') */ a1, b1, COUNT(*) FROM T1 GROUP BY a1, b1) TMP GROUP BY a1;
-- a hint outside a view does not reach the view's own aggregate
EXPLAIN SELECT /*+ STATE_TTL('V6' = '2d') */ MAX(b1) FROM V6 GROUP BY a1;
-- a derived table over a join, named as the aggregate's input: the join keeps the session TTL
EXPLAIN SELECT /*+ STATE_TTL('T1' = '2d') */ MAX(b1) FROM (SELECT T1.* FROM T1 JOIN T2 ON T1.a1 = T2.a2) T1 GROUP BY a1;
-- over a join the keys name the join's inputs, and the aggregate keeps the session TTL
EXPLAIN SELECT /*+ STATE_TTL('T1' = '1d', 'T2' = '2d') */ T1.b1, SUM(T1.a1) FROM T1 JOIN T2 ON T1.b1 = T2.b2 GROUP BY T1.b1;
-- a key that names no input
EXPLAIN SELECT /*+ STATE_TTL('T3' = '1d') */ a1, COUNT(*) FROM T1 GROUP BY a1;
-- a value that is no duration
EXPLAIN SELECT /*+ STATE_TTL('T1' = 'soon') */ a1, COUNT(*) FROM T1 GROUP BY a1;

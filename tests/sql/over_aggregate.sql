-- over_aggregate.sql - OVER aggregation (Flink's OverAggregate): agg(...) OVER
-- (PARTITION BY k ORDER BY time ROWS | RANGE BETWEEN ... PRECEDING AND CURRENT ROW)
-- on a processing-time and an event-time attribute, named windows, several
-- aggregates of one window. EXPLAIN as Flink's OverAggregateTest.xml: the columns
-- read in a Calc below Exchange(hash[partition]) (single without PARTITION BY),
-- OverAggregate(partitionBy=[...], orderBy=[t ASC], window=[ ROWS BETWEEN ...],
-- select=[input, AGG(x) AS w0$o0, ...]) and a Calc of the SELECT items above it
-- (SUM(x) is CASE((COUNT(x) > 0), SUM(x), null), as Calcite expands it); the AST is
-- Flink's LogicalProject with `agg(...) OVER (...)` items. Rows and
-- expected values from OverAggregateITCase (TestData.tupleData5, its `data` and
-- testRowTimeBoundedPartitionedRangeOver's rows; its LTCNT user function left out).
CREATE TABLE t5 (a INT, b BIGINT, c INT, d STRING, e BIGINT, proctime AS PROCTIME())
WITH ('connector' = 'filesystem', 'path' = 'tests/sql/data/over_tuple5.json', 'format' = 'json');
CREATE TABLE t1 (a BIGINT, b INT, c STRING, proctime AS PROCTIME())
WITH ('connector' = 'filesystem', 'path' = 'tests/sql/data/over_data.json', 'format' = 'json');
CREATE TABLE rt (ts BIGINT, a BIGINT, b INT, c STRING,
  rowtime AS TO_TIMESTAMP_LTZ(ts, 3),
  WATERMARK FOR rowtime AS rowtime
) WITH ('connector' = 'filesystem', 'path' = 'tests/sql/data/over_rowtime.json', 'format' = 'json');

-- testProcTimeBoundedPartitionedRowsOver: 1,0,0 / 2,1,1 / 2,3,1 / 3,3,3 / 3,7,3 /
-- 3,12,3 / 4,6,6 / 4,13,6 / 4,21,6 / 4,30,6 / 5,10,10 / 5,21,10 / 5,33,10 / 5,46,10 /
-- 5,60,10
EXPLAIN SELECT a,
  SUM(c) OVER (PARTITION BY a ORDER BY proctime ROWS BETWEEN 4 PRECEDING AND CURRENT ROW),
  MIN(c) OVER (PARTITION BY a ORDER BY proctime ROWS BETWEEN 4 PRECEDING AND CURRENT ROW)
FROM t5;
SELECT a,
  SUM(c) OVER (PARTITION BY a ORDER BY proctime ROWS BETWEEN 4 PRECEDING AND CURRENT ROW),
  MIN(c) OVER (PARTITION BY a ORDER BY proctime ROWS BETWEEN 4 PRECEDING AND CURRENT ROW)
FROM t5;

-- testProcTimeBoundedPartitionedRowsOverWithBuiltinProctime: ORDER BY PROCTIME(), computed
-- in the Calc below as $2 (Flink's name); the same rows as above
EXPLAIN SELECT a,
  SUM(c) OVER (PARTITION BY a ORDER BY proctime() ROWS BETWEEN 4 PRECEDING AND CURRENT ROW),
  MIN(c) OVER (PARTITION BY a ORDER BY proctime() ROWS BETWEEN 4 PRECEDING AND CURRENT ROW)
FROM t5;
SELECT a,
  SUM(c) OVER (PARTITION BY a ORDER BY proctime() ROWS BETWEEN 4 PRECEDING AND CURRENT ROW),
  MIN(c) OVER (PARTITION BY a ORDER BY proctime() ROWS BETWEEN 4 PRECEDING AND CURRENT ROW)
FROM t5;

-- testProcTimeBoundedNonPartitionedRowsOver: one partition, Exchange(single); the last
-- rows: 5,Hallo Welt,HIJ,66,1 / 5,Hallo Welt wie,IJK,77,2 / 5,Hallo Welt wie gehts?,JKL,88,3
-- / 5,ABC,KLM,99,4
EXPLAIN SELECT a,
  FIRST_VALUE(d) OVER (ORDER BY proctime ROWS BETWEEN 10 PRECEDING AND CURRENT ROW),
  LAST_VALUE(d) OVER (ORDER BY proctime ROWS BETWEEN 10 PRECEDING AND CURRENT ROW),
  SUM(c) OVER (ORDER BY proctime ROWS BETWEEN 10 PRECEDING AND CURRENT ROW),
  MIN(c) OVER (ORDER BY proctime ROWS BETWEEN 10 PRECEDING AND CURRENT ROW)
FROM t5;
SELECT a,
  FIRST_VALUE(d) OVER (ORDER BY proctime ROWS BETWEEN 10 PRECEDING AND CURRENT ROW),
  LAST_VALUE(d) OVER (ORDER BY proctime ROWS BETWEEN 10 PRECEDING AND CURRENT ROW),
  SUM(c) OVER (ORDER BY proctime ROWS BETWEEN 10 PRECEDING AND CURRENT ROW),
  MIN(c) OVER (ORDER BY proctime ROWS BETWEEN 10 PRECEDING AND CURRENT ROW)
FROM t5;

-- testProcTimeBoundedPartitionedRangeOver's plan: AVG(x) is CASE(COUNT(x) > 0, SUM(x),
-- null) / COUNT(x), cast to AVG's type where the division's differs (INT / BIGINT); the
-- results per a: INT truncates (a = 3: 3, 3, 4), DOUBLE does not
EXPLAIN SELECT a, AVG(b) OVER (PARTITION BY a ORDER BY proctime
  RANGE BETWEEN INTERVAL '2' HOUR PRECEDING AND CURRENT ROW) AS avgA FROM t5;
SELECT a, AVG(c) OVER w AS ac, AVG(b) OVER w AS ab, AVG(CAST(c AS DOUBLE)) OVER w AS af
FROM t5 WINDOW w AS (PARTITION BY a ORDER BY proctime ROWS UNBOUNDED PRECEDING);

-- UNBOUNDED frames over strings: the accumulator kept per key
SELECT a, d, FIRST_VALUE(d) OVER w AS f, LAST_VALUE(d) OVER w AS l, MAX(d) OVER w AS mx
FROM t5 WHERE a >= 4 WINDOW w AS (PARTITION BY a ORDER BY proctime ROWS UNBOUNDED PRECEDING);

-- LISTAGG with and without a separator over the row and the one before it
SELECT a, LISTAGG(d, '|') OVER w AS l, LISTAGG(d) OVER w AS l2 FROM t5 WHERE a >= 4
WINDOW w AS (PARTITION BY a ORDER BY proctime ROWS 1 PRECEDING);

-- testProcTimeUnboundedPartitionedRangeOver: Hello World,7,7,1,7 / 7,8,2,15 / 7,20,3,35;
-- Hello,1,1,1,1 ... Hello,1,6,6,21 (RANGE UNBOUNDED on processing time goes row by row)
EXPLAIN SELECT c,
  FIRST_VALUE(b) OVER (PARTITION BY c ORDER BY proctime RANGE UNBOUNDED PRECEDING),
  LAST_VALUE(b) OVER (PARTITION BY c ORDER BY proctime RANGE UNBOUNDED PRECEDING),
  COUNT(a) OVER (PARTITION BY c ORDER BY proctime RANGE UNBOUNDED PRECEDING),
  SUM(a) OVER (PARTITION BY c ORDER BY proctime RANGE UNBOUNDED PRECEDING)
FROM t1;
SELECT c,
  FIRST_VALUE(b) OVER (PARTITION BY c ORDER BY proctime RANGE UNBOUNDED PRECEDING),
  LAST_VALUE(b) OVER (PARTITION BY c ORDER BY proctime RANGE UNBOUNDED PRECEDING),
  COUNT(a) OVER (PARTITION BY c ORDER BY proctime RANGE UNBOUNDED PRECEDING),
  SUM(a) OVER (PARTITION BY c ORDER BY proctime RANGE UNBOUNDED PRECEDING)
FROM t1;

-- testProcTimeUnboundedNonPartitionedRangeOver: Hello,1,1 ... Hello,6,21 / Hello World,
-- 7,28 / 8,36 / 9,56; the same through a named window
SELECT c, COUNT(a) OVER w, SUM(a) OVER w FROM t1
WINDOW w AS (ORDER BY proctime RANGE UNBOUNDED PRECEDING);

-- testRowTimeBoundedPartitionedRangeOver, COUNT and SUM of the rows within one second
-- before each row's time (those of the same time included): Hello,1,1,1 / Hello,15,2,2 /
-- Hello,16,3,3 / Hello,2|2|3,6,9 / Hello,3(3000),4,9 / Hello,4,2,7 / Hello,5,2,9 /
-- Hello,6,2,11 / Hello,65,2,12 / Hello,9,2,12 (twice) / Hello,18,3,18 / Hello World,7,1,7
-- / 17,3,21 / 77,3,21 / 18,1,7 / 8,2,15 / 20,1,20; emitted in time order as the
-- watermark passes
EXPLAIN SELECT c, b,
  COUNT(a) OVER (PARTITION BY c ORDER BY rowtime RANGE BETWEEN INTERVAL '1' SECOND PRECEDING AND CURRENT ROW),
  SUM(a) OVER (PARTITION BY c ORDER BY rowtime RANGE BETWEEN INTERVAL '1' SECOND PRECEDING AND CURRENT ROW)
FROM rt;
SELECT c, b,
  COUNT(a) OVER (PARTITION BY c ORDER BY rowtime RANGE BETWEEN INTERVAL '1' SECOND PRECEDING AND CURRENT ROW),
  SUM(a) OVER (PARTITION BY c ORDER BY rowtime RANGE BETWEEN INTERVAL '1' SECOND PRECEDING AND CURRENT ROW)
FROM rt;

-- event time ROWS: the row and the 2 before it in time order (arrival order within a time)
SELECT c, ts, b,
  COUNT(*) OVER w AS cnt, SUM(b) OVER w AS s, MAX(b) OVER w AS mx, AVG(b) OVER w AS av
FROM rt WINDOW w AS (PARTITION BY c ORDER BY rowtime ROWS BETWEEN 2 PRECEDING AND CURRENT ROW);

-- event time UNBOUNDED: ROWS counts each row, RANGE gives the rows of one time the same value
EXPLAIN SELECT c, ts, COUNT(*) OVER (PARTITION BY c ORDER BY rowtime ROWS UNBOUNDED PRECEDING) FROM rt;
SELECT c, ts, b, COUNT(*) OVER (PARTITION BY c ORDER BY rowtime ROWS UNBOUNDED PRECEDING) AS cnt,
  MIN(b) OVER (PARTITION BY c ORDER BY rowtime ROWS UNBOUNDED PRECEDING) AS mn FROM rt;
SELECT c, ts, b, COUNT(*) OVER (PARTITION BY c ORDER BY rowtime) AS cnt,
  SUM(b) OVER (PARTITION BY c ORDER BY rowtime) AS s FROM rt WHERE ts <= 3000;

-- processing-time RANGE n PRECEDING: rows of one millisecond computed together by a timer
-- 1 ms later (b is unique: each frame is the row itself)
SELECT b, COUNT(*) OVER (PARTITION BY b ORDER BY proctime
  RANGE BETWEEN INTERVAL '1' HOUR PRECEDING AND CURRENT ROW) AS cnt FROM t5 WHERE a = 3;

-- PARTITION BY an expression: computed in the Calc below as $3, the exchange hashing it
-- (odd b: 1, 15, 3, 3 count 1..4; even: 16, 2, 2 count 1..3)
EXPLAIN SELECT ts, b, COUNT(*) OVER (PARTITION BY b % 2 ORDER BY rowtime ROWS UNBOUNDED PRECEDING) AS n FROM rt;
SELECT ts, b, COUNT(*) OVER (PARTITION BY b % 2 ORDER BY rowtime ROWS UNBOUNDED PRECEDING) AS n
FROM rt WHERE ts <= 3000;

-- an expression over the aggregates, an aggregate of an expression
SELECT c, b, SUM(b * 2) OVER w - COUNT(b) OVER w AS x FROM rt WHERE ts <= 2000
WINDOW w AS (PARTITION BY c ORDER BY rowtime ROWS 1 PRECEDING);

-- a filter above the OVER aggregates stays above them (it would change the frames), and
-- pruning leaves the unread aggregates in place: b > 10 keeps 15, 16, 65, 18 / 17, 77, 18, 20
EXPLAIN SELECT c, cnt FROM (SELECT c, b, SUM(b) OVER w AS s, COUNT(*) OVER w AS cnt FROM rt
  WINDOW w AS (PARTITION BY c ORDER BY rowtime ROWS 1 PRECEDING)) WHERE b > 10;
SELECT c, b, cnt FROM (SELECT c, b, SUM(b) OVER w AS s, COUNT(*) OVER w AS cnt FROM rt
  WINDOW w AS (PARTITION BY c ORDER BY rowtime ROWS 1 PRECEDING)) WHERE b > 10;

-- a WINDOW clause no OVER aggregate uses changes nothing
SELECT a, b FROM rt WHERE ts < 1600 WINDOW w AS (ORDER BY rowtime);

-- Flink's errors
SELECT COUNT(a) OVER (PARTITION BY c ORDER BY proctime RANGE UNBOUNDED PRECEDING),
  SUM(a) OVER (PARTITION BY b ORDER BY proctime RANGE UNBOUNDED PRECEDING) FROM t1;
SELECT COUNT(*) OVER (PARTITION BY b % 2 ORDER BY rowtime), COUNT(*) OVER (PARTITION BY b % 3 ORDER BY rowtime) FROM rt;
SELECT COUNT(a) OVER (ORDER BY b) FROM t1;
SELECT COUNT(a) OVER (ORDER BY CURRENT_TIMESTAMP) FROM t1;
-- a rowtime through a regular join is a plain TIMESTAMP above it (Flink materializes it)
SELECT r.c, COUNT(*) OVER (PARTITION BY r.c ORDER BY r.rowtime) FROM rt r JOIN t1 ON r.a = t1.a;
SELECT COUNT(a) OVER (ORDER BY rowtime DESC) FROM rt;
SELECT COUNT(a) OVER (ORDER BY rowtime, b) FROM rt;
SELECT COUNT(a) OVER (ORDER BY rowtime ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) FROM rt;
SELECT COUNT(a) OVER w FROM rt WINDOW v AS (ORDER BY rowtime);
SELECT c, COUNT(*) OVER (PARTITION BY c ORDER BY t) FROM (SELECT c, MAX(rowtime) AS t FROM rt GROUP BY c);
SELECT c, COUNT(*) OVER (PARTITION BY c ORDER BY pt)
FROM (SELECT c, n, PROCTIME() AS pt FROM (SELECT c, COUNT(*) AS n FROM t1 GROUP BY c));
SELECT COUNT(a) OVER (ORDER BY rowtime ROWS BETWEEN INTERVAL '1' SECOND PRECEDING AND CURRENT ROW) FROM rt;
SELECT COUNT(DISTINCT a) OVER (ORDER BY rowtime) FROM rt;
SELECT COUNT(*) OVER (ORDER BY rowtime ROWS CURRENT ROW) FROM rt;
SELECT SUM(a) OVER (ORDER BY rowtime RANGE 5 PRECEDING) FROM rt;

-- dedup_proctime.sql - deduplication on a processing-time attribute (Flink's
-- DeduplicateTest.xml testSimpleFirstRowOnProctime / testSimpleLastRowOnProctime):
-- ROW_NUMBER() OVER (PARTITION BY k ORDER BY proc_time [DESC]) = 1 is a Deduplicate
-- with order=[PROCTIME] in the execution plan and a Rank with AppendFastStrategy in
-- the physical plan. The order is arrival order (the file's), not ts: keep first
-- emits a key's first row and drops the rest (insert-only); keep last emits each
-- row, -U of the one it replaces then +U (+I for a key's first row). A NULL key is
-- a key as any other. The state TTL shows on the node. With mini-batch on, each
-- key's first or last row of a batch (Flink's mini-batch forms).
CREATE TABLE clicks (
  user_id STRING,
  page STRING,
  seq INT,
  ts TIMESTAMP(3),
  proc_time AS PROCTIME()
) WITH ('connector' = 'filesystem', 'path' = 'tests/sql/data/dedup_clicks.json', 'format' = 'json');

-- keep the first row per user (ORDER BY proc_time ASC)
EXPLAIN CHANGELOG_MODE SELECT user_id, page, seq FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY user_id ORDER BY proc_time ASC) AS rn
  FROM clicks)
WHERE rn = 1;
-- u1 home (1), u2 cart (2), u3 home (4), NULL home (7): the later rows are dropped,
-- though u1's shop (3) and u2's help (6) have an earlier ts
SELECT user_id, page, seq FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY user_id ORDER BY proc_time ASC) AS rn
  FROM clicks)
WHERE rn = 1;

-- keep the last row per user (ORDER BY proc_time DESC), with the row number
EXPLAIN CHANGELOG_MODE SELECT user_id, page, seq, rn FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY user_id ORDER BY proc_time DESC) AS rn
  FROM clicks)
WHERE rn = 1;
-- every row is emitted in arrival order; a user's later row retracts the earlier one
SELECT user_id, page, seq, rn FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY user_id ORDER BY proc_time DESC) AS rn
  FROM clicks)
WHERE rn = 1;

-- no PARTITION BY: one key (key=[]), over a single exchange; the last row of all
-- (Flink's testSimpleLastRowOnBuiltinProctime)
EXPLAIN SELECT page, seq FROM (
  SELECT *, ROW_NUMBER() OVER (ORDER BY proc_time DESC) AS rn
  FROM clicks)
WHERE rn <= 1;
SELECT page, seq FROM (
  SELECT *, ROW_NUMBER() OVER (ORDER BY proc_time DESC) AS rn
  FROM clicks)
WHERE rn <= 1;

-- over keep first, an aggregate sees inserts only: pages first visited
SELECT page, COUNT(*) AS users FROM (
  SELECT * FROM (
    SELECT *, ROW_NUMBER() OVER (PARTITION BY user_id ORDER BY proc_time) AS rn
    FROM clicks)
  WHERE rn = 1)
GROUP BY page;

-- the state TTL shows on the Deduplicate
SET 'table.exec.state.ttl' = '1 h';
EXPLAIN SELECT user_id, page FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY user_id ORDER BY proc_time DESC) AS rn
  FROM clicks)
WHERE rn = 1;
RESET 'table.exec.state.ttl';

-- rn = 2 on processing time is a Rank (Flink's testInvalidRowNumberConditionOnProctime)
EXPLAIN SELECT user_id, page FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY user_id ORDER BY proc_time DESC) AS rn
  FROM clicks)
WHERE rn = 2;

-- with mini-batch on, Flink's mini-batch forms: each key's first (keep first) or last
-- (keep last) row of a batch. The file is one batch (batches end at the size, a
-- watermark or the end of input; this file's 9 rows are under the size), so keep last
-- emits one +I per user with its last page; the EXPLAIN shows the MiniBatchAssigner
SET 'table.exec.mini-batch.enabled' = 'true';
SET 'table.exec.mini-batch.allow-latency' = '1 h';
SET 'table.exec.mini-batch.size' = '1000';
EXPLAIN SELECT user_id, page, seq FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY user_id ORDER BY proc_time DESC) AS rn
  FROM clicks)
WHERE rn = 1;
SELECT user_id, page, seq FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY user_id ORDER BY proc_time DESC) AS rn
  FROM clicks)
WHERE rn = 1;
SELECT user_id, page, seq FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY user_id ORDER BY proc_time ASC) AS rn
  FROM clicks)
WHERE rn = 1;

-- distinct_split.sql - table.optimizer.distinct-agg.split.enabled (Flink's
-- SplitAggregateRule, plans as its SplitAggregateRuleTest and
-- DistinctAggregateTest print them): a GROUP BY with COUNT(DISTINCT) becomes
-- a PARTIAL aggregate by the keys and a bucket MOD(HASH_CODE(x), bucket-num)
-- and a FINAL one by the keys summing the buckets ($SUM0 of the counts).
-- Results with and without the split, the same changelog or the same final
-- state as the comments say; what is not split yet is refused.

CREATE TABLE emp (
  id      INT,
  name    STRING,
  dept_id INT,
  salary  INT,
  hired   TIMESTAMP(3)
) WITH (
  'connector' = 'filesystem',
  'path' = 'tests/sql/data/emp.json',
  'format' = 'json'
);

SET 'sql-client.execution.result-mode' = 'changelog';
SET 'table.optimizer.distinct-agg.split.enabled' = 'true';

-- testSingleDistinctAgg: no keys; the bucket is $f1, the partial count $f1_0.
EXPLAIN SELECT COUNT(DISTINCT name) FROM emp;

-- testSingleDistinctAggWithGroupBy.
EXPLAIN SELECT dept_id, COUNT(DISTINCT name) FROM emp GROUP BY dept_id;

-- testSingleDistinctAggWithAllNonDistinctAgg (without its AVG): every partial
-- call summed by the final one, COUNT and COUNT(*) with $SUM0.
EXPLAIN SELECT dept_id, COUNT(DISTINCT name), SUM(salary), MAX(salary), MIN(salary),
  COUNT(salary), COUNT(*)
FROM emp GROUP BY dept_id;

-- testBucketsConfiguration.
SET 'table.optimizer.distinct-agg.split.bucket-num' = '100';
EXPLAIN SELECT COUNT(DISTINCT name) FROM emp;

-- Two buckets. Split: alice and carol (bob and frank) share a bucket, so the partial
-- row of department 10's bucket is retracted and replaced (-U/+U), and the final
-- aggregate, row by row, sees its group empty between them: -D then +I.
SET 'table.optimizer.distinct-agg.split.bucket-num' = '2';
SELECT dept_id, COUNT(DISTINCT name) AS names, SUM(salary) AS total, COUNT(*) AS cnt,
  MAX(name) AS last_name
FROM emp GROUP BY dept_id;
-- Not split: -U/+U there; the same final state: (10, 2, 400, 2, carol), (20, 2, 200,
-- 2, frank), (NULL, 1, 400, 1, dave), (30, 1, 500, 1, erin).
SET 'table.optimizer.distinct-agg.split.enabled' = 'false';
SELECT dept_id, COUNT(DISTINCT name) AS names, SUM(salary) AS total, COUNT(*) AS cnt,
  MAX(name) AS last_name
FROM emp GROUP BY dept_id;

-- Over an updating input (the head counts): how many distinct head counts, and
-- departments. Not split first; final state (2, 4). Split, a head count's bucket
-- changes with it, so the final aggregate sees more retractions (a -D and +I
-- when its only partial row moves): more changes, the same final state.
SELECT COUNT(DISTINCT cnt) AS counts, COUNT(*) AS departments
FROM (SELECT dept_id, COUNT(*) AS cnt FROM emp GROUP BY dept_id);
-- Split: the same final state.
SET 'table.optimizer.distinct-agg.split.enabled' = 'true';
SELECT COUNT(DISTINCT cnt) AS counts, COUNT(*) AS departments
FROM (SELECT dept_id, COUNT(*) AS cnt FROM emp GROUP BY dept_id);

-- With mini-batch and ONE_PHASE both aggregates run in mini-batch mode.
SET 'table.exec.mini-batch.enabled' = 'true';
SET 'table.exec.mini-batch.allow-latency' = '1s';
SET 'table.exec.mini-batch.size' = '3';
SET 'table.optimizer.agg-phase-strategy' = 'ONE_PHASE';
EXPLAIN SELECT dept_id, COUNT(DISTINCT name) FROM emp GROUP BY dept_id;
SELECT dept_id, COUNT(DISTINCT name) AS names FROM emp GROUP BY dept_id;

-- Not split yet, refused: two phases (Flink's IncrementalGroupAggregate), DISTINCT
-- over two arguments (Flink's Expand), AVG beside a DISTINCT call.
SET 'table.optimizer.agg-phase-strategy' = 'AUTO';
SELECT dept_id, COUNT(DISTINCT name) FROM emp GROUP BY dept_id;
SET 'table.exec.mini-batch.enabled' = 'false';
SELECT COUNT(DISTINCT name), COUNT(DISTINCT salary) FROM emp;
SELECT dept_id, COUNT(DISTINCT name), AVG(salary) FROM emp GROUP BY dept_id;
SET 'table.optimizer.distinct-agg.split.bucket-num' = '0';
SELECT COUNT(DISTINCT name) FROM emp;

-- HASH_CODE is the rule's here: a query that calls it is refused (Flink runs it).
SELECT HASH_CODE(name) FROM emp;

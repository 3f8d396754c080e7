-- two_phase_aggregate.sql - two-phase group aggregation with mini-batch
-- (Flink's TwoStageOptimizedAggregateRule, plans as its
-- TwoStageAggregateTest.xml prints them): under
-- table.optimizer.agg-phase-strategy AUTO (the default) or TWO_PHASE a
-- LocalGroupAggregate folds each mini-batch per key below the exchange, a
-- GlobalGroupAggregate merges the partial accumulators into its state;
-- ONE_PHASE keeps one GroupAggregate, and so do aggregates whose calls do
-- not merge. Results: each query with one and two phases, the same final
-- state (line by line as the comments say). Batches end at
-- table.exec.mini-batch.size (allow-latency is far longer than a run), so
-- the output does not depend on the clock.

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
SET 'table.exec.mini-batch.enabled' = 'true';
SET 'table.exec.mini-batch.allow-latency' = '1s';
SET 'table.exec.mini-batch.size' = '3';

-- Flink's testCountWithGroupBy: COUNT(a) AS count$0 below, COUNT(count$0) above.
EXPLAIN SELECT COUNT(salary) FROM emp GROUP BY dept_id;

-- testAvgWithGroupBy: AVG's accumulator is (sum, count).
EXPLAIN SELECT AVG(salary) FROM emp GROUP BY dept_id;

-- testGroupAggregateWithExpressionInSelect: accumulator names count on across the calls.
EXPLAIN SELECT MIN(name), AVG(salary) FROM (SELECT salary, dept_id + 3 AS d, name FROM emp) GROUP BY d;

-- testCountWithoutGroupBy: no keys, a single exchange.
EXPLAIN SELECT COUNT(salary) FROM emp;

-- testGroupAggregateWithFilter: the filter on the key goes below both phases.
EXPLAIN SELECT * FROM (SELECT dept_id, SUM(salary) FROM emp GROUP BY dept_id) WHERE dept_id = 20;

-- Over an updating input the calls print _RETRACT, and the local phase adds
-- COUNT_RETRACT(*) AS count1$n (the row count that says when a group is empty)
-- unless a COUNT(*) is there.
EXPLAIN CHANGELOG_MODE SELECT cnt, SUM(total) AS s, COUNT(total) AS c
FROM (SELECT dept_id, COUNT(*) AS cnt, SUM(salary) AS total FROM emp GROUP BY dept_id)
GROUP BY cnt;

-- Calls without a merge in joinery keep one phase: DISTINCT, LISTAGG, and MIN /
-- MAX over an updating input.
EXPLAIN SELECT dept_id, COUNT(DISTINCT name) FROM emp GROUP BY dept_id;
EXPLAIN SELECT dept_id, LISTAGG(name) FROM emp GROUP BY dept_id;
EXPLAIN SELECT cnt, MAX(dept_id) FROM (SELECT dept_id, COUNT(*) AS cnt FROM emp GROUP BY dept_id) GROUP BY cnt;

-- ONE_PHASE: one GroupAggregate, as before.
SET 'table.optimizer.agg-phase-strategy' = 'ONE_PHASE';
EXPLAIN SELECT dept_id, COUNT(*) AS cnt FROM emp GROUP BY dept_id;

-- One phase, batches of 3 (alice, bob, carol | dave, erin, frank). Final state:
-- (10, 2, 400, 200, alice), (20, 2, 200, 200, bob), (NULL, 1, 400, 400, dave),
-- (30, 1, 500, 500, erin).
SELECT dept_id, COUNT(*) AS cnt, SUM(salary) AS total, AVG(salary) AS av, MIN(name) AS first_name
FROM emp GROUP BY dept_id;

-- Two phases: the local phase sends (10: 2 rows, 400), (20: 1 row, 200) after
-- the first batch of 3 and (NULL, 30, 20: frank's NULL salary) after the
-- second; the global phase's batches are of 3 partial rows: (10, 20, NULL)
-- then (30, 20). The same final state.
SET 'table.optimizer.agg-phase-strategy' = 'TWO_PHASE';
SELECT dept_id, COUNT(*) AS cnt, SUM(salary) AS total, AVG(salary) AS av, MIN(name) AS first_name
FROM emp GROUP BY dept_id;

-- Without keys: one partial row per batch. Final (6, 5, 1500, 100, 500).
SET 'table.optimizer.agg-phase-strategy' = 'AUTO';
SELECT COUNT(*), COUNT(salary), SUM(salary), MIN(salary), MAX(salary) FROM emp;

-- Retractions through both phases: how many departments have each head count, and
-- their payroll. One phase first; final state (1, 2, 900, 2), (2, 2, 600, 2).
SET 'table.optimizer.agg-phase-strategy' = 'ONE_PHASE';
SELECT cnt, COUNT(*) AS departments, SUM(total) AS payroll, COUNT(total) AS paid
FROM (SELECT dept_id, COUNT(*) AS cnt, SUM(salary) AS total FROM emp GROUP BY dept_id)
GROUP BY cnt;
-- Two phases: the same final state.
SET 'table.optimizer.agg-phase-strategy' = 'TWO_PHASE';
SELECT cnt, COUNT(*) AS departments, SUM(total) AS payroll, COUNT(total) AS paid
FROM (SELECT dept_id, COUNT(*) AS cnt, SUM(salary) AS total FROM emp GROUP BY dept_id)
GROUP BY cnt;

-- A group emptied by retractions goes (-D) in the global phase: the departments
-- with one employee. Department 20 has one after bob and two after frank: its
-- +I(20, 1) comes in the global phase's first batch (with NULL and 30), its
-- retraction in the last partial row (20: -1 row), so -D(20, 1). Final state
-- (NULL, 1), (30, 1).
SELECT dept_id, COUNT(*) AS cnt_rows
FROM (SELECT dept_id, COUNT(*) AS cnt FROM emp GROUP BY dept_id)
WHERE cnt = 1
GROUP BY dept_id;

-- Without mini-batch there is one phase whatever the strategy (Flink's rule needs it).
SET 'table.exec.mini-batch.enabled' = 'false';
EXPLAIN SELECT dept_id, COUNT(*) AS cnt FROM emp GROUP BY dept_id;

-- mini_batch.sql - table.exec.mini-batch.* as Flink: the MiniBatchAssigner
-- in EXPLAIN (over the scan in ProcTime mode; above the WatermarkAssigners
-- in RowTime mode under an event-time interval join or window), the GroupAggregate
-- folding each key's rows once per batch, and Flink's errors for the
-- settings it refuses. Results are printed with mini-batch off and on: the
-- changelogs differ (fewer, folded changes with mini-batch) but their
-- final states are equal, line by line as the comments say. Batches end
-- at table.exec.mini-batch.size here (allow-latency is set far longer than
-- a run), so the output does not depend on the clock.

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

CREATE TABLE orders (
  order_id BIGINT,
  order_time TIMESTAMP(3),
  rowtime AS order_time,
  WATERMARK FOR rowtime AS rowtime - INTERVAL '5' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'tests/sql/data/interval_orders.json',
  'format' = 'json'
);

CREATE TABLE payments (
  payment_id BIGINT,
  order_id BIGINT,
  pay_time TIMESTAMP(3),
  pay_id AS payment_id,
  rowtime AS pay_time,
  WATERMARK FOR rowtime AS rowtime - INTERVAL '5' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'tests/sql/data/interval_payments.json',
  'format' = 'json'
);

SET 'sql-client.execution.result-mode' = 'changelog';

-- Without mini-batch: one change per input row. Final state: (10, 2, 400),
-- (20, 2, 200), (NULL, 1, 400), (30, 1, 500).
SELECT dept_id, COUNT(*) AS cnt, SUM(salary) AS total FROM emp GROUP BY dept_id;

-- Seed 001's settings, verbatim.
SET 'table.exec.mini-batch.enabled' = 'true';
SET 'table.exec.mini-batch.allow-latency' = '5s';
SET 'table.exec.mini-batch.size' = '1000';

-- Under the default AUTO strategy this aggregate runs in two phases
-- (LocalGroupAggregate / GlobalGroupAggregate, two_phase_aggregate.sql);
-- ONE_PHASE keeps one GroupAggregate.
EXPLAIN SELECT dept_id, COUNT(*) AS cnt FROM emp GROUP BY dept_id;

SET 'table.optimizer.agg-phase-strategy' = 'ONE_PHASE';

-- The assigner right above the source, the aggregate over the exchange.
EXPLAIN CHANGELOG_MODE SELECT dept_id, COUNT(*) AS cnt, SUM(salary) AS total FROM emp GROUP BY dept_id;

-- A stateless query gets the assigner too (Flink's interval flows from the root to
-- every source).
EXPLAIN SELECT name FROM emp WHERE salary > 100;

-- Under an event-time interval join the batches follow the watermark (RowTime mode),
-- the assigner above each WatermarkAssigner.
EXPLAIN SELECT o.order_id, p.pay_id
FROM orders o
JOIN payments p
ON o.order_id = p.order_id
AND p.rowtime BETWEEN o.rowtime - INTERVAL '10' MINUTE AND o.rowtime + INTERVAL '5' MINUTE;

-- So does a window table function (event time).
EXPLAIN SELECT order_id, window_start, window_end
FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(rowtime), INTERVAL '5' MINUTES));

CREATE TABLE dept (
  dept_id   INT,
  dept_name STRING,
  budget    INT
) WITH (
  'connector' = 'filesystem',
  'path' = 'tests/sql/data/dept.json',
  'format' = 'json'
);

-- The mini-batch regular join (Flink 1.19+) prints as a plain Join; the assigners sit
-- over both sources.
EXPLAIN SELECT d.dept_name, a.cnt
FROM dept AS d
LEFT JOIN (SELECT dept_id, COUNT(*) AS cnt FROM emp GROUP BY dept_id) AS a
ON d.dept_id = a.dept_id;

SET 'table.exec.mini-batch.allow-latency' = '100000 d';

-- The interval join's matches are those without mini-batch (interval_join.sql):
-- 1-1, 2-2, 1-3, 5-6, 6-7, 7-11, 8-13, 9-15, in the same order.
SELECT o.order_id, p.pay_id
FROM orders o
JOIN payments p
ON o.order_id = p.order_id
AND p.rowtime BETWEEN o.rowtime - INTERVAL '10' MINUTE AND o.rowtime + INTERVAL '5' MINUTE;

-- One batch (1000 rows at most): one +I per group, the same final state.
SELECT dept_id, COUNT(*) AS cnt, SUM(salary) AS total FROM emp GROUP BY dept_id;

-- Batches of 3 rows (alice, bob, carol | dave, erin, frank): dept 10's two rows
-- are folded into one +I in the first batch, dept 20's second row is one -U/+U in
-- the second: 6 rows instead of 8, the same final state.
SET 'table.exec.mini-batch.size' = '3';
SELECT dept_id, COUNT(*) AS cnt, SUM(salary) AS total FROM emp GROUP BY dept_id;

-- Nested aggregates (how many departments have each head count), batches of 3:
-- row by row the outer aggregate sees 6 changes and emits 14 rows (the run with
-- mini-batch off below); here the inner one emits 6 and the outer 4, final
-- state (1, 2), (2, 2) in both.
SELECT cnt, COUNT(*) AS departments
FROM (SELECT dept_id, COUNT(*) AS cnt FROM emp GROUP BY dept_id)
GROUP BY cnt;
SET 'table.exec.mini-batch.enabled' = 'false';
SELECT cnt, COUNT(*) AS departments
FROM (SELECT dept_id, COUNT(*) AS cnt FROM emp GROUP BY dept_id)
GROUP BY cnt;
SET 'table.exec.mini-batch.enabled' = 'true';

-- A LEFT JOIN over an updating aggregate, row by row: every head count change is
-- retracted and re-emitted, with padded rows in between (23 rows). Final state:
-- (eng, 2), (sales, 2), (sales-2, 2), (hr, NULL), (nokey, NULL).
SET 'table.exec.mini-batch.enabled' = 'false';
SELECT d.dept_name, a.cnt
FROM dept AS d
LEFT JOIN (SELECT dept_id, COUNT(*) AS cnt FROM emp GROUP BY dept_id) AS a
ON d.dept_id = a.dept_id;

-- The same with mini-batch, one batch: the aggregate's rows are folded before the join
-- sees them, and the join takes its right side (the aggregate) first: no padded row is
-- emitted and taken back. The same final state.
SET 'table.exec.mini-batch.enabled' = 'true';
SET 'table.exec.mini-batch.size' = '1000';
SELECT d.dept_name, a.cnt
FROM dept AS d
LEFT JOIN (SELECT dept_id, COUNT(*) AS cnt FROM emp GROUP BY dept_id) AS a
ON d.dept_id = a.dept_id;

-- Flink's errors: a latency of 0 and a size of -1 with mini-batch on.
SET 'table.exec.mini-batch.size' = '-1';
SELECT dept_id, COUNT(*) AS cnt FROM emp GROUP BY dept_id;
RESET 'table.exec.mini-batch.allow-latency';
SELECT name FROM emp;

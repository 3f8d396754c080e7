-- semi_anti_window_join.sql - IN / EXISTS / NOT IN / NOT EXISTS between two
-- windowed inputs that equate both window bounds: Flink's WindowJoin with
-- joinType=[LeftSemiJoin | LeftAntiJoin] (WindowJoinTest.xml: testSemiJoinIN,
-- testSemiJoinExists, testAntiJoinNotIN, testAntiJoinNotExist), the window
-- equalities out of where=[...], the left input's fields only. A window's left
-- rows are emitted once the watermark passes its end, with or without a match
-- as the type says; late rows (behind the watermark) are dropped and counted
-- per side. Data as window_join.sql: 8 orders and 8 payments in 10:00-10:15,
-- 5-minute windows (one batch each, so none is late); the late rows have
-- files of their own below. Results checked by hand against the window
-- bounds.
CREATE TABLE orders (
  order_id BIGINT,
  user_id BIGINT,
  amount INT,
  rowtime TIMESTAMP(3),
  WATERMARK FOR rowtime AS rowtime - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'tests/sql/data/window_orders.json', 'format' = 'json');
CREATE TABLE payments (
  pay_id BIGINT,
  order_id BIGINT,
  rowtime TIMESTAMP(3),
  WATERMARK FOR rowtime AS rowtime - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'tests/sql/data/window_payments.json', 'format' = 'json');

-- EXISTS: orders paid within their own window (1, 3, 7; order 2's payment is in the next
-- window, 4's two payments in its window: emitted once)
EXPLAIN SELECT o.order_id, o.window_start FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(rowtime), INTERVAL '5' MINUTES)) o
WHERE EXISTS (SELECT * FROM TABLE(TUMBLE(TABLE payments, DESCRIPTOR(rowtime), INTERVAL '5' MINUTES)) p
  WHERE o.order_id = p.order_id AND o.window_start = p.window_start AND o.window_end = p.window_end);
SELECT o.order_id, o.window_start FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(rowtime), INTERVAL '5' MINUTES)) o
WHERE EXISTS (SELECT * FROM TABLE(TUMBLE(TABLE payments, DESCRIPTOR(rowtime), INTERVAL '5' MINUTES)) p
  WHERE o.order_id = p.order_id AND o.window_start = p.window_start AND o.window_end = p.window_end);

-- IN with the window bounds correlated (testSemiJoinIN): the same rows
EXPLAIN SELECT * FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(rowtime), INTERVAL '5' MINUTES)) o
WHERE o.order_id IN (SELECT p.order_id FROM TABLE(TUMBLE(TABLE payments, DESCRIPTOR(rowtime), INTERVAL '5' MINUTES)) p
  WHERE o.window_start = p.window_start AND o.window_end = p.window_end);
SELECT order_id, amount, window_start, window_end FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(rowtime), INTERVAL '5' MINUTES)) o
WHERE o.order_id IN (SELECT p.order_id FROM TABLE(TUMBLE(TABLE payments, DESCRIPTOR(rowtime), INTERVAL '5' MINUTES)) p
  WHERE o.window_start = p.window_start AND o.window_end = p.window_end);

-- NOT EXISTS (testAntiJoinNotExist): the orders without a payment in their window (2, 5)
EXPLAIN SELECT o.order_id FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(rowtime), INTERVAL '5' MINUTES)) o
WHERE NOT EXISTS (SELECT * FROM TABLE(TUMBLE(TABLE payments, DESCRIPTOR(rowtime), INTERVAL '5' MINUTES)) p
  WHERE o.order_id = p.order_id AND o.window_start = p.window_start AND o.window_end = p.window_end);
SELECT o.order_id, o.window_start FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(rowtime), INTERVAL '5' MINUTES)) o
WHERE NOT EXISTS (SELECT * FROM TABLE(TUMBLE(TABLE payments, DESCRIPTOR(rowtime), INTERVAL '5' MINUTES)) p
  WHERE o.order_id = p.order_id AND o.window_start = p.window_start AND o.window_end = p.window_end);

-- NOT IN (testAntiJoinNotIN): the NULL-aware pair, no key besides the window: single
-- exchanges; the same rows (no NULL order_id)
EXPLAIN SELECT o.order_id FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(rowtime), INTERVAL '5' MINUTES)) o
WHERE o.order_id NOT IN (SELECT p.order_id FROM TABLE(TUMBLE(TABLE payments, DESCRIPTOR(rowtime), INTERVAL '5' MINUTES)) p
  WHERE o.window_start = p.window_start AND o.window_end = p.window_end);
SELECT o.order_id, o.window_start FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(rowtime), INTERVAL '5' MINUTES)) o
WHERE o.order_id NOT IN (SELECT p.order_id FROM TABLE(TUMBLE(TABLE payments, DESCRIPTOR(rowtime), INTERVAL '5' MINUTES)) p
  WHERE o.window_start = p.window_start AND o.window_end = p.window_end);

-- late rows. A file source sends its watermark after each batch of 1,024 rows, so a row is
-- behind the watermark only after more than a batch: late_orders.json has 2,048 orders
-- (order i at 10:00:00 + i - 1 seconds) and then orders 5001 (10:00:30) and 5002
-- (10:01:00); late_payments.json pays orders 3, 700 and 1500 in time among 2,048 payments
-- of order 0, then comes too late for order 5001 (10:00:40), order 3 again (10:00:10) and
-- order 0 (10:01:40). The late rows are dropped: order 5001 is not emitted, order 3 once
-- (SHOW JOB METRICS counts them, 2 on the left and 3 on the right, as Flink's
-- leftNumLateRecordsDropped / rightNumLateRecordsDropped: tests/cli/run.sh checks it, a
-- golden cannot hold the metrics' busy times)
CREATE TABLE late_orders (
  order_id BIGINT,
  rowtime TIMESTAMP(3),
  WATERMARK FOR rowtime AS rowtime - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'tests/sql/data/late_orders.json', 'format' = 'json');
CREATE TABLE late_payments (
  pay_id BIGINT,
  order_id BIGINT,
  rowtime TIMESTAMP(3),
  WATERMARK FOR rowtime AS rowtime - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'tests/sql/data/late_payments.json', 'format' = 'json');
SELECT o.order_id, o.window_start FROM TABLE(TUMBLE(TABLE late_orders, DESCRIPTOR(rowtime), INTERVAL '5' MINUTES)) o
WHERE EXISTS (SELECT * FROM TABLE(TUMBLE(TABLE late_payments, DESCRIPTOR(rowtime), INTERVAL '5' MINUTES)) p
  WHERE o.order_id = p.order_id AND o.window_start = p.window_start AND o.window_end = p.window_end);

-- only one window bound equated: a regular semi join with the bound in its condition
EXPLAIN SELECT o.order_id FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(rowtime), INTERVAL '5' MINUTES)) o
WHERE o.order_id IN (SELECT p.order_id FROM TABLE(TUMBLE(TABLE payments, DESCRIPTOR(rowtime), INTERVAL '5' MINUTES)) p
  WHERE o.window_start = p.window_start);

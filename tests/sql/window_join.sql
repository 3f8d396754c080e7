-- window_join.sql - window joins (Flink's WindowJoin): two windowed inputs
-- joined ON their keys and both window bounds, INNER / LEFT / RIGHT / FULL,
-- over TUMBLE, HOP and CUMULATE; each window's rows are joined when the
-- watermark passes its end (the end of the files here) and its state goes
-- then. Seed 003's window join example runs verbatim (files instead of
-- Kafka). EXPLAIN as Flink's WindowJoinTest.xml prints it: the window
-- equalities are not in where=[...], the inputs are hashed on the other
-- keys. Also: a window join after a window join, what Flink refuses or runs
-- as a regular join, and that a window join is never fused into a MultiJoin.
-- Data: 8 orders and 8 payments in 10:00-10:15, 5-minute windows
-- [10:00, 10:05) [10:05, 10:10) [10:10, 10:15); payment 102 pays order 2 in
-- the window after the order's, payment 106 an order that does not exist.
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

-- seed 003, verbatim
EXPLAIN SELECT
    o.window_start,
    o.window_end,
    o.order_id,
    p.pay_id
FROM TABLE(
    TUMBLE(TABLE orders, DESCRIPTOR(rowtime), INTERVAL '5' MINUTES)
) o
JOIN TABLE(
    TUMBLE(TABLE payments, DESCRIPTOR(rowtime), INTERVAL '5' MINUTES)
) p
ON o.order_id = p.order_id
AND o.window_start = p.window_start
AND o.window_end = p.window_end;
SELECT
    o.window_start,
    o.window_end,
    o.order_id,
    p.pay_id
FROM TABLE(
    TUMBLE(TABLE orders, DESCRIPTOR(rowtime), INTERVAL '5' MINUTES)
) o
JOIN TABLE(
    TUMBLE(TABLE payments, DESCRIPTOR(rowtime), INTERVAL '5' MINUTES)
) p
ON o.order_id = p.order_id
AND o.window_start = p.window_start
AND o.window_end = p.window_end;

-- SELECT * over subqueries, as Flink's WindowJoinTest writes them
EXPLAIN SELECT *
FROM (SELECT * FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(rowtime), INTERVAL '5' MINUTE)) WHERE amount > 20) L
JOIN (SELECT * FROM TABLE(TUMBLE(TABLE payments, DESCRIPTOR(rowtime), INTERVAL '5' MINUTE))) R
ON L.window_start = R.window_start AND L.window_end = R.window_end AND L.order_id = R.order_id;

-- outer joins: an unmatched row is padded when its window ends
EXPLAIN SELECT o.order_id, o.window_start, p.pay_id, p.window_start
FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(rowtime), INTERVAL '5' MINUTES)) o
LEFT JOIN TABLE(TUMBLE(TABLE payments, DESCRIPTOR(rowtime), INTERVAL '5' MINUTES)) p
ON o.order_id = p.order_id AND o.window_start = p.window_start AND o.window_end = p.window_end;
SELECT o.order_id, o.window_start, p.pay_id, p.window_start
FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(rowtime), INTERVAL '5' MINUTES)) o
LEFT JOIN TABLE(TUMBLE(TABLE payments, DESCRIPTOR(rowtime), INTERVAL '5' MINUTES)) p
ON o.order_id = p.order_id AND o.window_start = p.window_start AND o.window_end = p.window_end;
SELECT o.order_id, o.window_start, p.pay_id, p.window_start
FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(rowtime), INTERVAL '5' MINUTES)) o
RIGHT JOIN TABLE(TUMBLE(TABLE payments, DESCRIPTOR(rowtime), INTERVAL '5' MINUTES)) p
ON o.order_id = p.order_id AND o.window_start = p.window_start AND o.window_end = p.window_end;
SELECT o.order_id, o.window_start, p.pay_id, p.window_start
FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(rowtime), INTERVAL '5' MINUTES)) o
FULL JOIN TABLE(TUMBLE(TABLE payments, DESCRIPTOR(rowtime), INTERVAL '5' MINUTES)) p
ON o.order_id = p.order_id AND o.window_start = p.window_start AND o.window_end = p.window_end;

-- a residual condition, evaluated per pair within the window
SELECT o.order_id, p.pay_id, o.window_end
FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(rowtime), INTERVAL '5' MINUTES)) o
LEFT JOIN TABLE(TUMBLE(TABLE payments, DESCRIPTOR(rowtime), INTERVAL '5' MINUTES)) p
ON o.order_id = p.order_id AND o.window_start = p.window_start AND o.window_end = p.window_end
AND p.pay_id > 101;

-- HOP: every window of a row joins; order 2 and payment 102 meet in [10:00, 10:10)
EXPLAIN SELECT o.order_id, p.pay_id, o.window_start, o.window_end
FROM TABLE(HOP(TABLE orders, DESCRIPTOR(rowtime), INTERVAL '5' MINUTES, INTERVAL '10' MINUTES)) o
JOIN TABLE(HOP(TABLE payments, DESCRIPTOR(rowtime), INTERVAL '5' MINUTES, INTERVAL '10' MINUTES)) p
ON o.order_id = p.order_id AND o.window_start = p.window_start AND o.window_end = p.window_end;
SELECT o.order_id, p.pay_id, o.window_start, o.window_end
FROM TABLE(HOP(TABLE orders, DESCRIPTOR(rowtime), INTERVAL '5' MINUTES, INTERVAL '10' MINUTES)) o
JOIN TABLE(HOP(TABLE payments, DESCRIPTOR(rowtime), INTERVAL '5' MINUTES, INTERVAL '10' MINUTES)) p
ON o.order_id = p.order_id AND o.window_start = p.window_start AND o.window_end = p.window_end;

-- CUMULATE with an offset
EXPLAIN SELECT o.order_id, p.pay_id, o.window_start, o.window_end
FROM TABLE(CUMULATE(TABLE orders, DESCRIPTOR(rowtime), INTERVAL '5' MINUTES, INTERVAL '10' MINUTES, INTERVAL '5' MINUTES)) o
JOIN TABLE(CUMULATE(TABLE payments, DESCRIPTOR(rowtime), INTERVAL '5' MINUTES, INTERVAL '10' MINUTES, INTERVAL '5' MINUTES)) p
ON o.order_id = p.order_id AND o.window_start = p.window_start AND o.window_end = p.window_end;
SELECT o.order_id, p.pay_id, o.window_start, o.window_end
FROM TABLE(CUMULATE(TABLE orders, DESCRIPTOR(rowtime), INTERVAL '5' MINUTES, INTERVAL '10' MINUTES, INTERVAL '5' MINUTES)) o
JOIN TABLE(CUMULATE(TABLE payments, DESCRIPTOR(rowtime), INTERVAL '5' MINUTES, INTERVAL '10' MINUTES, INTERVAL '5' MINUTES)) p
ON o.order_id = p.order_id AND o.window_start = p.window_start AND o.window_end = p.window_end;

-- no key besides the window: one subtask (single exchanges), every pair of a window
EXPLAIN SELECT o.order_id, p.pay_id
FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(rowtime), INTERVAL '5' MINUTES)) o
JOIN TABLE(TUMBLE(TABLE payments, DESCRIPTOR(rowtime), INTERVAL '5' MINUTES)) p
ON o.window_start = p.window_start AND o.window_end = p.window_end AND o.order_id < p.order_id;
SELECT o.order_id, p.pay_id, p.order_id
FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(rowtime), INTERVAL '5' MINUTES)) o
JOIN TABLE(TUMBLE(TABLE payments, DESCRIPTOR(rowtime), INTERVAL '5' MINUTES)) p
ON o.window_start = p.window_start AND o.window_end = p.window_end AND o.order_id < p.order_id;

-- a window join over a window join's output (its window columns are windowed too)
EXPLAIN SELECT w.order_id, w.pay_id, p2.pay_id AS other_pay
FROM (
  SELECT o.order_id, p.pay_id, o.window_start, o.window_end
  FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(rowtime), INTERVAL '5' MINUTES)) o
  JOIN TABLE(TUMBLE(TABLE payments, DESCRIPTOR(rowtime), INTERVAL '5' MINUTES)) p
  ON o.order_id = p.order_id AND o.window_start = p.window_start AND o.window_end = p.window_end
) w
JOIN TABLE(TUMBLE(TABLE payments, DESCRIPTOR(rowtime), INTERVAL '5' MINUTES)) p2
ON w.order_id = p2.order_id AND w.window_start = p2.window_start AND w.window_end = p2.window_end AND w.pay_id < p2.pay_id;
SELECT w.order_id, w.pay_id, p2.pay_id AS other_pay
FROM (
  SELECT o.order_id, p.pay_id, o.window_start, o.window_end
  FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(rowtime), INTERVAL '5' MINUTES)) o
  JOIN TABLE(TUMBLE(TABLE payments, DESCRIPTOR(rowtime), INTERVAL '5' MINUTES)) p
  ON o.order_id = p.order_id AND o.window_start = p.window_start AND o.window_end = p.window_end
) w
JOIN TABLE(TUMBLE(TABLE payments, DESCRIPTOR(rowtime), INTERVAL '5' MINUTES)) p2
ON w.order_id = p2.order_id AND w.window_start = p2.window_start AND w.window_end = p2.window_end AND w.pay_id < p2.pay_id;

-- the plan at parallelism 2: hash exchanges on the key
SET 'parallelism.default' = '2';
EXPLAIN SELECT o.order_id, p.pay_id
FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(rowtime), INTERVAL '5' MINUTES)) o
JOIN TABLE(TUMBLE(TABLE payments, DESCRIPTOR(rowtime), INTERVAL '5' MINUTES)) p
ON o.order_id = p.order_id AND o.window_start = p.window_start AND o.window_end = p.window_end;
RESET 'parallelism.default';

-- with multi-join on, the window join stays a WindowJoin; the regular join above it is a Join
CREATE TABLE users (user_id BIGINT, user_name STRING)
WITH ('connector' = 'filesystem', 'path' = 'sample-data/users.json', 'format' = 'json');
SET 'table.optimizer.multi-join.enabled' = 'true';
EXPLAIN SELECT w.order_id, w.pay_id, u.user_name
FROM (
  SELECT o.order_id, o.user_id, p.pay_id
  FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(rowtime), INTERVAL '5' MINUTES)) o
  JOIN TABLE(TUMBLE(TABLE payments, DESCRIPTOR(rowtime), INTERVAL '5' MINUTES)) p
  ON o.order_id = p.order_id AND o.window_start = p.window_start AND o.window_end = p.window_end
) w
JOIN users u ON w.user_id = u.user_id;
RESET 'table.optimizer.multi-join.enabled';

-- only one window bound equal: not a window join (Flink plans a regular join)
EXPLAIN SELECT o.order_id, p.pay_id
FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(rowtime), INTERVAL '5' MINUTES)) o
JOIN TABLE(TUMBLE(TABLE payments, DESCRIPTOR(rowtime), INTERVAL '5' MINUTES)) p
ON o.order_id = p.order_id AND o.window_start = p.window_start;

-- Flink's errors: different windows on the two sides
SELECT o.order_id, p.pay_id
FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(rowtime), INTERVAL '5' MINUTES)) o
JOIN TABLE(TUMBLE(TABLE payments, DESCRIPTOR(rowtime), INTERVAL '10' MINUTES)) p
ON o.order_id = p.order_id AND o.window_start = p.window_start AND o.window_end = p.window_end;
SELECT o.order_id, p.pay_id
FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(rowtime), INTERVAL '10' MINUTES)) o
JOIN TABLE(HOP(TABLE payments, DESCRIPTOR(rowtime), INTERVAL '5' MINUTES, INTERVAL '10' MINUTES)) p
ON o.order_id = p.order_id AND o.window_start = p.window_start AND o.window_end = p.window_end;

-- a window join right after SESSION windows is refused, as in Flink
SELECT o.order_id, p.pay_id
FROM TABLE(SESSION(TABLE orders PARTITION BY order_id, DESCRIPTOR(rowtime), INTERVAL '5' MINUTES)) o
JOIN TABLE(SESSION(TABLE payments PARTITION BY order_id, DESCRIPTOR(rowtime), INTERVAL '5' MINUTES)) p
ON o.order_id = p.order_id AND o.window_start = p.window_start AND o.window_end = p.window_end;

-- semi / anti window joins (IN, EXISTS, NOT IN, NOT EXISTS): semi_anti_window_join.sql

-- event_time.sql - joins and aggregates bounded by event time, whose state
-- the watermark frees (paths are relative to the repository root).
--
-- orders.json's order_time rises through 2024-06-01..06-11 with 3% of the
-- orders up to 30 s late, so a 30-second watermark delay loses none. Three
-- statements: an interval join (orders by a user followed by another order
-- of the same user within ten minutes), the daily revenue per status as a
-- window TVF aggregation, and the plan of the interval join.

CREATE TABLE orders (
  order_id   BIGINT,
  user_id    BIGINT,
  amount     DECIMAL(10, 2),
  order_time TIMESTAMP(3),
  status     STRING,
  WATERMARK FOR order_time AS order_time - INTERVAL '30' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'sample-data/orders.json',
  'format' = 'json'
);

-- An interval join keeps each order only while a later one can still match
-- it: ten minutes of event time, not the whole history.
EXPLAIN
SELECT a.user_id, a.order_id AS first_order, b.order_id AS next_order, b.order_time
FROM orders AS a JOIN orders AS b
  ON a.user_id = b.user_id
 AND b.order_time > a.order_time
 AND b.order_time <= a.order_time + INTERVAL '10' MINUTE;

SELECT a.user_id, a.order_id AS first_order, b.order_id AS next_order, b.order_time
FROM orders AS a JOIN orders AS b
  ON a.user_id = b.user_id
 AND b.order_time > a.order_time
 AND b.order_time <= a.order_time + INTERVAL '10' MINUTE;

-- One row per day and status, emitted once when the watermark passes the
-- day's end; nothing is retracted and the window's state goes with it.
SELECT window_start, status, COUNT(*) AS orders, SUM(amount) AS revenue
FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(order_time), INTERVAL '1' DAY))
WHERE status IN ('PAID', 'SHIPPED')
GROUP BY window_start, window_end, status;

SHOW JOB METRICS;

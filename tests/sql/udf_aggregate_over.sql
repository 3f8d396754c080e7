-- udf_aggregate_over.sql - user-defined aggregate functions written in C
-- (tests/udf/test_udfs.c) in OVER aggregates, each beside the built-in
-- aggregates computing the same thing over the same window: weighted_avg(v, w)
-- against SUM(v * w) / SUM(w), product_append (no retract) against COUNT.
-- ROWS and RANGE frames, UNBOUNDED and n PRECEDING, per key; a bounded frame
-- needs retract (as Flink, which retracts the rows leaving it): a function
-- without it is refused naming it.
CREATE FUNCTION weighted_avg AS 'weighted_avg' LANGUAGE C USING JAR 'build/udf/libjoinery_test_udf.so';
CREATE FUNCTION product_append AS 'product_append' LANGUAGE C USING JAR 'build/udf/libjoinery_test_udf.so';

CREATE TABLE orders (
  order_id BIGINT,
  user_id BIGINT,
  amount DECIMAL(10, 2),
  order_time TIMESTAMP(3),
  WATERMARK FOR order_time AS order_time - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'tests/sql/data/window_aggregate_orders.json', 'format' = 'json');

EXPLAIN SELECT order_id, weighted_avg(order_id, CAST(order_id % 3 + 1 AS INT)) OVER (
  PARTITION BY user_id ORDER BY order_time ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS wavg
FROM orders;
-- ROWS UNBOUNDED PRECEDING (no retract needed)
SELECT order_id, user_id, weighted_avg(order_id, CAST(order_id % 3 + 1 AS INT)) OVER w AS wavg,
  SUM(order_id * (order_id % 3 + 1)) OVER w / SUM(order_id % 3 + 1) OVER w AS expected,
  product_append(order_id) OVER w AS p, COUNT(*) OVER w AS n
FROM orders
WINDOW w AS (PARTITION BY user_id ORDER BY order_time ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW);
-- ROWS 1 PRECEDING, no key
SELECT order_id, weighted_avg(order_id * 10, CAST(order_id % 3 + 1 AS INT)) OVER w AS wavg,
  SUM(order_id * 10 * (order_id % 3 + 1)) OVER w / SUM(order_id % 3 + 1) OVER w AS expected
FROM orders WINDOW w AS (ORDER BY order_time ROWS BETWEEN 1 PRECEDING AND CURRENT ROW);
-- RANGE 30 minutes PRECEDING, no key
SELECT order_id, order_time, weighted_avg(order_id * 10, CAST(order_id % 3 + 1 AS INT)) OVER w AS wavg,
  SUM(order_id * 10 * (order_id % 3 + 1)) OVER w / SUM(order_id % 3 + 1) OVER w AS expected
FROM orders WINDOW w AS (ORDER BY order_time RANGE BETWEEN INTERVAL '30' MINUTE PRECEDING AND CURRENT ROW);
-- the default frame (RANGE UNBOUNDED PRECEDING): a function without retract runs
SELECT order_id, product_append(order_id) OVER (ORDER BY order_time) AS p,
  COUNT(*) OVER (ORDER BY order_time) AS n
FROM orders;
-- refused: a bounded frame without retract
SELECT product_append(order_id) OVER (PARTITION BY user_id ORDER BY order_time ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM orders;
SELECT product_append(order_id) OVER (ORDER BY order_time RANGE BETWEEN INTERVAL '1' HOUR PRECEDING AND CURRENT ROW) FROM orders;

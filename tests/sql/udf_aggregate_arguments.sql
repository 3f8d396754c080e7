-- udf_aggregate_arguments.sql - a user-defined aggregate function written in C of three
-- arguments (tests/udf/test_udfs.c's product_sum(a, b, c) = SUM(a * b * c)), beside the
-- built-in SUM(a * b * c) in the same query: a GroupAggregate over an append-only and an
-- updating input (an argument repeated, an expression), two phases, a window TVF
-- aggregate, a SESSION group window whose sessions merge, OVER; refused with the wrong
-- number of arguments.
CREATE FUNCTION product_sum AS 'product_sum' LANGUAGE C USING JAR 'build/udf/libjoinery_test_udf.so';

SET 'sql-client.execution.result-mode' = 'changelog';

CREATE TEMPORARY VIEW t AS SELECT * FROM (VALUES ('a', 10, 1), ('a', 20, 3), ('b', 7, 2),
  ('b', CAST(NULL AS INT), 4), ('a', 5, 0)) AS v(k, v, w);
EXPLAIN SELECT k, product_sum(v, w, v + 1) AS ps FROM t GROUP BY k;
SELECT k, product_sum(v, w, v + 1) AS ps, SUM(v * w * (v + 1)) AS expected,
  product_sum(w, w, w) AS cubes, SUM(w * w * w) AS expected_cubes
FROM t GROUP BY k;

CREATE TABLE scores (id INT, k STRING, v BIGINT, w INT) WITH (
  'connector' = 'filesystem', 'path' = 'tests/sql/data/udf_aggregate_scores.debezium.json',
  'format' = 'debezium-json');
SELECT k, product_sum(v, w, id) AS ps, SUM(v * w * id) AS expected FROM scores GROUP BY k;
-- two phases: the local phase's accumulator merged in the global one
SET 'table.exec.mini-batch.enabled' = 'true';
SET 'table.exec.mini-batch.allow-latency' = '1 s';
SET 'table.exec.mini-batch.size' = '3';
EXPLAIN SELECT k, product_sum(v, w, id) AS ps FROM scores GROUP BY k;
SELECT k, product_sum(v, w, id) AS ps, SUM(v * w * id) AS expected FROM scores GROUP BY k;
RESET 'table.exec.mini-batch.enabled';
RESET 'table.exec.mini-batch.allow-latency';
RESET 'table.exec.mini-batch.size';

CREATE TABLE orders (
  order_id BIGINT,
  user_id BIGINT,
  amount DECIMAL(10, 2),
  order_time TIMESTAMP(3),
  WATERMARK FOR order_time AS order_time - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'tests/sql/data/window_aggregate_orders.json', 'format' = 'json');
EXPLAIN SELECT window_start, product_sum(order_id, user_id, order_id % 3) AS ps
FROM TABLE(HOP(TABLE orders, DESCRIPTOR(order_time), INTERVAL '30' MINUTE, INTERVAL '1' HOUR))
GROUP BY window_start, window_end;
SELECT window_start, product_sum(order_id, user_id, order_id % 3) AS ps,
  SUM(order_id * user_id * (order_id % 3)) AS expected
FROM TABLE(HOP(TABLE orders, DESCRIPTOR(order_time), INTERVAL '30' MINUTE, INTERVAL '1' HOUR))
GROUP BY window_start, window_end;

CREATE TABLE events (
  id BIGINT,
  uuid STRING,
  ip STRING,
  event_code INT,
  ts BIGINT,
  rowtime TIMESTAMP(3),
  WATERMARK FOR rowtime AS rowtime - INTERVAL '1' MINUTE
) WITH ('connector' = 'filesystem', 'path' = 'tests/sql/data/group_window_events.json', 'format' = 'json');
SELECT uuid, SESSION_START(rowtime, INTERVAL '2' MINUTE) AS ss,
  product_sum(id, ts, event_code) AS ps, SUM(id * ts * event_code) AS expected
FROM events GROUP BY uuid, SESSION(rowtime, INTERVAL '2' MINUTE);

-- OVER: ROWS 1 PRECEDING (retract) per user, an argument an expression
EXPLAIN SELECT order_id, product_sum(order_id, user_id, order_id % 3) OVER (PARTITION BY user_id
  ORDER BY order_time ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS ps FROM orders;
SELECT order_id, product_sum(order_id, user_id, order_id % 3) OVER w AS ps,
  SUM(order_id * user_id * (order_id % 3)) OVER w AS expected
FROM orders WINDOW w AS (PARTITION BY user_id ORDER BY order_time ROWS BETWEEN 1 PRECEDING AND CURRENT ROW);
-- refused: two arguments for three
SELECT k, product_sum(v, w) FROM t GROUP BY k;

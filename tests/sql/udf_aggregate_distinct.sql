-- udf_aggregate_distinct.sql - DISTINCT and FILTER (WHERE ...) on calls of user-defined
-- aggregate functions written in C (tests/udf/test_udfs.c), each beside the built-in
-- aggregate computing the same thing in the same query: long_sum against SUM,
-- weighted_avg(v, w) against SUM(v * w) / SUM(w). A GroupAggregate over an append-only
-- and an updating input (DISTINCT value counts: the function sees a value when it enters
-- or leaves the set), two phases with a FILTER, a window TVF aggregate, a SESSION group
-- window whose merged sessions rebuild the DISTINCT call from their values. Refused:
-- DISTINCT on a function of two arguments or one called on NULL input.
CREATE FUNCTION weighted_avg AS 'weighted_avg' LANGUAGE C USING JAR 'build/udf/libjoinery_test_udf.so';
CREATE FUNCTION long_sum AS 'long_sum' LANGUAGE C USING JAR 'build/udf/libjoinery_test_udf.so';
CREATE FUNCTION count_nulls AS 'count_nulls' LANGUAGE C USING JAR 'build/udf/libjoinery_test_udf.so';

SET 'sql-client.execution.result-mode' = 'changelog';

CREATE TEMPORARY VIEW t AS SELECT * FROM (VALUES ('a', 10, 1), ('a', 20, 3), ('a', 10, 2),
  ('b', 7, 2), ('b', CAST(NULL AS INT), 4), ('b', 7, 5), ('a', 5, 0)) AS v(k, v, w);

EXPLAIN SELECT k, long_sum(DISTINCT v) AS ds, weighted_avg(v, w) FILTER (WHERE w > 1) AS fw
FROM t GROUP BY k;
SELECT k, long_sum(DISTINCT v) AS ds, SUM(DISTINCT v) AS expected_ds,
  long_sum(v) FILTER (WHERE w > 1) AS fs, SUM(v) FILTER (WHERE w > 1) AS expected_fs,
  weighted_avg(v, w) FILTER (WHERE w > 1) AS fw,
  SUM(v * w) FILTER (WHERE w > 1) / SUM(v * 0 + w) FILTER (WHERE w > 1) AS expected_fw
FROM t GROUP BY k;

-- an updating input (debezium): DISTINCT over retractions, FILTER on the retracted rows
CREATE TABLE scores (id INT, k STRING, v BIGINT, w INT) WITH (
  'connector' = 'filesystem', 'path' = 'tests/sql/data/udf_aggregate_scores.debezium.json',
  'format' = 'debezium-json');
SELECT k, long_sum(DISTINCT w) AS ds, SUM(DISTINCT w) AS expected_ds,
  long_sum(v) FILTER (WHERE w < 3) AS fs, SUM(v) FILTER (WHERE w < 3) AS expected_fs
FROM scores GROUP BY k;

-- two phases with a FILTER: the local phase skips the rows the filter drops
SET 'table.exec.mini-batch.enabled' = 'true';
SET 'table.exec.mini-batch.allow-latency' = '1 s';
SET 'table.exec.mini-batch.size' = '3';
EXPLAIN SELECT k, long_sum(v) FILTER (WHERE w < 3) AS fs FROM scores GROUP BY k;
SELECT k, long_sum(v) FILTER (WHERE w < 3) AS fs, SUM(v) FILTER (WHERE w < 3) AS expected
FROM scores GROUP BY k;
RESET 'table.exec.mini-batch.enabled';
RESET 'table.exec.mini-batch.allow-latency';
RESET 'table.exec.mini-batch.size';

-- window TVF aggregate
CREATE TABLE orders (
  order_id BIGINT,
  user_id BIGINT,
  amount DECIMAL(10, 2),
  order_time TIMESTAMP(3),
  WATERMARK FOR order_time AS order_time - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'tests/sql/data/window_aggregate_orders.json', 'format' = 'json');
SELECT window_start, long_sum(DISTINCT user_id) AS ds, SUM(DISTINCT user_id) AS expected_ds,
  long_sum(order_id) FILTER (WHERE amount > 20) AS fs,
  SUM(order_id) FILTER (WHERE amount > 20) AS expected_fs
FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(order_time), INTERVAL '1' HOUR))
GROUP BY window_start, window_end;

-- SESSION group window per uuid: u-a's bridging row merges two sessions, whose DISTINCT
-- values (event codes) rebuild the merged call
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
  long_sum(DISTINCT event_code) AS ds, SUM(DISTINCT event_code) AS expected_ds,
  long_sum(id) FILTER (WHERE event_code <> 21001) AS fs,
  SUM(id) FILTER (WHERE event_code <> 21001) AS expected_fs
FROM events GROUP BY uuid, SESSION(rowtime, INTERVAL '2' MINUTE);

-- refused: DISTINCT on two arguments, on a function called on NULL input
SELECT k, weighted_avg(DISTINCT v, w) FROM t GROUP BY k;
SELECT k, count_nulls(DISTINCT v) FROM t GROUP BY k;

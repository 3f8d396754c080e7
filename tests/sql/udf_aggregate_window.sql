-- udf_aggregate_window.sql - user-defined aggregate functions written in C
-- (tests/udf/test_udfs.c) in window aggregates, beside the built-in aggregate
-- computing the same thing in the same query: weighted_avg(v, w) against
-- SUM(v * w) / SUM(w), product_append (no merge, no retract) against COUNT.
-- Window TVF aggregates (TUMBLE, HOP, CUMULATE, SESSION) and group windows
-- (GROUP BY TUMBLE / HOP / SESSION); a SESSION group window whose sessions
-- merge calls the function's merge; HOP, CUMULATE and SESSION need merge (as
-- in Flink, which merges slices, panes and sessions): a function without it is
-- refused naming it; a group window over an updating input needs retract.
CREATE FUNCTION weighted_avg AS 'weighted_avg' LANGUAGE C USING JAR 'build/udf/libjoinery_test_udf.so';
CREATE FUNCTION product_append AS 'product_append' LANGUAGE C USING JAR 'build/udf/libjoinery_test_udf.so';

CREATE TABLE orders (
  order_id BIGINT,
  user_id BIGINT,
  amount DECIMAL(10, 2),
  order_time TIMESTAMP(3),
  WATERMARK FOR order_time AS order_time - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'tests/sql/data/window_aggregate_orders.json', 'format' = 'json');

-- TUMBLE per user: the weight is the order id's parity + 1
EXPLAIN SELECT user_id, window_start, weighted_avg(order_id, CAST(order_id % 2 + 1 AS INT)) AS wavg
FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(order_time), INTERVAL '1' HOUR))
GROUP BY user_id, window_start, window_end;
SELECT user_id, window_start, window_end,
  weighted_avg(order_id, CAST(order_id % 2 + 1 AS INT)) AS wavg,
  SUM(order_id * (order_id % 2 + 1)) / SUM(order_id % 2 + 1) AS expected,
  product_append(order_id) AS p, COUNT(*) AS n
FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(order_time), INTERVAL '1' HOUR))
GROUP BY user_id, window_start, window_end;
-- HOP and CUMULATE, no key
SELECT window_start, window_end, weighted_avg(order_id, CAST(order_id % 3 + 1 AS INT)) AS wavg,
  SUM(order_id * (order_id % 3 + 1)) / SUM(order_id % 3 + 1) AS expected, COUNT(*) AS n
FROM TABLE(HOP(TABLE orders, DESCRIPTOR(order_time), INTERVAL '30' MINUTE, INTERVAL '1' HOUR))
GROUP BY window_start, window_end;
SELECT window_start, window_end, weighted_avg(order_id, 1) AS wavg, AVG(order_id) AS expected
FROM TABLE(CUMULATE(TABLE orders, DESCRIPTOR(order_time), INTERVAL '30' MINUTE, INTERVAL '1' HOUR))
GROUP BY window_start, window_end;
-- SESSION window TVF per user
SELECT user_id, window_start, window_end, weighted_avg(order_id, 1) AS wavg, AVG(order_id) AS expected
FROM TABLE(SESSION(TABLE orders PARTITION BY user_id, DESCRIPTOR(order_time), INTERVAL '20' MINUTES))
GROUP BY user_id, window_start, window_end;
-- refused: no merge in HOP, CUMULATE and SESSION windows
SELECT window_start, product_append(order_id) FROM TABLE(HOP(TABLE orders, DESCRIPTOR(order_time), INTERVAL '30' MINUTE, INTERVAL '1' HOUR)) GROUP BY window_start, window_end;
SELECT window_start, product_append(order_id) FROM TABLE(CUMULATE(TABLE orders, DESCRIPTOR(order_time), INTERVAL '30' MINUTE, INTERVAL '1' HOUR)) GROUP BY window_start, window_end;
SELECT window_start, product_append(order_id) FROM TABLE(SESSION(TABLE orders, DESCRIPTOR(order_time), INTERVAL '10' MINUTE)) GROUP BY window_start, window_end;

-- group windows
CREATE TABLE events (
  id BIGINT,
  uuid STRING,
  ip STRING,
  event_code INT,
  ts BIGINT,
  rowtime TIMESTAMP(3),
  WATERMARK FOR rowtime AS rowtime - INTERVAL '1' MINUTE
) WITH ('connector' = 'filesystem', 'path' = 'tests/sql/data/group_window_events.json', 'format' = 'json');
EXPLAIN SELECT uuid, TUMBLE_START(rowtime, INTERVAL '5' MINUTE) AS s,
  weighted_avg(id, CAST(ts - 99 AS INT)) AS wavg
FROM events GROUP BY uuid, TUMBLE(rowtime, INTERVAL '5' MINUTE);
SELECT uuid, TUMBLE_START(rowtime, INTERVAL '5' MINUTE) AS s,
  weighted_avg(id * 10, CAST(ts - 99 AS INT)) AS wavg,
  SUM(id * 10 * (ts - 99)) / SUM(ts - 99) AS expected,
  product_append(id) AS p, COUNT(*) AS n
FROM events GROUP BY uuid, TUMBLE(rowtime, INTERVAL '5' MINUTE);
SELECT HOP_START(rowtime, INTERVAL '2' MINUTE, INTERVAL '4' MINUTE) AS s,
  weighted_avg(id * 10, CAST(ts - 99 AS INT)) AS wavg,
  SUM(id * 10 * (ts - 99)) / SUM(ts - 99) AS expected
FROM events GROUP BY HOP(rowtime, INTERVAL '2' MINUTE, INTERVAL '4' MINUTE);
-- SESSION per uuid: u-a's 08:01:00 (id 12), read last, bridges two sessions into one of 4
-- rows, their accumulators merged by weighted_avg's merge: 1700 / 20 = 85 (88 or 111 when
-- one side's accumulator is lost); u-b's 08:08:00 extends 08:06:40's
SELECT uuid, SESSION_START(rowtime, INTERVAL '2' MINUTE) AS ss,
  SESSION_END(rowtime, INTERVAL '2' MINUTE) AS se,
  weighted_avg(id * 10, CAST(ts - 99 AS INT)) AS wavg,
  SUM(id * 10 * (ts - 99)) / SUM(ts - 99) AS expected,
  COUNT(*) AS n
FROM events GROUP BY uuid, SESSION(rowtime, INTERVAL '2' MINUTE);
-- refused: no merge in SESSION and HOP group windows
SELECT uuid, product_append(id) FROM events GROUP BY uuid, SESSION(rowtime, INTERVAL '2' MINUTE);
SELECT product_append(id) FROM events GROUP BY HOP(rowtime, INTERVAL '2' MINUTE, INTERVAL '4' MINUTE);

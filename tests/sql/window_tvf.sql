-- window_tvf.sql - the window table functions (Flink's window TVFs) on their
-- own: TUMBLE, HOP and CUMULATE with and without offsets, positional and
-- named arguments, over a table, a view, a CTE and a subquery; the columns
-- they add (window_start, window_end, window_time = window_end - 1 ms, a
-- rowtime attribute); SESSION, whose rows wait for the end of their merged
-- session (PARTITION BY keys); EXPLAIN as Flink's WindowTableFunctionTest.xml prints
-- it (LogicalTableFunctionScan, WindowTableFunction(window=[...])); the forms
-- Flink refuses and those joinery does not run yet.
CREATE TABLE orders (
  order_id BIGINT,
  user_id BIGINT,
  amount INT,
  rowtime TIMESTAMP(3),
  WATERMARK FOR rowtime AS rowtime - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'tests/sql/data/window_orders.json', 'format' = 'json');

-- TUMBLE: one window per row
EXPLAIN SELECT * FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(rowtime), INTERVAL '5' MINUTES));
SELECT * FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(rowtime), INTERVAL '5' MINUTES));

-- an offset shifts the windows: [10:02, 10:07) ...
EXPLAIN SELECT * FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(rowtime), INTERVAL '5' MINUTE, INTERVAL '2' MINUTE));
SELECT order_id, rowtime, window_start, window_end
FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(rowtime), INTERVAL '5' MINUTE, INTERVAL '-3' MINUTE));

-- named arguments, OFFSET backquoted as Flink's docs write it
EXPLAIN SELECT * FROM TABLE(TUMBLE(
   DATA => TABLE orders,
   TIMECOL => DESCRIPTOR(rowtime),
   SIZE => INTERVAL '15' MINUTE,
   `OFFSET` => INTERVAL '5' MINUTE));

-- HOP: slide, then size; a row goes out once per window, the latest first
EXPLAIN SELECT * FROM TABLE(HOP(TABLE orders, DESCRIPTOR(rowtime), INTERVAL '5' MINUTE, INTERVAL '10' MINUTE));
SELECT order_id, rowtime, window_start, window_end, window_time
FROM TABLE(HOP(TABLE orders, DESCRIPTOR(rowtime), INTERVAL '5' MINUTE, INTERVAL '10' MINUTE));
EXPLAIN SELECT * FROM TABLE(HOP(TABLE orders, DESCRIPTOR(rowtime), INTERVAL '1' MINUTE, INTERVAL '15' MINUTE, INTERVAL '-5' MINUTE));
-- named arguments in any order
SELECT order_id, window_start, window_end
FROM TABLE(HOP(SIZE => INTERVAL '10' MINUTE, DATA => TABLE orders, SLIDE => INTERVAL '5' MINUTE, TIMECOL => DESCRIPTOR(rowtime)))
WHERE order_id <= 2;

-- CUMULATE: step, then max size; the windows of one max-size window grow by a step
EXPLAIN SELECT * FROM TABLE(CUMULATE(TABLE orders, DESCRIPTOR(rowtime), INTERVAL '2' MINUTE, INTERVAL '6' MINUTE));
SELECT order_id, rowtime, window_start, window_end
FROM TABLE(CUMULATE(TABLE orders, DESCRIPTOR(rowtime), INTERVAL '2' MINUTE, INTERVAL '6' MINUTE));
EXPLAIN SELECT * FROM TABLE(CUMULATE(TABLE orders, DESCRIPTOR(rowtime), INTERVAL '1' MINUTE, INTERVAL '15' MINUTE, INTERVAL '5' MINUTE));

-- a filter and a projection above the function; the scan reads only what is used
EXPLAIN SELECT order_id, window_end FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(rowtime), INTERVAL '5' MINUTES)) WHERE amount > 20;
SELECT order_id, window_end FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(rowtime), INTERVAL '5' MINUTES)) WHERE amount > 20;

-- over a view, a CTE and a subquery (Calcite's TUMBLE((SELECT ...), ...))
CREATE VIEW big_orders AS SELECT order_id, amount, rowtime FROM orders WHERE amount >= 45;
SELECT * FROM TABLE(TUMBLE(TABLE big_orders, DESCRIPTOR(rowtime), INTERVAL '10' MINUTES));
WITH small AS (SELECT order_id, rowtime FROM orders WHERE amount < 20)
SELECT * FROM TABLE(TUMBLE(TABLE small, DESCRIPTOR(rowtime), INTERVAL '10' MINUTES));
SELECT t.order_id, t.window_start
FROM TABLE(TUMBLE((SELECT order_id, rowtime FROM orders WHERE user_id = 20), DESCRIPTOR(rowtime), INTERVAL '10' MINUTES)) AS t;

-- SESSION: rows wait per partition key until the watermark passes their session's end
-- (sessions merge when their windows [t, t + gap) touch); Exchange(hash[keys]) below
EXPLAIN SELECT * FROM TABLE(SESSION(TABLE orders PARTITION BY user_id, DESCRIPTOR(rowtime), INTERVAL '2' MINUTES));
SELECT * FROM TABLE(SESSION(TABLE orders PARTITION BY user_id, DESCRIPTOR(rowtime), INTERVAL '2' MINUTES));
-- without PARTITION BY: one subtask (Exchange(single)); order 6 at 10:03 bridges two sessions
EXPLAIN SELECT * FROM TABLE(SESSION(TABLE orders, DESCRIPTOR(rowtime), INTERVAL '2' MINUTES));
SELECT order_id, rowtime, window_start, window_end
FROM TABLE(SESSION(DATA => TABLE orders PARTITION BY (user_id), TIMECOL => DESCRIPTOR(rowtime), GAP => INTERVAL '1' MINUTE));
SELECT order_id, rowtime, window_start, window_end
FROM TABLE(SESSION(TABLE orders, DESCRIPTOR(rowtime), INTERVAL '2' MINUTES));

-- a TIMESTAMP_LTZ rowtime: window_time is TIMESTAMP_LTZ(3) *ROWTIME*, the bounds TIMESTAMP(3)
-- (the session time zone is UTC); Flink's rowType spells strings without NOT NULL
CREATE TABLE ltz_orders (order_id BIGINT, note STRING NOT NULL, rowtime TIMESTAMP_LTZ(3),
  WATERMARK FOR rowtime AS rowtime - INTERVAL '5' SECOND)
WITH ('connector' = 'filesystem', 'path' = 'tests/sql/data/window_orders.json', 'format' = 'json',
  'json.fail-on-missing-field' = 'false');
EXPLAIN SELECT order_id, window_time FROM TABLE(TUMBLE(TABLE ltz_orders, DESCRIPTOR(rowtime), INTERVAL '5' MINUTES));
SELECT order_id, rowtime, window_start, window_end, window_time
FROM TABLE(TUMBLE(TABLE ltz_orders, DESCRIPTOR(rowtime), INTERVAL '5' MINUTES)) WHERE order_id < 3;

-- Flink's validation
SELECT * FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(order_id), INTERVAL '5' MINUTES));
SELECT * FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(nowhere), INTERVAL '5' MINUTES));
SELECT * FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(rowtime)));
SELECT * FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(rowtime), SIZE => INTERVAL '5' MINUTES, GAP => INTERVAL '1' MINUTE));
SELECT * FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(rowtime), INTERVAL '0' MINUTES));
SELECT * FROM TABLE(CUMULATE(TABLE orders, DESCRIPTOR(rowtime), INTERVAL '25' MINUTE, INTERVAL '1' HOUR));
SELECT * FROM TABLE(TUMBLE(TABLE orders, rowtime, INTERVAL '5' MINUTES));
SELECT * FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(rowtime), 5));
SELECT * FROM TABLE(TUMBLE(TABLE orders PARTITION BY user_id, DESCRIPTOR(rowtime), INTERVAL '5' MINUTES));
SELECT * FROM TABLE(TUMBLE(TABLE missing, DESCRIPTOR(rowtime), INTERVAL '5' MINUTES));

SELECT * FROM TABLE(SESSION(TABLE orders, DESCRIPTOR(rowtime), INTERVAL '0' MINUTES));

-- a rowtime that came through a regular join is a plain TIMESTAMP(3) above
-- it (Flink's RelTimeIndicatorConverter materializes it): no window over it,
-- neither a window TVF nor a legacy group window (Flink's two messages); an
-- interval join keeps its time attributes, so a window over its output runs
CREATE TABLE order_users (user_id BIGINT, name STRING)
WITH ('connector' = 'filesystem', 'path' = 'tests/sql/data/window_orders.json', 'format' = 'json');
CREATE VIEW joined AS SELECT o.order_id, o.rowtime, u.name FROM orders o JOIN order_users u ON o.user_id = u.user_id;
SELECT * FROM TABLE(TUMBLE(TABLE joined, DESCRIPTOR(rowtime), INTERVAL '5' MINUTES));
SELECT COUNT(*) FROM joined GROUP BY TUMBLE(rowtime, INTERVAL '5' MINUTE);
CREATE VIEW paired AS SELECT a.order_id, a.rowtime FROM orders a, orders b
WHERE a.order_id = b.order_id AND a.rowtime BETWEEN b.rowtime - INTERVAL '1' MINUTE AND b.rowtime;
SELECT window_start, COUNT(*) AS pairs
FROM TABLE(TUMBLE(TABLE paired, DESCRIPTOR(rowtime), INTERVAL '5' MINUTES))
GROUP BY window_start, window_end;

-- not run yet, with a clear reason
CREATE TABLE clicks (user_id BIGINT, pt AS PROCTIME())
WITH ('connector' = 'filesystem', 'path' = 'tests/sql/data/window_orders.json', 'format' = 'json');
SELECT * FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(pt), INTERVAL '5' MINUTES));
SELECT * FROM orders, LATERAL TABLE(split(order_id));

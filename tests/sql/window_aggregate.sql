-- window_aggregate.sql - window aggregation over the window table functions
-- (Flink's window TVF aggregation): GROUP BY window_start, window_end [, keys]
-- over TUMBLE, HOP and CUMULATE gives one final row per window and key when the
-- watermark passes the window's end (append-only, no updates); EXPLAIN as
-- Flink's WindowAggregateTest.xml prints it: the window table function folded
-- into WindowAggregate(groupBy=[...], window=[TUMBLE(time_col=[...], size=[...])],
-- select=[..., start('w$) AS window_start, end('w$) AS window_end]) over
-- Exchange(hash[keys]), a Calc above for the select order; SESSION windows unfused
-- (the session window table function below); seed 001's example verbatim; the forms
-- not run yet, refused with their reason.
CREATE TABLE orders (
  order_id BIGINT,
  user_id BIGINT,
  amount DECIMAL(10, 2),
  order_time TIMESTAMP(3),
  WATERMARK FOR order_time AS order_time - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'tests/sql/data/window_aggregate_orders.json', 'format' = 'json');

-- seed 001, verbatim: hourly totals, state released when each hour fires
EXPLAIN SELECT window_start, window_end, SUM(amount)
FROM TABLE(
  TUMBLE(TABLE orders, DESCRIPTOR(order_time), INTERVAL '1' HOUR)
)
GROUP BY window_start, window_end;
SELECT window_start, window_end, SUM(amount)
FROM TABLE(
  TUMBLE(TABLE orders, DESCRIPTOR(order_time), INTERVAL '1' HOUR)
)
GROUP BY window_start, window_end;

-- per key: Exchange(hash[user_id]); a NULL key is a group of its own
EXPLAIN SELECT user_id, window_start, window_end, COUNT(*) AS cnt, SUM(amount) AS total,
  COUNT(amount) AS amounts, MIN(amount) AS smallest, MAX(amount) AS largest, AVG(amount) AS average
FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(order_time), INTERVAL '1' HOUR))
GROUP BY user_id, window_start, window_end;
SELECT user_id, window_start, window_end, COUNT(*) AS cnt, SUM(amount) AS total,
  COUNT(amount) AS amounts, MIN(amount) AS smallest, MAX(amount) AS largest, AVG(amount) AS average
FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(order_time), INTERVAL '1' HOUR))
GROUP BY user_id, window_start, window_end;

-- an offset, and window_time (window_end - 1 ms, a rowtime attribute) as a group key
EXPLAIN SELECT window_start, window_end, window_time, COUNT(*) AS cnt
FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(order_time), INTERVAL '1' HOUR, INTERVAL '30' MINUTE))
GROUP BY window_start, window_end, window_time;
SELECT window_start, window_end, window_time, COUNT(*) AS cnt
FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(order_time), INTERVAL '1' HOUR, INTERVAL '30' MINUTE))
GROUP BY window_start, window_end, window_time;

-- HOP: every row counts in each of its windows
EXPLAIN SELECT window_start, window_end, COUNT(*) AS cnt, SUM(amount) AS total
FROM TABLE(HOP(TABLE orders, DESCRIPTOR(order_time), INTERVAL '30' MINUTE, INTERVAL '1' HOUR))
GROUP BY window_start, window_end;
SELECT window_start, window_end, COUNT(*) AS cnt, SUM(amount) AS total
FROM TABLE(HOP(TABLE orders, DESCRIPTOR(order_time), INTERVAL '30' MINUTE, INTERVAL '1' HOUR))
GROUP BY window_start, window_end;

-- CUMULATE: the windows of one max-size window grow by a step
EXPLAIN SELECT window_start, window_end, user_id, COUNT(*) AS cnt
FROM TABLE(CUMULATE(TABLE orders, DESCRIPTOR(order_time), INTERVAL '30' MINUTE, INTERVAL '1' HOUR))
GROUP BY window_start, window_end, user_id;
SELECT window_start, window_end, user_id, COUNT(*) AS cnt
FROM TABLE(CUMULATE(TABLE orders, DESCRIPTOR(order_time), INTERVAL '30' MINUTE, INTERVAL '1' HOUR))
GROUP BY window_start, window_end, user_id;

-- over a view with a computed column, and a filter on the result
CREATE VIEW big_orders AS SELECT order_id, user_id, amount * 2 AS doubled, order_time FROM orders;
SELECT window_start, COUNT(*) AS cnt, SUM(doubled) AS total
FROM TABLE(TUMBLE(TABLE big_orders, DESCRIPTOR(order_time), INTERVAL '1' HOUR))
GROUP BY window_start, window_end
HAVING COUNT(*) > 2;

-- a WHERE on the function's fields filters below the folded window table function
EXPLAIN SELECT window_start, window_end, COUNT(*) AS cnt
FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(order_time), INTERVAL '1' HOUR))
WHERE amount > 20
GROUP BY window_start, window_end;
SELECT window_start, window_end, COUNT(*) AS cnt
FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(order_time), INTERVAL '1' HOUR))
WHERE amount > 20
GROUP BY window_start, window_end;

-- SESSION (Flink 1.19): the window table function stays below (sessions merged per
-- partition key, rows sent on with their session's bounds) and the WindowAggregate reads
-- each row's window from them: win_start=[window_start], win_end=[window_end]
EXPLAIN SELECT user_id, window_start, window_end, COUNT(*) AS cnt, SUM(amount) AS total
FROM TABLE(SESSION(TABLE orders PARTITION BY user_id, DESCRIPTOR(order_time), INTERVAL '20' MINUTES))
GROUP BY window_start, window_end, user_id;
SELECT user_id, window_start, window_end, COUNT(*) AS cnt, SUM(amount) AS total
FROM TABLE(SESSION(TABLE orders PARTITION BY user_id, DESCRIPTOR(order_time), INTERVAL '20' MINUTES))
GROUP BY window_start, window_end, user_id;
-- no partition key: one session sequence; window_time = window_end - 1 ms
EXPLAIN SELECT window_start, window_end, window_time, COUNT(*) AS cnt
FROM TABLE(SESSION(TABLE orders, DESCRIPTOR(order_time), INTERVAL '10' MINUTE))
GROUP BY window_start, window_end, window_time;
SELECT window_start, window_end, window_time, COUNT(*) AS cnt
FROM TABLE(SESSION(TABLE orders, DESCRIPTOR(order_time), INTERVAL '10' MINUTE))
GROUP BY window_start, window_end, window_time;

-- COUNT(DISTINCT): each user once per window (user 10 three times in 10:00-11:00, 20 twice
-- in 11:00-12:00); window_distinct.sql has the rest
SELECT window_start, window_end, COUNT(DISTINCT user_id)
FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(order_time), INTERVAL '1' HOUR))
GROUP BY window_start, window_end;

-- not run yet, with a clear reason
SELECT window_start, window_end, COUNT(*)
FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(order_time), INTERVAL '1' HOUR))
WHERE window_start > TIMESTAMP '2024-01-01 10:00:00'
GROUP BY window_start, window_end;
SELECT window_start, window_end, MAX(window_time)
FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(order_time), INTERVAL '1' HOUR))
GROUP BY window_start, window_end;

-- mini-batch on: Flink's MiniBatchIntervalInferRule puts a MiniBatchAssigner in RowTime
-- mode above the WatermarkAssigner (the WindowAggregate needs watermarks) and the
-- WindowAggregate runs as without mini-batch (Flink has no mini-batch window aggregate):
-- the same rows as the per-key TUMBLE above
SET 'table.exec.mini-batch.enabled' = 'true';
SET 'table.exec.mini-batch.allow-latency' = '1 s';
SET 'table.exec.mini-batch.size' = '2';
EXPLAIN SELECT user_id, window_start, window_end, COUNT(*) AS cnt, SUM(amount) AS total
FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(order_time), INTERVAL '1' HOUR))
GROUP BY user_id, window_start, window_end;
SELECT user_id, window_start, window_end, COUNT(*) AS cnt, SUM(amount) AS total
FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(order_time), INTERVAL '1' HOUR))
GROUP BY user_id, window_start, window_end;
-- a legacy group window is NO_MINIBATCH in Flink: no assigner below it
EXPLAIN SELECT user_id, COUNT(*) AS cnt, TUMBLE_END(order_time, INTERVAL '1' HOUR) AS we
FROM orders GROUP BY user_id, TUMBLE(order_time, INTERVAL '1' HOUR);
RESET 'table.exec.mini-batch.enabled';
RESET 'table.exec.mini-batch.allow-latency';
RESET 'table.exec.mini-batch.size';

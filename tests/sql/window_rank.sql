-- window_rank.sql - window Top-N and window deduplication (Flink's WindowRank and
-- WindowDeduplicate, WindowRankTest.xml / WindowDeduplicateTest.xml): ROW_NUMBER()
-- OVER (PARTITION BY window_start, window_end [, keys] ORDER BY ...) under a bound, on
-- a window table function or on a window aggregate's output. Each window's rows are
-- emitted once the watermark passes its end (append-only), the top N per window and
-- key; rn = 1 ordered by the rowtime is a WindowDeduplicate (FirstRow for ASC,
-- LastRow for DESC). Late rows are dropped and counted (tests/unit/check_window_rank.c).
CREATE TABLE orders (
  order_id BIGINT,
  user_id BIGINT,
  amount INT,
  rowtime TIMESTAMP(3),
  WATERMARK FOR rowtime AS rowtime - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'tests/sql/data/window_orders.json', 'format' = 'json');

-- the two largest orders of each 5-minute window (no other key: a single exchange)
EXPLAIN SELECT * FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY amount DESC) AS rn
  FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(rowtime), INTERVAL '5' MINUTE)))
WHERE rn <= 2;
SELECT * FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY amount DESC) AS rn
  FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(rowtime), INTERVAL '5' MINUTE)))
WHERE rn <= 2;

-- per user and HOP window, ranks 2 to 3 without the rank column
EXPLAIN SELECT window_start, window_end, user_id, order_id, amount FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY user_id, window_start, window_end ORDER BY amount) AS rn
  FROM TABLE(HOP(TABLE orders, DESCRIPTOR(rowtime), INTERVAL '5' MINUTE, INTERVAL '10' MINUTE)))
WHERE rn BETWEEN 2 AND 3;
SELECT window_start, window_end, user_id, order_id, amount FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY user_id, window_start, window_end ORDER BY amount) AS rn
  FROM TABLE(HOP(TABLE orders, DESCRIPTOR(rowtime), INTERVAL '5' MINUTE, INTERVAL '10' MINUTE)))
WHERE rn BETWEEN 2 AND 3;

-- Top-N over a window aggregate: the two users with the largest totals per window
EXPLAIN SELECT * FROM (
  SELECT window_start, window_end, user_id, total,
    ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY total DESC) AS rn
  FROM (SELECT window_start, window_end, user_id, SUM(amount) AS total
        FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(rowtime), INTERVAL '5' MINUTE))
        GROUP BY window_start, window_end, user_id))
WHERE rn <= 2;
SELECT * FROM (
  SELECT window_start, window_end, user_id, total,
    ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY total DESC) AS rn
  FROM (SELECT window_start, window_end, user_id, SUM(amount) AS total
        FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(rowtime), INTERVAL '5' MINUTE))
        GROUP BY window_start, window_end, user_id))
WHERE rn <= 2;

-- window deduplication: the last order of each user per window (LastRow), the first
-- (FirstRow); rn = 1 ordered by amount is a WindowRank
EXPLAIN SELECT window_start, window_end, user_id, amount FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY user_id, window_start, window_end ORDER BY rowtime DESC) AS rn
  FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(rowtime), INTERVAL '5' MINUTE)))
WHERE rn = 1;
SELECT window_start, window_end, user_id, amount FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY user_id, window_start, window_end ORDER BY rowtime DESC) AS rn
  FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(rowtime), INTERVAL '5' MINUTE)))
WHERE rn = 1;
SELECT window_start, user_id, order_id, rn FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY user_id, window_start, window_end ORDER BY rowtime) AS rn
  FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(rowtime), INTERVAL '5' MINUTE)))
WHERE rn <= 1;
EXPLAIN SELECT window_start, user_id, order_id FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY user_id, window_start, window_end ORDER BY amount) AS rn
  FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(rowtime), INTERVAL '5' MINUTE)))
WHERE rn = 1;

-- only window_start in PARTITION BY: a plain Top-N over the windowed rows (Flink too)
EXPLAIN SELECT * FROM (
  SELECT window_start, order_id, ROW_NUMBER() OVER (PARTITION BY window_start ORDER BY amount DESC) AS rn
  FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(rowtime), INTERVAL '5' MINUTE)))
WHERE rn <= 1;

-- refused: RANK() per window, SESSION windows
SELECT * FROM (
  SELECT *, RANK() OVER (PARTITION BY window_start, window_end ORDER BY amount DESC) AS rk
  FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(rowtime), INTERVAL '5' MINUTE)))
WHERE rk <= 2;
SELECT * FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY amount DESC) AS rn
  FROM TABLE(SESSION(TABLE orders PARTITION BY user_id, DESCRIPTOR(rowtime), INTERVAL '1' MINUTE)))
WHERE rn <= 2;

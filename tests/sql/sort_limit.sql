-- sort_limit.sql - ORDER BY ... LIMIT / OFFSET / FETCH on a stream: Flink's
-- SortLimit (SortLimitTest.xml), the Top-N machinery without partition and without
-- the rank column over a single exchange: ranks OFFSET + 1 to OFFSET + FETCH, the
-- strategy chosen from the input as for Rank. A row entering the top shifts the
-- others (-D of the row pushed out, +I of the new one; with an offset, -U/+U of the
-- rows that move within the range). OFFSET alone plans (fetch=[unlimited]) and is
-- refused as in Flink.
CREATE TABLE events (
  id INT,
  name STRING,
  amount INT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'tests/sql/data/sort_events.json', 'format' = 'json');

-- the three largest amounts (append-only input: AppendFastStrategy)
EXPLAIN SELECT id, name, amount FROM events ORDER BY amount DESC, id LIMIT 3;
SELECT id, name, amount FROM events ORDER BY amount DESC, id LIMIT 3;

-- FETCH FIRST, an ORDER BY key that is not selected (a Calc above drops it), NULLS LAST
EXPLAIN SELECT name FROM events ORDER BY amount NULLS LAST FETCH FIRST 2 ROWS ONLY;
SELECT name FROM events ORDER BY amount NULLS LAST FETCH FIRST 2 ROWS ONLY;

-- LIMIT 2 OFFSET 1: ranks 2 and 3; the NULL amount sorts first ascending
EXPLAIN SELECT id, amount FROM events ORDER BY amount LIMIT 2 OFFSET 1;
SELECT id, amount FROM events ORDER BY amount LIMIT 2 OFFSET 1;

-- over an aggregate: the two names with the most events (COUNT grows: UpdateFast[0])
EXPLAIN SELECT name, cnt FROM (SELECT name, COUNT(*) AS cnt FROM events GROUP BY name)
ORDER BY cnt DESC, name LIMIT 2;
-- over a SUM (it may go down): RetractStrategy
EXPLAIN SELECT amount, total FROM (SELECT amount, SUM(id) AS total FROM events GROUP BY amount)
ORDER BY total LIMIT 2;
SELECT amount, total FROM (SELECT amount, SUM(id) AS total FROM events GROUP BY amount)
ORDER BY total LIMIT 2;

-- ORDER BY a time attribute with LIMIT is a SortLimit too
EXPLAIN SELECT id, ts FROM events ORDER BY ts DESC LIMIT 2;
SELECT id, ts FROM events ORDER BY ts DESC LIMIT 2;

-- OFFSET without FETCH: planned, refused
EXPLAIN SELECT id FROM events ORDER BY amount OFFSET 2 ROWS;
SELECT id FROM events ORDER BY amount OFFSET 2 ROWS;

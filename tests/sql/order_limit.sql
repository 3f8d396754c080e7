-- order_limit.sql - ORDER BY, LIMIT, OFFSET and FETCH: the LogicalSort they bind
-- to (Calcite's spelling: sort0=[$1], dir0=[DESC-nulls-last], offset=[...],
-- fetch=[...]; NULLs first ascending and last descending by default, as Flink
-- orders them), ORDER BY keys that are not select items (extra fields dropped
-- by a LogicalProject above the sort, as Flink's SortTest plans them), and
-- Flink's streaming rules: FETCH 0 is an empty Values, a sort whose first key is
-- not a time attribute ascending is refused with Flink's message.
CREATE TABLE events (
  id INT,
  name STRING,
  amount INT,
  ts TIMESTAMP(3),
  pt AS PROCTIME(),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'tests/sql/data/sort_events.json', 'format' = 'json');

-- FETCH 0 and LIMIT 0: no rows, whatever the input (Flink's Values(tuples=[[]]))
EXPLAIN SELECT id, name FROM events LIMIT 0;
SELECT id, name FROM events FETCH FIRST 0 ROWS ONLY;
EXPLAIN SELECT id FROM events ORDER BY amount DESC LIMIT 0 OFFSET 3;

-- Flink's streaming rule: the first key must be a time attribute ascending
SELECT id FROM events ORDER BY amount;
SELECT id FROM events ORDER BY ts DESC;
SELECT id, name FROM events ORDER BY name, ts;

-- binding errors: ordinals, DISTINCT, counts
SELECT id FROM events ORDER BY 2;
SELECT DISTINCT name FROM events ORDER BY amount;
SELECT id FROM events LIMIT amount;
SELECT id FROM events LIMIT 2 OFFSET -1;
SELECT id FROM events FETCH FIRST 2 ROWS;
SELECT id FROM events OFFSET 1 ROWS FETCH LAST 2 ROWS ONLY;
SELECT id FROM events UNION ALL SELECT amount FROM events ORDER BY id + 1;

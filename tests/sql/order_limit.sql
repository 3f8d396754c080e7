-- order_limit.sql - ORDER BY, LIMIT, OFFSET and FETCH: the LogicalSort they bind
-- to (Calcite's spelling: sort0=[$1], dir0=[DESC-nulls-last], offset=[...],
-- fetch=[...]; NULLs first ascending and last descending by default, as Flink
-- orders them), ORDER BY keys that are not select items (extra fields dropped
-- by a LogicalProject above the sort, as Flink's SortTest plans them), and
-- Flink's streaming rules: FETCH 0 is an empty Values, ORDER BY a time attribute
-- ascending is a TemporalSort, a sort whose first key is not a time attribute
-- ascending is refused with Flink's message.
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

-- streaming ORDER BY a time attribute ascending: Flink's TemporalSort over
-- Exchange(single), rows released in time order as the watermark passes (at
-- the end of this file all at once), ties by the other keys, then in arrival order
EXPLAIN SELECT id, name, ts FROM events ORDER BY ts;
SELECT id, name, ts FROM events ORDER BY ts;
EXPLAIN SELECT id, ts AS t FROM events ORDER BY t, amount DESC;
SELECT id, ts AS t FROM events ORDER BY t, amount DESC;
-- processing time: what arrived is released one millisecond later, sorted by the other keys
EXPLAIN SELECT id, name FROM events ORDER BY pt, name DESC;

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

-- LIMIT / OFFSET / FETCH alone: Flink's Limit(offset=[m], fetch=[n]) over Exchange(single),
-- the first rows of an insert-only input in arrival order
EXPLAIN SELECT id, name FROM events LIMIT 3;
SELECT id, name FROM events LIMIT 3;
SELECT id, name FROM events LIMIT 2 OFFSET 5;
SELECT id, name FROM events OFFSET 6 ROWS;
SELECT id FROM events OFFSET 1 ROW FETCH NEXT 2 ROWS ONLY;
SELECT id FROM events FETCH FIRST ROW ONLY;
SELECT name FROM events WHERE amount > 15 LIMIT 2;

-- an unbounded source: the query stops once its rows are final, as Flink's SQL client does
CREATE TABLE endless (id BIGINT, v INT) WITH ('connector' = 'datagen', 'rows-per-second' = '1000');
EXPLAIN SELECT id IS NOT NULL AS has_id FROM endless LIMIT 4;
SELECT id IS NOT NULL AS has_id FROM endless LIMIT 4;
CREATE TABLE endless_sequence (id BIGINT) WITH ('connector' = 'datagen', 'fields.id.kind' = 'sequence',
  'fields.id.start' = '1', 'fields.id.end' = '9223372036854775806', 'rows-per-second' = '1000');
SELECT id FROM endless_sequence LIMIT 3 OFFSET 2;

-- a streaming LIMIT over an updating input is refused (batch mode gives the final rows)
SELECT name, COUNT(*) AS c FROM events GROUP BY name LIMIT 2;
-- ORDER BY a time attribute with LIMIT is Flink's SortLimit; TemporalSort takes insert-only input
SELECT id FROM events ORDER BY ts LIMIT 3;
SELECT name, MAX(ts) AS last_ts FROM events GROUP BY name ORDER BY last_ts;

-- window_distinct.sql - DISTINCT aggregates per window: window TVF aggregation
-- (WindowAggregate over TUMBLE, HOP, CUMULATE and SESSION) and legacy group windows
-- (GroupWindowAggregate, TUMBLE and HOP, also over an updating input, and SESSION, whose
-- merges join the sessions' distinct values). A DISTINCT call
-- sees each non-NULL value once per window; its values are kept per window beside the
-- accumulator and released when the window fires (exec/aggregate/distinct_values.h).
-- EXPLAIN prints the call as Flink's WindowAggregateTest.xml / GroupWindowTest.xml do
-- in one phase: COUNT(DISTINCT ip) AS ips, no distinct view. Seed 004's two views run
-- verbatim (the `...` of its ROW filled with the source table's remaining columns).
CREATE TABLE src_event_point_log_p8001 (
  id BIGINT,
  version STRING,
  uuid STRING,
  event_code INT,
  ua_browser STRING,
  ua_os STRING,
  ip STRING,
  ts BIGINT,
  rowtime TIMESTAMP(3),
  WATERMARK FOR rowtime AS rowtime - INTERVAL '1' MINUTE
) WITH ('connector' = 'filesystem', 'path' = 'tests/sql/data/window_distinct_events.json', 'format' = 'json');

-- seed 004, verbatim: the filter, then per uuid and 3 minutes the distinct ips, the
-- latest ts and every event as a ROW in a MULTISET (u-a's 10.0.0.1 twice in its first
-- window and 10.0.0.3 twice in its second; id 5's event code and id 6's uuid 'x' are
-- filtered out; u-b's NULL ip is skipped by LISTAGG)
DROP TEMPORARY VIEW IF EXISTS preprocessed_event_data ;
CREATE TEMPORARY VIEW preprocessed_event_data AS
SELECT *
FROM src_event_point_log_p8001
WHERE event_code IN (21001, 11001, 21003)
  AND `uuid` IS NOT NULL
  AND CHAR_LENGTH(`uuid`) > 1 ;

CREATE TEMPORARY VIEW windowed_event_data AS
SELECT
    uuid,
    LISTAGG(DISTINCT ip, ',') as historical_ips_str,
    MAX(ts) as latest_ts,
    COLLECT(
        ROW(`id`, `version`, `uuid`, `event_code`, `ua_browser`, `ua_os`, `ip`, `ts`, `rowtime`)
    ) as events,
    TUMBLE_END(rowtime, INTERVAL '3' MINUTE) as window_end
FROM preprocessed_event_data
GROUP BY
    uuid,
    TUMBLE(rowtime, INTERVAL '3' MINUTE);

EXPLAIN SELECT * FROM windowed_event_data;
SELECT * FROM windowed_event_data;
-- the events in full
SET 'table.display.max-column-width' = '240';
SELECT window_end, CARDINALITY(events) AS n, events FROM windowed_event_data;
RESET 'table.display.max-column-width';

-- window TVF aggregation per uuid: COUNT / SUM / AVG / LISTAGG with DISTINCT beside
-- the plain calls (ts 101 twice in u-a's first window)
EXPLAIN SELECT uuid, window_start, window_end, COUNT(*) AS cnt, COUNT(DISTINCT ip) AS ips,
  SUM(DISTINCT ts) AS distinct_ts, SUM(ts) AS all_ts, AVG(DISTINCT ts) AS avg_ts,
  LISTAGG(DISTINCT ua_browser) AS browsers
FROM TABLE(TUMBLE(TABLE src_event_point_log_p8001, DESCRIPTOR(rowtime), INTERVAL '3' MINUTE))
GROUP BY uuid, window_start, window_end;
SELECT uuid, window_start, window_end, COUNT(*) AS cnt, COUNT(DISTINCT ip) AS ips,
  SUM(DISTINCT ts) AS distinct_ts, SUM(ts) AS all_ts, AVG(DISTINCT ts) AS avg_ts,
  LISTAGG(DISTINCT ua_browser) AS browsers
FROM TABLE(TUMBLE(TABLE src_event_point_log_p8001, DESCRIPTOR(rowtime), INTERVAL '3' MINUTE))
GROUP BY uuid, window_start, window_end;

-- HOP and CUMULATE: each window has its own distinct values
SELECT window_start, window_end, COUNT(*) AS cnt, COUNT(DISTINCT uuid) AS uuids,
  COUNT(DISTINCT version) AS versions
FROM TABLE(HOP(TABLE src_event_point_log_p8001, DESCRIPTOR(rowtime), INTERVAL '2' MINUTE,
  INTERVAL '4' MINUTE))
GROUP BY window_start, window_end;
SELECT window_start, window_end, COUNT(DISTINCT ip) AS ips, LISTAGG(DISTINCT uuid, '|') AS uuids
FROM TABLE(CUMULATE(TABLE src_event_point_log_p8001, DESCRIPTOR(rowtime), INTERVAL '2' MINUTE,
  INTERVAL '6' MINUTE))
GROUP BY window_start, window_end;

-- SESSION (the session window table function below): distinct values per session
SELECT uuid, window_start, window_end, COUNT(*) AS cnt, COUNT(DISTINCT ip) AS ips
FROM TABLE(SESSION(TABLE src_event_point_log_p8001 PARTITION BY uuid, DESCRIPTOR(rowtime),
  INTERVAL '90' SECOND))
GROUP BY uuid, window_start, window_end;

-- legacy group windows: TUMBLE and HOP
EXPLAIN SELECT uuid, COUNT(DISTINCT ip) AS ips, SUM(DISTINCT ts) AS distinct_ts,
  HOP_END(rowtime, INTERVAL '2' MINUTE, INTERVAL '4' MINUTE) AS he
FROM src_event_point_log_p8001
GROUP BY uuid, HOP(rowtime, INTERVAL '2' MINUTE, INTERVAL '4' MINUTE);
SELECT uuid, COUNT(DISTINCT ip) AS ips, SUM(DISTINCT ts) AS distinct_ts,
  HOP_END(rowtime, INTERVAL '2' MINUTE, INTERVAL '4' MINUTE) AS he
FROM src_event_point_log_p8001
GROUP BY uuid, HOP(rowtime, INTERVAL '2' MINUTE, INTERVAL '4' MINUTE);
SELECT COUNT(*) AS cnt, COUNT(DISTINCT uuid) AS uuids, AVG(DISTINCT ts) AS avg_ts,
  TUMBLE_START(rowtime, INTERVAL '5' MINUTE) AS ws
FROM src_event_point_log_p8001
GROUP BY TUMBLE(rowtime, INTERVAL '5' MINUTE);

-- over an updating input (a debezium changelog): -U / -D retract from the distinct
-- values; a value leaves the window with its last row. home: visit 1 (ann) deleted, 2
-- changed from bob to ann, 3 ann -> 2 rows, 1 user, visits 2 + 3; cart's 08:00 window
-- lost its only row: no row; cart 08:01: dan
CREATE TABLE visits (visit INT, page STRING, user_name STRING, vt TIMESTAMP(3),
  WATERMARK FOR vt AS vt - INTERVAL '1' MINUTE
) WITH ('connector' = 'filesystem', 'path' = 'tests/sql/data/window_distinct_visits.debezium.json',
  'format' = 'debezium-json');
EXPLAIN SELECT page, COUNT(*) AS cnt, COUNT(DISTINCT user_name) AS users,
  SUM(DISTINCT visit) AS visits, TUMBLE_START(vt, INTERVAL '1' MINUTE) AS ws
FROM visits GROUP BY page, TUMBLE(vt, INTERVAL '1' MINUTE);
SELECT page, COUNT(*) AS cnt, COUNT(DISTINCT user_name) AS users,
  SUM(DISTINCT visit) AS visits, TUMBLE_START(vt, INTERVAL '1' MINUTE) AS ws
FROM visits GROUP BY page, TUMBLE(vt, INTERVAL '1' MINUTE);

-- SESSION group windows: when sessions merge, their distinct values are joined and the
-- DISTINCT calls rebuilt from them. Per uuid (rows in order: no merge of two sessions)
SELECT uuid, COUNT(DISTINCT ip), SESSION_END(rowtime, INTERVAL '1' MINUTE)
FROM src_event_point_log_p8001 GROUP BY uuid, SESSION(rowtime, INTERVAL '1' MINUTE);
-- without a key, 35 s gap: [08:01:00, 08:01:35) and [08:02:00, 08:03:15) are live when
-- x's 08:01:30 (read after 08:02:40) bridges them; u-a is in both, counted once
SELECT SESSION_START(rowtime, INTERVAL '35' SECOND) AS ss,
  SESSION_END(rowtime, INTERVAL '35' SECOND) AS se, COUNT(*) AS cnt,
  COUNT(DISTINCT uuid) AS uuids, COUNT(DISTINCT version) AS versions, SUM(DISTINCT ts) AS ts_sum
FROM src_event_point_log_p8001 GROUP BY SESSION(rowtime, INTERVAL '35' SECOND);

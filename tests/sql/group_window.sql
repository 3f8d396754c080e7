-- group_window.sql - legacy group windows (Flink's GroupWindowAggregate):
-- GROUP BY [keys,] TUMBLE(time, size) / HOP(time, slide, size) /
-- SESSION(time, gap) with the auxiliary functions TUMBLE_START, _END,
-- _ROWTIME, _PROCTIME (HOP_*, SESSION_*). EXPLAIN as Flink's
-- GroupWindowTest.xml: the window key becomes the time attribute in the Calc
-- below, GroupWindowAggregate(groupBy=[...], window=[TumblingGroupWindow('w$,
-- rowtime, ms)], properties=[w$start, w$end, w$rowtime, w$proctime], ...)
-- and the auxiliary functions become the property fields in the Calc above.
-- One final row per window and key when the watermark passes the window's end;
-- rows of windows already fired are late and dropped. Seed 004's first view and its
-- window without LISTAGG / COLLECT (window_distinct.sql runs the whole view).
CREATE TABLE src_event_point_log_p8001 (
  id BIGINT,
  uuid STRING,
  ip STRING,
  event_code INT,
  ts BIGINT,
  rowtime TIMESTAMP(3),
  WATERMARK FOR rowtime AS rowtime - INTERVAL '1' MINUTE
) WITH ('connector' = 'filesystem', 'path' = 'tests/sql/data/group_window_events.json', 'format' = 'json');

-- seed 004's first view, verbatim
DROP TEMPORARY VIEW IF EXISTS preprocessed_event_data ;
CREATE TEMPORARY VIEW preprocessed_event_data AS
SELECT *
FROM src_event_point_log_p8001
WHERE event_code IN (21001, 11001, 21003)
  AND `uuid` IS NOT NULL
  AND CHAR_LENGTH(`uuid`) > 1 ;

-- seed 004's window, per uuid over 3 minutes (its LISTAGG and COLLECT: window_distinct.sql);
-- id 12 (08:01:00) comes last in the file but before a watermark passes its window
-- (the file is one batch), so it counts in u-a's first window
EXPLAIN SELECT
    uuid,
    MAX(ts) as latest_ts,
    COUNT(*) as events,
    TUMBLE_END(rowtime, INTERVAL '3' MINUTE) as window_end
FROM preprocessed_event_data
GROUP BY
    uuid,
    TUMBLE(rowtime, INTERVAL '3' MINUTE);
SELECT
    uuid,
    MAX(ts) as latest_ts,
    COUNT(*) as events,
    TUMBLE_END(rowtime, INTERVAL '3' MINUTE) as window_end
FROM preprocessed_event_data
GROUP BY
    uuid,
    TUMBLE(rowtime, INTERVAL '3' MINUTE);

-- no auxiliary function: no properties; no key: Exchange(single)
EXPLAIN SELECT COUNT(*) AS cnt, SUM(ts) AS total FROM src_event_point_log_p8001
GROUP BY TUMBLE(rowtime, INTERVAL '5' MINUTE);
SELECT COUNT(*) AS cnt, SUM(ts) AS total FROM src_event_point_log_p8001
GROUP BY TUMBLE(rowtime, INTERVAL '5' MINUTE);

-- HOP(time, slide, size): SlidingGroupWindow('w$, rowtime, size, slide); each row in
-- size / slide windows
EXPLAIN SELECT HOP_START(rowtime, INTERVAL '2' MINUTE, INTERVAL '4' MINUTE) AS hs,
  HOP_END(rowtime, INTERVAL '2' MINUTE, INTERVAL '4' MINUTE) AS he, COUNT(*) AS cnt,
  MIN(id) AS first_id, AVG(ts) AS avg_ts
FROM src_event_point_log_p8001
GROUP BY HOP(rowtime, INTERVAL '2' MINUTE, INTERVAL '4' MINUTE);
SELECT HOP_START(rowtime, INTERVAL '2' MINUTE, INTERVAL '4' MINUTE) AS hs,
  HOP_END(rowtime, INTERVAL '2' MINUTE, INTERVAL '4' MINUTE) AS he, COUNT(*) AS cnt,
  MIN(id) AS first_id, AVG(ts) AS avg_ts
FROM src_event_point_log_p8001
GROUP BY HOP(rowtime, INTERVAL '2' MINUTE, INTERVAL '4' MINUTE);

-- SESSION(time, gap) per uuid: sessions merge as rows arrive (u-a's 08:01:00, read
-- last, bridges [08:00:05, 08:02:05) and [08:02:59.999, 08:05:00) into one session of
-- 4 rows; u-b's 08:08:00 extends 08:06:40's); SESSION_ROWTIME = end - 1 ms
EXPLAIN SELECT uuid, SESSION_START(rowtime, INTERVAL '2' MINUTE) AS ss,
  SESSION_END(rowtime, INTERVAL '2' MINUTE) AS se,
  SESSION_ROWTIME(rowtime, INTERVAL '2' MINUTE) AS st, COUNT(*) AS cnt, MAX(ip) AS last_ip
FROM src_event_point_log_p8001
GROUP BY uuid, SESSION(rowtime, INTERVAL '2' MINUTE);
SELECT uuid, SESSION_START(rowtime, INTERVAL '2' MINUTE) AS ss,
  SESSION_END(rowtime, INTERVAL '2' MINUTE) AS se,
  SESSION_ROWTIME(rowtime, INTERVAL '2' MINUTE) AS st, COUNT(*) AS cnt, MAX(ip) AS last_ip
FROM src_event_point_log_p8001
GROUP BY uuid, SESSION(rowtime, INTERVAL '2' MINUTE);

-- HAVING over an aggregate and an auxiliary function, an expression on one
SELECT TUMBLE_START(rowtime, INTERVAL '3' MINUTE) + INTERVAL '1' SECOND AS shifted,
  COUNT(*) AS cnt
FROM src_event_point_log_p8001
GROUP BY TUMBLE(rowtime, INTERVAL '3' MINUTE)
HAVING SUM(ts) > 300 AND MINUTE(TUMBLE_START(rowtime, INTERVAL '3' MINUTE)) < 6;

-- TUMBLE_ROWTIME stays a time attribute: a second, larger window over the first
EXPLAIN SELECT TUMBLE_END(zzzzz, INTERVAL '6' MINUTE) AS outer_end, COUNT(*) AS windows,
  SUM(cnt) AS rows_in
FROM (
  SELECT COUNT(*) AS cnt, TUMBLE_ROWTIME(rowtime, INTERVAL '3' MINUTE) AS zzzzz
  FROM src_event_point_log_p8001
  GROUP BY TUMBLE(rowtime, INTERVAL '3' MINUTE)
)
GROUP BY TUMBLE(zzzzz, INTERVAL '6' MINUTE);
SELECT TUMBLE_END(zzzzz, INTERVAL '6' MINUTE) AS outer_end, COUNT(*) AS windows,
  SUM(cnt) AS rows_in
FROM (
  SELECT COUNT(*) AS cnt, TUMBLE_ROWTIME(rowtime, INTERVAL '3' MINUTE) AS zzzzz
  FROM src_event_point_log_p8001
  GROUP BY TUMBLE(rowtime, INTERVAL '3' MINUTE)
)
GROUP BY TUMBLE(zzzzz, INTERVAL '6' MINUTE);

-- processing time: the windows of the clock (plans only: results depend on the clock)
CREATE TABLE clicks (uuid STRING, ip STRING, pt AS PROCTIME()) WITH (
  'connector' = 'filesystem', 'path' = 'tests/sql/data/group_window_events.json', 'format' = 'json');
EXPLAIN SELECT uuid, COUNT(*) AS cnt, SESSION_START(pt, INTERVAL '15' MINUTE) AS ss,
  SESSION_PROCTIME(pt, INTERVAL '15' MINUTE) AS sp
FROM clicks GROUP BY uuid, SESSION(pt, INTERVAL '15' MINUTE);
EXPLAIN SELECT COUNT(*) FROM clicks GROUP BY TUMBLE(pt, INTERVAL '35' DAY);
EXPLAIN SELECT COUNT(*) FROM clicks GROUP BY HOP(pt, INTERVAL '1' SECOND, INTERVAL '1' MINUTE);

-- errors
SELECT TUMBLE_END(rowtime, INTERVAL '3' MINUTE), COUNT(*) FROM src_event_point_log_p8001
GROUP BY TUMBLE(rowtime, INTERVAL '5' MINUTE);
SELECT TUMBLE_START(rowtime, INTERVAL '3' MINUTE) FROM src_event_point_log_p8001;
SELECT COUNT(*) FROM src_event_point_log_p8001 GROUP BY TUMBLE(ts, INTERVAL '3' MINUTE);
SELECT COUNT(*) FROM src_event_point_log_p8001
GROUP BY TUMBLE(rowtime, INTERVAL '3' MINUTE), HOP(rowtime, INTERVAL '1' MINUTE, INTERVAL '3' MINUTE);
SELECT TUMBLE_ROWTIME(pt, INTERVAL '1' MINUTE) FROM clicks GROUP BY TUMBLE(pt, INTERVAL '1' MINUTE);
SELECT COUNT(*) FROM src_event_point_log_p8001 GROUP BY TUMBLE(rowtime, 3);

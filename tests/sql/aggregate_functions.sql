-- aggregate_functions.sql - LISTAGG(expr [, separator]) with and without DISTINCT,
-- FIRST_VALUE and LAST_VALUE in GroupAggregate, WindowAggregate and legacy group windows
-- (engine/exec/aggregate/aggregate_function.c, one implementation for all three); the
-- separator is a constant field of the projection below, as Calcite plans it
-- (LISTAGG(ip, $f3)); NULL values are skipped; LISTAGG without a separator joins with ','.
-- Retraction of COUNT/SUM/AVG (with DISTINCT) and LISTAGG over an updating input
-- (retract_listagg.sql has FIRST_VALUE / LAST_VALUE too).
CREATE TABLE src (
  id BIGINT,
  uuid STRING,
  ip STRING,
  event_code INT,
  ts BIGINT,
  rowtime TIMESTAMP(3),
  WATERMARK FOR rowtime AS rowtime - INTERVAL '1' MINUTE
) WITH ('connector' = 'filesystem', 'path' = 'tests/sql/data/group_window_events.json', 'format' = 'json');

-- GroupAggregate: every change as the rows come (ids in file order)
EXPLAIN SELECT uuid, LISTAGG(ip) AS all_ips, LISTAGG(DISTINCT ip, '|') AS ips,
  FIRST_VALUE(id) AS first_id, LAST_VALUE(id) AS last_id
FROM src GROUP BY uuid;
SELECT uuid, LISTAGG(ip) AS all_ips, LISTAGG(DISTINCT ip, '|') AS ips,
  FIRST_VALUE(id) AS first_id, LAST_VALUE(id) AS last_id
FROM src GROUP BY uuid;

-- NULL values are skipped: uuid is NULL in id 7; a group of NULLs only gives NULL
SELECT event_code, LISTAGG(uuid, ' ') AS uuids, FIRST_VALUE(uuid) AS first_uuid,
  LAST_VALUE(uuid) AS last_uuid
FROM src WHERE id IN (4, 7, 8) GROUP BY event_code;

-- window TVF aggregation
EXPLAIN SELECT window_start, window_end, LISTAGG(uuid, '-') AS uuids, FIRST_VALUE(ts) AS first_ts,
  LAST_VALUE(ts) AS last_ts
FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(rowtime), INTERVAL '5' MINUTES))
GROUP BY window_start, window_end;
SELECT window_start, window_end, LISTAGG(uuid, '-') AS uuids, FIRST_VALUE(ts) AS first_ts,
  LAST_VALUE(ts) AS last_ts
FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(rowtime), INTERVAL '5' MINUTES))
GROUP BY window_start, window_end;

-- a legacy group window
SELECT uuid, LISTAGG(ip, ';') AS ips, FIRST_VALUE(ip) AS first_ip, LAST_VALUE(ip) AS last_ip,
  TUMBLE_END(rowtime, INTERVAL '3' MINUTE) AS window_end
FROM src GROUP BY uuid, TUMBLE(rowtime, INTERVAL '3' MINUTE);
-- with DISTINCT: each ip once per window (u-a's 10.0.0.1 twice in [08:03, 08:06), u-b's
-- 10.0.0.4 twice in [08:06, 08:09))
SELECT uuid, LISTAGG(DISTINCT ip, ',') FROM src GROUP BY uuid, TUMBLE(rowtime, INTERVAL '3' MINUTE);

-- retraction over an updating input: per-uuid counts regrouped; COUNT(DISTINCT),
-- SUM(DISTINCT) and AVG follow every -U/+U/-D; final: cnt 1 = x and NULL (totals 104
-- and 106, AVG 105), cnt 4 = u-b (424), cnt 6 = u-a (632)
SELECT cnt, COUNT(*) AS uuids, COUNT(DISTINCT total) AS totals, SUM(DISTINCT cnt) AS s,
  AVG(total) AS avg_total
FROM (SELECT uuid, COUNT(*) AS cnt, SUM(ts) AS total FROM src GROUP BY uuid)
GROUP BY cnt;

-- LISTAGG over that updating input (Flink's retracting form: every live value kept in
-- arrival order, a retraction removes the earliest equal one): the uuids of each count
-- as they move up; NULL (id 7) is skipped, so its +I to cnt 1 changes nothing
SELECT cnt, LISTAGG(uuid) FROM (SELECT uuid, COUNT(*) AS cnt FROM src GROUP BY uuid) GROUP BY cnt;

-- not supported yet / errors
SELECT uuid, LISTAGG(ip), SESSION_END(rowtime, INTERVAL '1' MINUTE)
FROM src GROUP BY uuid, SESSION(rowtime, INTERVAL '1' MINUTE);
SELECT LISTAGG(id) FROM src;
SELECT LISTAGG(ip, uuid) FROM src;
SELECT LISTAGG(ip, ',', ';') FROM src;

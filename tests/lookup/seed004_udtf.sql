-- seed article 004: the LATERAL TABLE over a C table function that replaces a multi-stream
-- join. query_ck_awscdn_cf_log_tudf is the sample function sample-data/udf/
-- query_ck_awscdn_cf_log_tudf.c (built by the Makefile), an async table function querying the
-- PostgreSQL table cdn_log (seed004_udtf.pg.sql) through libpq, its connection string the job
-- parameter cdn_log.conninfo; the events are data/seed004_events.json. The seed's three
-- statements verbatim, but for the ROW(...) of COLLECT, which the seed elides ("..."), written
-- out.
SET 'pipeline.global-job-parameters' = 'cdn_log.conninfo:host=127.0.0.1 port=@PGPORT@ dbname=joinery user=joinery password=@PASSWORD@';
CREATE TABLE src_event_point_log_p8001 (
  `id` BIGINT,
  `version` STRING,
  `uuid` STRING,
  `event_code` INT,
  `ua_browser` STRING,
  `ua_os` STRING,
  `ip` STRING,
  `ts` BIGINT,
  `rowtime` TIMESTAMP(3),
  WATERMARK FOR `rowtime` AS `rowtime` - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'tests/lookup/data/seed004_events.json', 'format' = 'json');
CREATE TEMPORARY FUNCTION query_ck_awscdn_cf_log_tudf AS 'query_ck_awscdn_cf_log_tudf' LANGUAGE C USING JAR 'build/udf/libjoinery_cdn_log_udf.so';

-- 1. 数据源过滤预处理视图
DROP TEMPORARY VIEW IF EXISTS preprocessed_event_data ;
CREATE TEMPORARY VIEW preprocessed_event_data AS
SELECT *
FROM src_event_point_log_p8001
WHERE event_code IN (21001, 11001, 21003)
  AND `uuid` IS NOT NULL
  AND CHAR_LENGTH(`uuid`) > 1 ;

-- 2. Tumbling 窗口合并数据（3分钟），采用 LISTAGG 压缩特征点
CREATE TEMPORARY VIEW windowed_event_data AS
SELECT
    uuid,
    LISTAGG(DISTINCT ip, ',') as historical_ips_str,
    MAX(ts) as latest_ts,
    COLLECT(
        ROW(`id`, `version`, `uuid`, `event_code`, `ua_browser`, `ua_os`, `rowtime`)
    ) as events,
    TUMBLE_END(rowtime, INTERVAL '3' MINUTE) as window_end
FROM preprocessed_event_data
GROUP BY
    uuid,
    TUMBLE(rowtime, INTERVAL '3' MINUTE);

-- 3. 使用 LATERAL TABLE 调用用户定义表函数（TUDF）
-- 查询第三方日志数据替代多流暴力硬 Join
DROP TEMPORARY VIEW IF EXISTS enriched_windowed_data ;
CREATE TEMPORARY VIEW enriched_windowed_data AS
SELECT
    w.uuid,
    w.historical_ips_str,
    w.window_end,
    w.events,
    COALESCE(b.aws_cdnlog_flag, 'CDN_NOT_FOUND') as aws_cdnlog_flag,
    COALESCE(b.cf_edge_log_flag, 'CF_NOT_FOUND') as cf_edge_log_flag
FROM windowed_event_data w
LEFT JOIN LATERAL TABLE(
    query_ck_awscdn_cf_log_tudf(w.historical_ips_str, '', DATE_FORMAT(window_end, 'yyyy-MM-dd HH:mm:ss'))
) AS b(aws_cdnlog_flag, cf_edge_log_flag) ON TRUE
WHERE b.aws_cdnlog_flag <> 'CDN_NORMAL_DATA'
  AND b.cf_edge_log_flag <> 'CDN_NORMAL_DATA' ;

-- every window with the function's flags (before the seed's WHERE)
SELECT w.uuid, w.historical_ips_str, w.window_end, CARDINALITY(w.events) AS n,
       COALESCE(b.aws_cdnlog_flag, 'CDN_NOT_FOUND') AS aws, COALESCE(b.cf_edge_log_flag, 'CF_NOT_FOUND') AS cf
FROM windowed_event_data w
LEFT JOIN LATERAL TABLE(query_ck_awscdn_cf_log_tudf(w.historical_ips_str, '', DATE_FORMAT(window_end, 'yyyy-MM-dd HH:mm:ss'))) AS b(aws_cdnlog_flag, cf_edge_log_flag) ON TRUE;

EXPLAIN SELECT uuid, historical_ips_str, window_end, aws_cdnlog_flag, cf_edge_log_flag FROM enriched_windowed_data;
SELECT uuid, historical_ips_str, window_end, CARDINALITY(events) AS n, aws_cdnlog_flag, cf_edge_log_flag FROM enriched_windowed_data;
-- a domain filter (the second argument)
SELECT w.uuid, b.aws, b.cf FROM windowed_event_data w, LATERAL TABLE(query_ck_awscdn_cf_log_tudf(w.historical_ips_str, 'cdn.example.com', DATE_FORMAT(window_end, 'yyyy-MM-dd HH:mm:ss'))) AS b(aws, cf);
-- the same windows through the blocking twin of the function (query_ck_awscdn_cf_log_tudf_sync):
-- the same rows in the same order
CREATE TEMPORARY FUNCTION cdn_log_sync AS 'query_ck_awscdn_cf_log_tudf_sync' LANGUAGE C USING JAR 'build/udf/libjoinery_cdn_log_udf.so';
SELECT w.uuid, w.historical_ips_str, w.window_end, COALESCE(b.aws, 'CDN_NOT_FOUND') AS aws, COALESCE(b.cf, 'CF_NOT_FOUND') AS cf
FROM windowed_event_data w
LEFT JOIN LATERAL TABLE(cdn_log_sync(w.historical_ips_str, '', DATE_FORMAT(window_end, 'yyyy-MM-dd HH:mm:ss'))) AS b(aws, cf) ON TRUE;
-- one call in flight at a time: the same rows
SET 'table.exec.async-table.max-concurrent-operations' = '1';
SELECT uuid, historical_ips_str, window_end, aws_cdnlog_flag, cf_edge_log_flag FROM enriched_windowed_data;
RESET 'table.exec.async-table.max-concurrent-operations';
-- the function's own errors: a window_end that does not parse
SELECT w.uuid, b.aws FROM windowed_event_data w, LATERAL TABLE(query_ck_awscdn_cf_log_tudf(w.historical_ips_str, '', 'yesterday')) AS b(aws, cf);
-- a store that refuses the password, and one nobody listens at: the error names the store,
-- never the password (async and sync)
SET 'pipeline.global-job-parameters' = 'cdn_log.conninfo:host=127.0.0.1 port=@PGPORT@ dbname=joinery user=joinery password=wrong-@PASSWORD@';
SELECT w.uuid, b.aws FROM windowed_event_data w, LATERAL TABLE(query_ck_awscdn_cf_log_tudf(w.historical_ips_str, '', DATE_FORMAT(window_end, 'yyyy-MM-dd HH:mm:ss'))) AS b(aws, cf);
SET 'pipeline.global-job-parameters' = 'cdn_log.conninfo:host=127.0.0.1 port=1 dbname=joinery user=joinery password=@PASSWORD@';
SELECT w.uuid, b.aws FROM windowed_event_data w, LATERAL TABLE(query_ck_awscdn_cf_log_tudf(w.historical_ips_str, '', DATE_FORMAT(window_end, 'yyyy-MM-dd HH:mm:ss'))) AS b(aws, cf);
SELECT w.uuid, b.aws FROM windowed_event_data w, LATERAL TABLE(cdn_log_sync(w.historical_ips_str, '', DATE_FORMAT(window_end, 'yyyy-MM-dd HH:mm:ss'))) AS b(aws, cf);
-- a malformed job parameter list is refused at SET
SET 'pipeline.global-job-parameters' = 'cdn_log.conninfo';

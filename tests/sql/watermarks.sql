-- watermarks.sql - watermark push-down and CURRENT_WATERMARK. A kafka or
-- upsert-kafka scan generates the watermark itself, one per partition (Flink's
-- SupportsWatermarkPushDown): the WatermarkAssigner of the AST disappears and
-- the scan shows watermark=[...], idletimeout=[ms] when
-- table.exec.source.idle-timeout is set, and watermarkEmitStrategy=[on-periodic].
-- A rowtime computed column is inlined into the pushed expression. Filesystem
-- and datagen keep the WatermarkAssigner. (EXPLAIN needs no broker.)
CREATE TABLE orders (
  order_id BIGINT,
  user_id BIGINT,
  amount DECIMAL(10, 2),
  order_time TIMESTAMP(3),
  WATERMARK FOR order_time AS order_time - INTERVAL '5' SECOND
) WITH (
  'connector' = 'kafka',
  'topic' = 'orders',
  'properties.bootstrap.servers' = '127.0.0.1:9',
  'scan.startup.mode' = 'earliest-offset',
  'format' = 'json'
);
EXPLAIN SELECT order_id, order_time FROM orders WHERE amount > 10;

SET 'table.exec.source.idle-timeout' = '1 min';
EXPLAIN SELECT * FROM orders;
RESET 'table.exec.source.idle-timeout';

-- the rowtime is computed from a text field
CREATE TABLE clicks (
  user_id BIGINT,
  ts_text STRING,
  ts AS CAST(ts_text AS TIMESTAMP(3)),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH (
  'connector' = 'kafka',
  'topic' = 'clicks',
  'properties.bootstrap.servers' = '127.0.0.1:9',
  'scan.startup.mode' = 'earliest-offset',
  'format' = 'json'
);
EXPLAIN SELECT user_id, ts FROM clicks;

-- upsert-kafka: the scan carries the watermark; a join keyed by its key takes it directly
-- (no ChangelogNormalize, Flink's MultiJoinTest plans) when its consumer takes upserts (a
-- SELECT); into a sink without a primary key the ChangelogNormalize stays, over the scan
CREATE TABLE users (
  user_id BIGINT,
  user_name STRING,
  updated TIMESTAMP(3),
  WATERMARK FOR updated AS updated,
  PRIMARY KEY (user_id) NOT ENFORCED
) WITH (
  'connector' = 'upsert-kafka',
  'topic' = 'users',
  'properties.bootstrap.servers' = '127.0.0.1:9',
  'key.format' = 'json',
  'value.format' = 'json'
);
EXPLAIN SELECT o.order_id, u.user_name FROM orders AS o JOIN users AS u ON o.user_id = u.user_id;
CREATE TABLE named_orders (order_id BIGINT, user_name STRING) WITH ('connector' = 'blackhole');
EXPLAIN INSERT INTO named_orders
SELECT o.order_id, u.user_name FROM orders AS o JOIN users AS u ON o.user_id = u.user_id;

-- filesystem does not generate watermarks: the WatermarkAssigner stays
CREATE TABLE file_orders (
  order_id BIGINT,
  order_time TIMESTAMP(3),
  WATERMARK FOR order_time AS order_time - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'sample-data/orders.json', 'format' = 'json');
SET 'table.exec.source.idle-timeout' = '1 min';
EXPLAIN SELECT order_id FROM file_orders;

-- CURRENT_WATERMARK(rowtime): the watermark the Calc has received, NULL before
-- the first; the argument must be a rowtime attribute; it stays where it is
-- written (never pushed into a scan or a join). A file is read in one batch
-- here, so every row sees NULL (the watermark follows the batch).
EXPLAIN SELECT order_id, CURRENT_WATERMARK(order_time) AS wm FROM orders
WHERE order_time > CURRENT_WATERMARK(order_time) OR CURRENT_WATERMARK(order_time) IS NULL;
SELECT order_id, CURRENT_WATERMARK(order_time) AS wm FROM file_orders WHERE order_id <= 3;
SELECT CURRENT_WATERMARK(order_id) FROM file_orders;
SELECT o.order_id FROM orders AS o JOIN users AS u
  ON o.user_id = u.user_id AND CURRENT_WATERMARK(o.order_time) IS NOT NULL;

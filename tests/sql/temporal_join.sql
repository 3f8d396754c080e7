-- temporal_join.sql - event-time temporal joins (FOR SYSTEM_TIME AS OF a rowtime):
-- seed 003's example verbatim over a debezium-json file, Flink's TemporalJoinITCase
-- data, the plans Flink prints (LogicalCorrelate / LogicalSnapshot in the AST,
-- TemporalJoin over hash exchanges, DropUpdateBefore above a changelog source, no
-- ChangelogNormalize for upsert-kafka), INNER and LEFT results, and Flink's
-- rejections. Each probe row is emitted once the watermark passes its time, with the
-- version of its key valid at that time.

-- Seed 003 ("Temporal Join"): orders joined with the price valid when they were placed.
CREATE TABLE orders (
  order_id STRING,
  product_id STRING,
  order_time TIMESTAMP(3),
  WATERMARK FOR order_time AS order_time - INTERVAL '5' MINUTE
) WITH ('connector' = 'filesystem', 'path' = 'tests/sql/data/seed003_orders.json', 'format' = 'json');
-- the price history as a CDC changelog: p1 10.00 -> 12.50 at 10:10, p2 20.00 -> 18.00
-- at 10:40 and deleted at 10:50, p3 from 10:40 on
CREATE TABLE product_price (
  product_id STRING,
  price DECIMAL(10, 2),
  update_time TIMESTAMP(3),
  WATERMARK FOR update_time AS update_time,
  PRIMARY KEY (product_id) NOT ENFORCED
) WITH ('connector' = 'filesystem', 'path' = 'tests/sql/data/seed003_product_price.debezium.json', 'format' = 'debezium-json');

EXPLAIN SELECT
    o.order_id,
    o.product_id,
    o.order_time,
    p.price
FROM orders o
JOIN product_price p
FOR SYSTEM_TIME AS OF o.order_time
ON o.product_id = p.product_id;

-- o1 10.00 (10:00), o2 20.00, o3 and o4 12.50 (after 10:10), o6 18.00 (10:45); o5 (p3
-- only from 10:40), o7 (before any price) and o8 (p2 deleted at 10:50) find none
SELECT
    o.order_id,
    o.product_id,
    o.order_time,
    p.price
FROM orders o
JOIN product_price p
FOR SYSTEM_TIME AS OF o.order_time
ON o.product_id = p.product_id;

-- LEFT pads the orders without a valid price
SELECT o.order_id, o.order_time, p.price, p.update_time
FROM orders AS o LEFT JOIN product_price FOR SYSTEM_TIME AS OF o.order_time AS p
ON o.product_id = p.product_id;

-- Flink's TemporalJoinITCase data (the debezium "before" rows carry the old time: the
-- -U rows are dropped above the scan, the delete of RMB at 00:00:04 ends its only
-- version, so order 3 finds none, as Flink's testEventTimeTemporalJoinChangelogUsingBeforeTime)
CREATE TABLE itcase_orders (
  order_id BIGINT,
  currency STRING,
  amount BIGINT,
  order_time TIMESTAMP(3),
  WATERMARK FOR order_time AS order_time
) WITH ('connector' = 'filesystem', 'path' = 'tests/sql/data/temporal_orders.json', 'format' = 'json');
CREATE TABLE currency_rates (
  currency STRING,
  rate BIGINT,
  currency_time TIMESTAMP(3),
  WATERMARK FOR currency_time AS currency_time - INTERVAL '10' SECOND,
  PRIMARY KEY (currency) NOT ENFORCED
) WITH ('connector' = 'filesystem', 'path' = 'tests/sql/data/temporal_rates.debezium.json', 'format' = 'debezium-json');
SELECT o.order_id, o.currency, o.amount, o.order_time, r.rate, r.currency_time
FROM itcase_orders AS o LEFT JOIN currency_rates FOR SYSTEM_TIME AS OF o.order_time AS r
ON o.currency = r.currency;

-- conditions: left-only ones of an INNER join go below the left, versioned-side-only
-- ones below the right (then the -U rows are kept: a filter needs them), the rest
-- stays in the join; LEFT keeps its left-only conditions in the join
EXPLAIN -- with the filter below, the -U rows reach the join: this file's -U of Euro carries the
-- old time 00:00:01 and replaces that version (Flink's operator keeps one row per time),
-- so order 1 finds a retraction; orders 3 and 5 have no RMB version, order 4 fails
-- 14 * 9 < 118: no row
SELECT o.order_id, r.rate FROM itcase_orders AS o JOIN currency_rates FOR SYSTEM_TIME AS OF o.order_time AS r
ON o.currency = r.currency AND o.amount > 10 AND r.rate < 200 AND o.amount * 9 < r.rate;
-- without it (-U dropped above the scan) order 1 joins 114
SELECT o.order_id, r.rate FROM itcase_orders AS o JOIN currency_rates FOR SYSTEM_TIME AS OF o.order_time AS r
ON o.currency = r.currency AND o.amount > 10 AND o.amount * 9 < r.rate;
EXPLAIN SELECT o.order_id, r.rate FROM itcase_orders AS o LEFT JOIN currency_rates FOR SYSTEM_TIME AS OF o.order_time AS r
ON o.currency = r.currency AND o.amount > 10;
-- with the filter below, the -U rows reach the join: this file's -U of Euro carries the
-- old time 00:00:01 and replaces that version (Flink's operator keeps one row per time),
-- so order 1 finds a retraction; orders 3 and 5 have no RMB version, order 4 fails
-- 14 * 9 < 118: no row
SELECT o.order_id, r.rate FROM itcase_orders AS o JOIN currency_rates FOR SYSTEM_TIME AS OF o.order_time AS r
ON o.currency = r.currency AND o.amount > 10 AND r.rate < 200 AND o.amount * 9 < r.rate;
-- without it (-U dropped above the scan) order 1 joins 114
SELECT o.order_id, r.rate FROM itcase_orders AS o JOIN currency_rates FOR SYSTEM_TIME AS OF o.order_time AS r
ON o.currency = r.currency AND o.amount > 10 AND o.amount * 9 < r.rate;

-- upsert-kafka as the versioned side: no ChangelogNormalize (EXPLAIN needs no broker)
CREATE TABLE rates_upsert (
  currency STRING,
  rate BIGINT,
  currency_time TIMESTAMP(3),
  WATERMARK FOR currency_time AS currency_time,
  PRIMARY KEY (currency) NOT ENFORCED
) WITH (
  'connector' = 'upsert-kafka',
  'topic' = 'rates',
  'properties.bootstrap.servers' = '127.0.0.1:9',
  'key.format' = 'json',
  'value.format' = 'json'
);
EXPLAIN SELECT o.order_id, r.rate FROM itcase_orders AS o JOIN rates_upsert FOR SYSTEM_TIME AS OF o.order_time AS r
ON o.currency = r.currency;
-- a filter on an upsert versioned side would lose versions: Flink's reason
EXPLAIN SELECT o.order_id, r.rate FROM itcase_orders AS o JOIN rates_upsert FOR SYSTEM_TIME AS OF o.order_time AS r
ON o.currency = r.currency AND r.rate > 100;

-- with multi-join fusion on, the regular join above stays a Join and the temporal join
-- is never fused
SET 'table.optimizer.multi-join.enabled' = 'true';
EXPLAIN SELECT o.order_id, r.rate, c.rate AS other_rate
FROM itcase_orders AS o
JOIN currency_rates FOR SYSTEM_TIME AS OF o.order_time AS r ON o.currency = r.currency
JOIN currency_rates AS c ON o.currency = c.currency;
RESET 'table.optimizer.multi-join.enabled';

-- a view keeps the versioned table's primary key and rowtime (Flink's
-- testEventTimeTemporalJoinWithFilter, its "meta time" data: an update's -U and +U carry
-- the time of the change): the filter sits below the join and keeps the -U rows, so
-- Euro's 114 ends at 2020-08-16 00:01 (118 is filtered out) and order 4 finds none
CREATE TABLE currency_rates_meta (
  currency STRING,
  rate BIGINT,
  currency_time TIMESTAMP(3),
  WATERMARK FOR currency_time AS currency_time - INTERVAL '10' SECOND,
  PRIMARY KEY (currency) NOT ENFORCED
) WITH ('connector' = 'filesystem', 'path' = 'tests/sql/data/temporal_rates_meta.debezium.json', 'format' = 'debezium-json');
CREATE VIEW cheap_rates AS SELECT * FROM currency_rates_meta WHERE rate < 115;
EXPLAIN SELECT o.order_id, o.currency, o.amount, o.order_time, r.rate, r.currency_time
FROM itcase_orders AS o JOIN cheap_rates FOR SYSTEM_TIME AS OF o.order_time AS r
ON o.currency = r.currency;
SELECT o.order_id, o.currency, o.amount, o.order_time, r.rate, r.currency_time
FROM itcase_orders AS o JOIN cheap_rates FOR SYSTEM_TIME AS OF o.order_time AS r
ON o.currency = r.currency;

-- Flink's versioned views: an append-only history deduplicated on its key by rowtime
-- (TemporalJoinITCase's currency_history, currency_deduplicated_last_row / _first_row)
-- becomes Deduplicate (a Rank in the physical plan section) with no -U rows
CREATE TABLE currency_history (
  currency STRING,
  currency_no STRING,
  rate BIGINT,
  currency_time TIMESTAMP(3),
  WATERMARK FOR currency_time AS currency_time
) WITH ('connector' = 'filesystem', 'path' = 'tests/sql/data/currency_history.json', 'format' = 'json');
CREATE VIEW currency_deduplicated_last_row AS
SELECT currency, currency_no, rate, currency_time FROM
  (SELECT *, ROW_NUMBER() OVER (PARTITION BY currency ORDER BY currency_time DESC) AS rowNum FROM currency_history) T
WHERE rowNum = 1;
CREATE VIEW currency_deduplicated_first_row AS
SELECT currency, currency_no, rate, currency_time FROM
  (SELECT *, ROW_NUMBER() OVER (PARTITION BY currency ORDER BY currency_time) AS rowNum FROM currency_history) T
WHERE rowNum = 1;
EXPLAIN SELECT o.order_id, o.currency, o.amount, o.order_time, r.rate, r.currency_time
FROM itcase_orders AS o JOIN currency_deduplicated_last_row FOR SYSTEM_TIME AS OF o.order_time AS r
ON o.currency = r.currency;
-- last row: Euro 118 from 2020-08-16 00:01, US Dollar's versions at 00:00:02 and 00:02
SELECT o.order_id, o.currency, o.amount, o.order_time, r.rate, r.currency_time
FROM itcase_orders AS o JOIN currency_deduplicated_last_row FOR SYSTEM_TIME AS OF o.order_time AS r
ON o.currency = r.currency;
-- first row: each currency's first rate stays (order 4 joins Euro's 114)
SELECT o.order_id, o.currency, o.amount, o.order_time, r.rate, r.currency_time
FROM itcase_orders AS o LEFT JOIN currency_deduplicated_first_row FOR SYSTEM_TIME AS OF o.order_time AS r
ON o.currency = r.currency;
-- a LEFT join keeps a left-only condition in the join: the other orders are padded, and a
-- versioned-side condition goes below the join, above the Deduplicate (which then sends -U)
EXPLAIN SELECT o.order_id, o.currency, r.rate FROM itcase_orders AS o
LEFT JOIN currency_deduplicated_last_row FOR SYSTEM_TIME AS OF o.order_time AS r
ON o.currency = r.currency AND SUBSTR(o.currency, 1, 2) = 'US' AND r.rate < 200;
-- (Flink's testEventTimeLeftTemporalJoinWithView: only US Dollar joins)
SELECT o.order_id, o.currency, r.rate FROM itcase_orders AS o
LEFT JOIN currency_deduplicated_last_row FOR SYSTEM_TIME AS OF o.order_time AS r
ON o.currency = r.currency AND SUBSTR(o.currency, 1, 2) = 'US';
-- the deduplication alone: its changelog (the last row per currency as it changes)
SELECT * FROM currency_deduplicated_last_row;
-- Top-N and non-time orders are not deduplication: a Rank (rank.sql has its plans)
SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY currency ORDER BY currency_time DESC) AS rn FROM currency_history) WHERE rn <= 2;
SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY currency ORDER BY rate DESC) AS rn FROM currency_history) WHERE rn = 1;
SELECT currency, SUM(rate) OVER (PARTITION BY currency ORDER BY currency_time) FROM currency_history;

-- Flink's rejections
CREATE TABLE rates_no_pk (currency STRING, rate BIGINT, currency_time TIMESTAMP(3),
  WATERMARK FOR currency_time AS currency_time)
WITH ('connector' = 'filesystem', 'path' = 'tests/sql/data/temporal_orders.json', 'format' = 'json');
CREATE TABLE rates_no_rowtime (currency STRING, rate BIGINT, currency_time TIMESTAMP(3),
  PRIMARY KEY (currency) NOT ENFORCED)
WITH ('connector' = 'filesystem', 'path' = 'tests/sql/data/temporal_rates.debezium.json', 'format' = 'debezium-json');
CREATE TABLE orders_proctime (order_id BIGINT, currency STRING, proc_time AS PROCTIME())
WITH ('connector' = 'filesystem', 'path' = 'tests/sql/data/temporal_orders.json', 'format' = 'json');
SELECT * FROM itcase_orders AS o JOIN rates_no_pk FOR SYSTEM_TIME AS OF o.order_time AS r ON o.currency = r.currency;
SELECT * FROM itcase_orders AS o JOIN rates_no_rowtime FOR SYSTEM_TIME AS OF o.order_time AS r ON o.currency = r.currency;
SELECT * FROM orders_proctime AS o JOIN currency_rates FOR SYSTEM_TIME AS OF o.proc_time AS r ON o.currency = r.currency;
SELECT * FROM itcase_orders AS o JOIN currency_rates FOR SYSTEM_TIME AS OF o.amount AS r ON o.currency = r.currency;
SELECT * FROM itcase_orders AS o JOIN currency_rates FOR SYSTEM_TIME AS OF o.order_time AS r ON o.amount = r.rate;
SELECT * FROM itcase_orders AS o RIGHT JOIN currency_rates FOR SYSTEM_TIME AS OF o.order_time AS r ON o.currency = r.currency;
SELECT * FROM itcase_orders AS o FULL JOIN currency_rates FOR SYSTEM_TIME AS OF o.order_time AS r ON o.currency = r.currency;
CREATE VIEW rates_without_key AS SELECT rate, currency_time FROM currency_rates;
SELECT * FROM itcase_orders AS o JOIN rates_without_key FOR SYSTEM_TIME AS OF o.order_time AS r ON o.amount = r.rate;
-- deduplicating a changelog is not supported yet
CREATE VIEW rates_last_row AS SELECT currency, rate, currency_time FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY currency ORDER BY currency_time DESC) AS rn FROM currency_rates) WHERE rn = 1;
SELECT * FROM itcase_orders AS o JOIN rates_last_row FOR SYSTEM_TIME AS OF o.order_time AS r ON o.currency = r.currency;
SELECT * FROM currency_rates FOR SYSTEM_TIME AS OF TIMESTAMP '2020-08-15 00:00:00';
SET 'table.exec.state.ttl' = '1 h';
SELECT * FROM itcase_orders AS o JOIN currency_rates FOR SYSTEM_TIME AS OF o.order_time AS r ON o.currency = r.currency;
RESET 'table.exec.state.ttl';

-- PLAN_ADVICE: a kafka versioned side (unbounded) without an idle timeout holds rows back
EXPLAIN PLAN_ADVICE SELECT o.order_id, r.rate FROM itcase_orders AS o JOIN rates_upsert FOR SYSTEM_TIME AS OF o.order_time AS r
ON o.currency = r.currency;
SET 'table.exec.source.idle-timeout' = '1 min';
EXPLAIN PLAN_ADVICE SELECT o.order_id, r.rate FROM itcase_orders AS o JOIN rates_upsert FOR SYSTEM_TIME AS OF o.order_time AS r
ON o.currency = r.currency;

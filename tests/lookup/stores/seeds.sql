-- Seed 001's and seed 003's lookup joins against MariaDB (the jdbc connector's
-- MySQL dialect) and Redis (tests/lookup/run.sh section 5 replaces @MYSQL_URL@,
-- @REDIS_PORT@ and @PASSWORD@; the rows: mysql.sql and redis.txt, the same as
-- ../seeds.pg.sql's). The latency figures of SHOW JOB METRICS are masked.
CREATE TABLE orders (order_id INT, user_id BIGINT, product_id INT, amount DECIMAL(10, 2),
  proctime AS PROCTIME(), proc_time AS PROCTIME())
WITH ('connector' = 'filesystem', 'path' = 'tests/lookup/data/orders.csv', 'format' = 'csv');
CREATE TABLE hits (order_id INT, name STRING) WITH ('connector' = 'blackhole');

-- 1. MariaDB
CREATE TABLE products (id INT, product_name STRING, price DECIMAL(10, 2), PRIMARY KEY (id) NOT ENFORCED)
WITH ('connector' = 'jdbc', 'url' = '@MYSQL_URL@', 'table-name' = 'products', 'username' = 'joinery', 'password' = '@PASSWORD@');
CREATE TABLE dim_user (user_id BIGINT, user_name STRING, user_level INT, PRIMARY KEY (user_id) NOT ENFORCED)
WITH ('connector' = 'jdbc', 'url' = '@MYSQL_URL@', 'table-name' = 'dim_user', 'username' = 'joinery', 'password' = '@PASSWORD@',
  'lookup.cache' = 'PARTIAL', 'lookup.partial-cache.max-rows' = '100');
CREATE TABLE items (product_id INT, region STRING, label STRING)
WITH ('connector' = 'jdbc', 'url' = '@MYSQL_URL@', 'table-name' = 'items', 'username' = 'joinery', 'password' = '@PASSWORD@');
-- seed 001, verbatim: async INNER lookups (order 3's product 99 and order 7's NULL missing)
SELECT /*+ LOOKUP('table' = 'products', 'async' = 'true') */
  o.order_id, o.amount, p.product_name
FROM orders o
JOIN products FOR SYSTEM_TIME AS OF o.proctime AS p
  ON o.product_id = p.id;
-- the same, sync
SELECT o.order_id, o.amount, p.product_name
FROM orders o
JOIN products FOR SYSTEM_TIME AS OF o.proctime AS p
  ON o.product_id = p.id;
-- seed 003, verbatim: sync LEFT JOIN through a PARTIAL cache (user 103 missing, order 6's NULL)
SELECT
    o.order_id,
    o.user_id,
    d.user_name,
    d.user_level
FROM orders o
LEFT JOIN dim_user FOR SYSTEM_TIME AS OF o.proc_time AS d
ON o.user_id = d.user_id;
-- the same, async
SELECT /*+ LOOKUP('table' = 'd', 'async' = 'true') */ o.order_id, o.user_id, d.user_name, d.user_level
FROM orders o LEFT JOIN dim_user FOR SYSTEM_TIME AS OF o.proc_time AS d ON o.user_id = d.user_id;
-- several rows per key, a constant key; a computed key and a residual, async LEFT
SELECT o.order_id, i.label FROM orders o JOIN items FOR SYSTEM_TIME AS OF o.proctime AS i
  ON o.product_id = i.product_id AND i.region = 'EU';
SELECT /*+ LOOKUP('table' = 'i', 'async' = 'true') */ o.order_id, i.label
FROM orders o LEFT JOIN items FOR SYSTEM_TIME AS OF o.proctime AS i
  ON o.product_id - 2 = i.product_id AND o.amount > 5;
-- PARTIAL cache: 8 probes; the NULL key never asked, 101 / 102 / 103 / 104 once each
-- (103's miss cached too: cache-missing-key defaults to true), 3 hits
INSERT INTO hits SELECT o.order_id, d.user_name
FROM orders o LEFT JOIN dim_user FOR SYSTEM_TIME AS OF o.proc_time AS d ON o.user_id = d.user_id;
SHOW JOB METRICS;

-- 2. Redis: products and dim_user as hashes (HMGET of the columns), names as strings (GET)
DROP TABLE products;
DROP TABLE dim_user;
CREATE TABLE products (id INT, product_name STRING, price DECIMAL(10, 2), PRIMARY KEY (id) NOT ENFORCED)
WITH ('connector' = 'redis', 'host' = '127.0.0.1', 'port' = '@REDIS_PORT@', 'password' = '@PASSWORD@', 'command' = 'hmget');
CREATE TABLE dim_user (user_id BIGINT, user_name STRING, user_level INT, PRIMARY KEY (user_id) NOT ENFORCED)
WITH ('connector' = 'redis', 'host' = '127.0.0.1', 'port' = '@REDIS_PORT@', 'password' = '@PASSWORD@', 'command' = 'hmget',
  'lookup.cache' = 'PARTIAL', 'lookup.partial-cache.max-rows' = '100', 'lookup.partial-cache.cache-missing-key' = 'true');
CREATE TABLE names (id INT, name STRING)
WITH ('connector' = 'redis', 'host' = '127.0.0.1', 'port' = '@REDIS_PORT@', 'password' = '@PASSWORD@', 'command' = 'get', 'database' = '1');
-- seed 001, verbatim: async INNER lookups
SELECT /*+ LOOKUP('table' = 'products', 'async' = 'true') */
  o.order_id, o.amount, p.product_name
FROM orders o
JOIN products FOR SYSTEM_TIME AS OF o.proctime AS p
  ON o.product_id = p.id;
-- the same, sync, with the price
SELECT o.order_id, o.amount, p.product_name, p.price
FROM orders o
JOIN products FOR SYSTEM_TIME AS OF o.proctime AS p
  ON o.product_id = p.id;
-- seed 003, verbatim: sync LEFT JOIN (user 104's level: a missing hash field, NULL)
SELECT
    o.order_id,
    o.user_id,
    d.user_name,
    d.user_level
FROM orders o
LEFT JOIN dim_user FOR SYSTEM_TIME AS OF o.proc_time AS d
ON o.user_id = d.user_id;
-- the same, async
SELECT /*+ LOOKUP('table' = 'd', 'async' = 'true') */ o.order_id, o.user_id, d.user_name, d.user_level
FROM orders o LEFT JOIN dim_user FOR SYSTEM_TIME AS OF o.proc_time AS d ON o.user_id = d.user_id;
-- a string value (GET) in database 1, async LEFT
SELECT /*+ LOOKUP('table' = 'n', 'async' = 'true') */ o.order_id, n.name
FROM orders o LEFT JOIN names FOR SYSTEM_TIME AS OF o.proctime AS n ON o.product_id = n.id;
-- PARTIAL cache with cache-missing-key set: the same 4 requests and 3 hits
INSERT INTO hits SELECT o.order_id, d.user_name
FROM orders o LEFT JOIN dim_user FOR SYSTEM_TIME AS OF o.proc_time AS d ON o.user_id = d.user_id;
SHOW JOB METRICS;
-- a redis table can only be looked up: a plain scan is refused at planning, EXPLAIN too;
-- the lookup join over it plans
SELECT * FROM names;
EXPLAIN SELECT * FROM names;
EXPLAIN SELECT n.name FROM orders o JOIN names FOR SYSTEM_TIME AS OF o.proctime AS n ON o.product_id = n.id;

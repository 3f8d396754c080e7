-- Seed 001's and seed 003's lookup joins against PostgreSQL (tests/lookup/run.sh
-- replaces @URL@ and @PASSWORD@; tables created by seeds.pg.sql).
CREATE TABLE orders (order_id INT, user_id BIGINT, product_id INT, amount DECIMAL(10, 2),
  proctime AS PROCTIME(), proc_time AS PROCTIME())
WITH ('connector' = 'filesystem', 'path' = 'tests/lookup/data/orders.csv', 'format' = 'csv');
CREATE TABLE products (id INT, product_name STRING, price DECIMAL(10, 2), PRIMARY KEY (id) NOT ENFORCED)
WITH ('connector' = 'jdbc', 'url' = '@URL@', 'table-name' = 'products', 'username' = 'joinery', 'password' = '@PASSWORD@');
CREATE TABLE dim_user (user_id BIGINT, user_name STRING, user_level INT, PRIMARY KEY (user_id) NOT ENFORCED)
WITH ('connector' = 'jdbc', 'url' = '@URL@', 'table-name' = 'dim_user', 'username' = 'joinery', 'password' = '@PASSWORD@');
CREATE TABLE items (product_id INT, region STRING, label STRING)
WITH ('connector' = 'jdbc', 'url' = '@URL@', 'table-name' = 'items', 'username' = 'joinery', 'password' = '@PASSWORD@',
  'lookup.cache' = 'PARTIAL', 'lookup.partial-cache.max-rows' = '100');

-- seed 001, verbatim: async lookups
SELECT /*+ LOOKUP('table' = 'products', 'async' = 'true') */
  o.order_id, o.amount, p.product_name
FROM orders o
JOIN products FOR SYSTEM_TIME AS OF o.proctime AS p
  ON o.product_id = p.id;
-- seed 001's capacity and timeout hint (the article elides the rest of the query: seed 001's own)
SELECT /*+ LOOKUP('table' = 'products', 'async' = 'true', 'capacity' = '200', 'timeout' = '30s') */
  o.order_id, o.amount, p.product_name
FROM orders o
JOIN products FOR SYSTEM_TIME AS OF o.proctime AS p
  ON o.product_id = p.id;
-- seed 001, verbatim: the cache inside the hint
SELECT /*+ LOOKUP('table' = 'products', 'async' = 'true', 'cache' = 'LRU', 'cache-size' = '10000', 'cache-ttl' = '60s') */
  o.order_id, o.amount, p.product_name
FROM orders o
JOIN products FOR SYSTEM_TIME AS OF o.proctime AS p
  ON o.product_id = p.id;
-- seed 001's shuffle hint (the rest of the query as above), at parallelism 2: the
-- Exchange on the lookup key (its results: the differential test of run.sh)
SET 'parallelism.default' = '2';
EXPLAIN SELECT /*+ LOOKUP('table' = 'products', 'async' = 'true', 'cache' = 'LRU', 'shuffle' = 'true') */
  o.order_id, o.amount, p.product_name
FROM orders o
JOIN products FOR SYSTEM_TIME AS OF o.proctime AS p
  ON o.product_id = p.id;
RESET 'parallelism.default';
-- seed 003, verbatim: LEFT JOIN (a NULL key and a missing key padded)
SELECT
    o.order_id,
    o.user_id,
    d.user_name,
    d.user_level
FROM orders o
LEFT JOIN dim_user FOR SYSTEM_TIME AS OF o.proc_time AS d
ON o.user_id = d.user_id;
-- several rows per key, a constant key, a computed key, a residual; sync and async unordered
-- (capacity 10: one connection, whose completions come in order, so the output order is fixed)
SELECT o.order_id, i.label FROM orders o JOIN items FOR SYSTEM_TIME AS OF o.proctime AS i
  ON o.product_id = i.product_id AND i.region = 'EU';
SELECT /*+ LOOKUP('table' = 'i', 'async' = 'true', 'output-mode' = 'allow_unordered', 'capacity' = '10') */ o.order_id, i.label
FROM orders o LEFT JOIN items FOR SYSTEM_TIME AS OF o.proctime AS i
  ON o.product_id - 2 = i.product_id AND o.amount > 5;
-- a FULL cache of a jdbc table (joinery extension): loaded once through its scan
SELECT /*+ LOOKUP('table' = 'd', 'cache' = 'FULL') */ o.order_id, d.user_name
FROM orders o JOIN dim_user FOR SYSTEM_TIME AS OF o.proc_time AS d ON o.user_id = d.user_id;
-- an updating input: its changes looked up, row kinds kept
SELECT t.user_id, t.n, d.user_name FROM (SELECT user_id, COUNT(*) AS n, PROCTIME() AS pt FROM orders GROUP BY user_id) t
  JOIN dim_user FOR SYSTEM_TIME AS OF t.pt AS d ON t.user_id = d.user_id;
-- errors at job start name the table, the store and the column
CREATE TABLE missing (id INT, name STRING)
WITH ('connector' = 'jdbc', 'url' = '@URL@', 'table-name' = 'no_such_table', 'username' = 'joinery', 'password' = '@PASSWORD@');
SELECT o.order_id, m.name FROM orders o JOIN missing FOR SYSTEM_TIME AS OF o.proctime AS m ON o.product_id = m.id;
CREATE TABLE wrong_type (id INT, product_name INT)
WITH ('connector' = 'jdbc', 'url' = '@URL@', 'table-name' = 'products', 'username' = 'joinery', 'password' = '@PASSWORD@');
SELECT o.order_id, w.product_name FROM orders o JOIN wrong_type FOR SYSTEM_TIME AS OF o.proctime AS w ON o.product_id = w.id;

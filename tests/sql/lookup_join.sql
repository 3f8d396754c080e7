-- Lookup joins (Flink's LookupJoin): FOR SYSTEM_TIME AS OF a processing time
-- against a table that can be looked up. A filesystem table is loaded whole
-- (a FULL cache, as Flink's filesystem lookup); jdbc tables are planned here
-- (EXPLAIN connects to nothing) and run in tests/lookup against PostgreSQL.
CREATE TABLE orders (id INT, amount INT, region STRING, proc_time AS PROCTIME())
WITH ('connector' = 'filesystem', 'path' = 'tests/sql/data/lookup_orders.csv', 'format' = 'csv');
CREATE TABLE dim (k INT, name STRING, region STRING, weight INT)
WITH ('connector' = 'filesystem', 'path' = 'tests/sql/data/lookup_dim.csv', 'format' = 'csv');
CREATE TABLE AsyncLookupTable (id INT, name STRING, age INT, PRIMARY KEY (id) NOT ENFORCED)
WITH ('connector' = 'jdbc', 'url' = 'jdbc:postgresql://127.0.0.1:1/none', 'table-name' = 'users');

-- INNER: a key with two rows gives two, a NULL key and a missing key none
EXPLAIN SELECT o.id, o.amount, d.name FROM orders o JOIN dim FOR SYSTEM_TIME AS OF o.proc_time AS d ON o.id = d.k;
SELECT o.id, o.amount, d.name FROM orders o JOIN dim FOR SYSTEM_TIME AS OF o.proc_time AS d ON o.id = d.k;
-- LEFT, with the alias written without AS, and a constant key (also a where, as Flink)
EXPLAIN SELECT o.id, d.name, d.region FROM orders o LEFT JOIN dim FOR SYSTEM_TIME AS OF o.proc_time d ON o.id = d.k AND d.region = 'EU';
SELECT o.id, d.name, d.region FROM orders o LEFT JOIN dim FOR SYSTEM_TIME AS OF o.proc_time d ON o.id = d.k AND d.region = 'EU';
-- two field keys, a computed key (a Calc below adds $f, a Calc above drops it), a residual
EXPLAIN SELECT o.id, d.name FROM orders o JOIN dim FOR SYSTEM_TIME AS OF o.proc_time AS d ON o.id = d.k AND o.region = d.region;
SELECT o.id, d.name FROM orders o JOIN dim FOR SYSTEM_TIME AS OF o.proc_time AS d ON o.id = d.k AND o.region = d.region;
EXPLAIN SELECT o.id, d.k, d.name FROM orders o LEFT JOIN dim FOR SYSTEM_TIME AS OF o.proc_time AS d ON o.id + 1 = d.k AND o.amount > d.weight * 5;
SELECT o.id, d.k, d.name FROM orders o LEFT JOIN dim FOR SYSTEM_TIME AS OF o.proc_time AS d ON o.id + 1 = d.k AND o.amount > d.weight * 5;
-- dim-only conditions filter the rows looked up; probe-only ones of an INNER join go below
EXPLAIN SELECT o.id, d.name FROM orders o JOIN dim FOR SYSTEM_TIME AS OF o.proc_time AS d ON o.id = d.k AND d.weight > 3 AND o.amount < 35;
SELECT o.id, d.name FROM orders o JOIN dim FOR SYSTEM_TIME AS OF o.proc_time AS d ON o.id = d.k AND d.weight > 3 AND o.amount < 35;
-- an updating input keeps its row kinds (-U/+U looked up and passed on)
SELECT t.id, t.total, d.name FROM (SELECT id, SUM(amount) AS total, PROCTIME() AS pt FROM orders GROUP BY id) t
  LEFT JOIN dim FOR SYSTEM_TIME AS OF t.pt AS d ON t.id = d.k;
-- Flink's LookupJoinTest plans against an asynchronous table (jdbc here): defaults, hints
CREATE TABLE MyTable (a INT, b STRING, c BIGINT, proctime AS PROCTIME())
WITH ('connector' = 'filesystem', 'path' = 'tests/sql/data/lookup_orders.csv', 'format' = 'csv');
EXPLAIN SELECT /*+ LOOKUP('table'='D', 'async'='true') */ T.a, D.name, D.age FROM MyTable AS T JOIN AsyncLookupTable FOR SYSTEM_TIME AS OF T.proctime AS D ON T.a = D.id;
EXPLAIN SELECT /*+ LOOKUP('table'='D', 'async'='true', 'output-mode'='allow_unordered', 'capacity'='300', 'timeout'='600s') */ T.a, D.name, D.age FROM MyTable AS T JOIN AsyncLookupTable FOR SYSTEM_TIME AS OF T.proctime AS D ON T.a = D.id;
EXPLAIN SELECT /*+ LOOKUP('table'='D', 'async'='true', 'output-mode'='allow_unordered', 'capacity'='300', 'retry-predicate'='lookup_miss', 'retry-strategy'='fixed_delay', 'fixed-delay'='10s', 'max-attempts'='3') */ T.a, D.name, D.age FROM MyTable AS T JOIN AsyncLookupTable FOR SYSTEM_TIME AS OF T.proctime AS D ON T.a = D.id;
-- sync with retry; shuffle puts an Exchange on the lookup key below
EXPLAIN SELECT /*+ LOOKUP('table'='AsyncLookupTable', 'retry-predicate'='lookup_miss', 'retry-strategy'='fixed_delay', 'fixed-delay'='155 ms', 'max-attempts'='10', 'shuffle'='true') */ T.a, D.name FROM MyTable AS T JOIN AsyncLookupTable FOR SYSTEM_TIME AS OF T.proctime AS D ON T.a = D.id;
-- allow_unordered over an updating input is ORDERED (Flink)
EXPLAIN SELECT /*+ LOOKUP('table'='D', 'async'='true', 'output-mode'='allow_unordered') */ T.a, D.name FROM (SELECT MAX(a) AS a, PROCTIME() AS proctime FROM MyTable GROUP BY b) AS T LEFT JOIN AsyncLookupTable FOR SYSTEM_TIME AS OF T.proctime AS D ON T.a = D.id;
-- constants as keys: constants first in lookup=[...], then the fields (Flink's order)
EXPLAIN SELECT * FROM MyTable AS T JOIN AsyncLookupTable FOR SYSTEM_TIME AS OF T.proctime AS D ON T.a = D.id AND D.age = 10 AND D.name = 'AAA' WHERE T.c > 1000;
-- seed 001's cache keys inside the hint (mapped onto the table's cache options; PLAN_ADVICE shows them)
EXPLAIN PLAN_ADVICE SELECT /*+ LOOKUP('table' = 'AsyncLookupTable', 'async' = 'true', 'cache' = 'LRU', 'cache-size' = '10000', 'cache-ttl' = '60s') */ T.a, D.name FROM MyTable AS T JOIN AsyncLookupTable FOR SYSTEM_TIME AS OF T.proctime AS D ON T.a = D.id;
-- table.exec.async-lookup.* are the defaults of an async lookup join; the hint's 'capacity',
-- 'timeout' and 'output-mode' override them key by key (Flink's getMergedAsyncOptions)
SET 'table.exec.async-lookup.buffer-capacity' = '50';
SET 'table.exec.async-lookup.timeout' = '20 s';
SET 'table.exec.async-lookup.output-mode' = 'allow_unordered';
EXPLAIN SELECT /*+ LOOKUP('table'='D', 'async'='true') */ T.a, D.name FROM MyTable AS T JOIN AsyncLookupTable FOR SYSTEM_TIME AS OF T.proctime AS D ON T.a = D.id;
EXPLAIN SELECT /*+ LOOKUP('table'='D', 'async'='true', 'capacity'='300', 'output-mode'='ordered') */ T.a, D.name FROM MyTable AS T JOIN AsyncLookupTable FOR SYSTEM_TIME AS OF T.proctime AS D ON T.a = D.id;
EXPLAIN SELECT /*+ LOOKUP('table'='D', 'async'='true', 'timeout'='600s') */ T.a, D.name FROM MyTable AS T JOIN AsyncLookupTable FOR SYSTEM_TIME AS OF T.proctime AS D ON T.a = D.id;
-- ALLOW_UNORDERED from the session over an updating input is ORDERED too
EXPLAIN SELECT /*+ LOOKUP('table'='D', 'async'='true') */ T.a, D.name FROM (SELECT MAX(a) AS a, PROCTIME() AS proctime FROM MyTable GROUP BY b) AS T LEFT JOIN AsyncLookupTable FOR SYSTEM_TIME AS OF T.proctime AS D ON T.a = D.id;
-- a synchronous lookup join has no async settings to take
EXPLAIN SELECT T.a, D.name FROM MyTable AS T JOIN AsyncLookupTable FOR SYSTEM_TIME AS OF T.proctime AS D ON T.a = D.id;
-- bad values are rejected and leave the set ones
SET 'table.exec.async-lookup.buffer-capacity' = '0';
SET 'table.exec.async-lookup.buffer-capacity' = 'many';
SET 'table.exec.async-lookup.timeout' = '0 s';
SET 'table.exec.async-lookup.timeout' = 'soon';
SET 'table.exec.async-lookup.output-mode' = 'UNORDERED';
EXPLAIN SELECT /*+ LOOKUP('table'='D', 'async'='true') */ T.a, D.name FROM MyTable AS T JOIN AsyncLookupTable FOR SYSTEM_TIME AS OF T.proctime AS D ON T.a = D.id;
-- RESET: Flink's defaults again
RESET 'table.exec.async-lookup.buffer-capacity';
RESET 'table.exec.async-lookup.timeout';
RESET 'table.exec.async-lookup.output-mode';
EXPLAIN SELECT /*+ LOOKUP('table'='D', 'async'='true') */ T.a, D.name FROM MyTable AS T JOIN AsyncLookupTable FOR SYSTEM_TIME AS OF T.proctime AS D ON T.a = D.id;

-- mistakes
SELECT o.id FROM orders o JOIN dim FOR SYSTEM_TIME AS OF o.proc_time AS d ON o.id > d.k;
SELECT o.id FROM orders o JOIN dim FOR SYSTEM_TIME AS OF o.proc_time AS d ON o.amount + d.k = 3;
SELECT /*+ LOOKUP('table'='d', 'time-out'='3s') */ o.id FROM orders o JOIN dim FOR SYSTEM_TIME AS OF o.proc_time AS d ON o.id = d.k;
SELECT /*+ LOOKUP('table'='nothing') */ o.id FROM orders o JOIN dim FOR SYSTEM_TIME AS OF o.proc_time AS d ON o.id = d.k;
SELECT /*+ LOOKUP('async'='true') */ o.id FROM orders o JOIN dim FOR SYSTEM_TIME AS OF o.proc_time AS d ON o.id = d.k;
SELECT /*+ LOOKUP('table'='D', 'output-mode'='fast') */ T.a FROM MyTable AS T JOIN AsyncLookupTable FOR SYSTEM_TIME AS OF T.proctime AS D ON T.a = D.id;
SELECT /*+ LOOKUP('table'='D', 'retry-predicate'='lookup_miss') */ T.a FROM MyTable AS T JOIN AsyncLookupTable FOR SYSTEM_TIME AS OF T.proctime AS D ON T.a = D.id;
SELECT /*+ LOOKUP('table'='D', 'cache'='LRU') */ o.id FROM orders o JOIN dim FOR SYSTEM_TIME AS OF o.proc_time AS D ON o.id = D.k;
SELECT o.id FROM orders o RIGHT JOIN dim FOR SYSTEM_TIME AS OF o.proc_time AS d ON o.id = d.k;
CREATE TABLE bad_cache (id INT) WITH ('connector' = 'jdbc', 'url' = 'jdbc:postgresql://127.0.0.1:1/none', 'table-name' = 'x', 'lookup.cache' = 'PARTIAL');
CREATE TABLE bad_cache (id INT) WITH ('connector' = 'jdbc', 'url' = 'jdbc:postgresql://127.0.0.1:1/none', 'table-name' = 'x', 'lookup.cache.max-rows' = '10');
CREATE TABLE bad_cache (id INT) WITH ('connector' = 'jdbc', 'url' = 'jdbc:postgresql://127.0.0.1:1/none', 'table-name' = 'x', 'lookup.partial-cache.max-row' = '10');
CREATE TABLE bad_pool (id INT) WITH ('connector' = 'jdbc', 'url' = 'jdbc:postgresql://127.0.0.1:1/none', 'table-name' = 'x', 'lookup.async.connections' = '0');
CREATE TABLE bad_pool (id INT) WITH ('connector' = 'redis', 'host' = '127.0.0.1', 'command' = 'get', 'lookup.async.connections' = '65');
CREATE TABLE bad_cache (id INT) WITH ('connector' = 'jdbc', 'url' = 'jdbc:postgresql://127.0.0.1:1/none', 'table-name' = 'x', 'lookup.cache' = 'LRU');
-- the event-time form against a table that only looks up: Flink's message
CREATE TABLE orders_rt (id INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'tests/sql/data/lookup_orders.csv', 'format' = 'csv');
SELECT o.id FROM orders_rt o JOIN AsyncLookupTable FOR SYSTEM_TIME AS OF o.ts AS d ON o.id = d.id;

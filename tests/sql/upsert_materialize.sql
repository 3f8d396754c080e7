-- id 1: +I x, +U y (the latest), +U x (y removed: x is the latest again), -D x (x's -U
-- empties the key), +I x2; id 2: +I z, nothing for -D w (never held: skipped), -D z
-- table.exec.sink.upsert-materialize (Flink's SinkUpsertMaterializer): a Sink into a table
-- with a primary key whose input changes arrive without an upsert key inside that key keeps
-- every row per key and writes the latest surviving one (upsertMaterialize=[true] on the
-- Sink). The changelog below (no primary key on the source) holds two rows for id 1 at once:
-- +I x, +I y, -D y, then x updated to x2; id 2: +I z, a -D of a row it never held (w, skipped
-- and counted), -D z.
CREATE TABLE changes (id INT, k INT, v STRING)
WITH ('connector' = 'filesystem', 'path' = 'tests/sql/data/upsert_materialize.debezium.json', 'format' = 'debezium-json');
CREATE TABLE by_id (id INT, v STRING, PRIMARY KEY (id) NOT ENFORCED)
WITH ('connector' = 'print', 'print-identifier' = 'by_id');
CREATE TABLE by_k (k INT, v STRING) WITH ('connector' = 'print', 'print-identifier' = 'by_k');
CREATE TABLE users (user_id INT, name STRING, PRIMARY KEY (user_id) NOT ENFORCED)
WITH ('connector' = 'filesystem', 'path' = 'sample-data/users.json', 'format' = 'json');
CREATE TABLE orders (order_id BIGINT, user_id INT, amount DOUBLE)
WITH ('connector' = 'filesystem', 'path' = 'sample-data/orders.json', 'format' = 'json');
CREATE TABLE totals (user_id INT, total DOUBLE, PRIMARY KEY (user_id) NOT ENFORCED)
WITH ('connector' = 'print', 'print-identifier' = 'totals');

-- AUTO (the default): the source has no upsert key, so the Sink materializes by id
EXPLAIN INSERT INTO by_id SELECT id, v FROM changes;
-- id 1: +I x, +U y (the latest), +U x (y gone: the latest again), +U x2 (x's -U leaves y's
-- removal behind: the key held only x, so -D x then +I x2); id 2: +I z, -D z
INSERT INTO by_id SELECT id, v FROM changes;
-- the same changes unmaterialized: -D y would delete id 1 in an upsert table while x lives
SET 'table.exec.sink.upsert-materialize' = 'NONE';
EXPLAIN INSERT INTO by_id SELECT id, v FROM changes;
INSERT INTO by_id SELECT id, v FROM changes;
RESET 'table.exec.sink.upsert-materialize';

-- no primary key on the sink: nothing to materialize by
EXPLAIN INSERT INTO by_k SELECT k, v FROM changes;

-- an aggregate's upsert key is its group key: within the sink's key, no materializer
EXPLAIN INSERT INTO totals SELECT user_id, SUM(amount) FROM orders GROUP BY user_id;
-- a join keeps an input's upsert key only when its join key contains it (all the key's
-- changes then meet in one join instance) and the other side is unique on the join key:
-- the latest v per id joined on id keeps id (no materializer) ...
EXPLAIN INSERT INTO by_id SELECT g.id, g.v FROM (SELECT id, MAX(k) AS k, MAX(v) AS v FROM changes GROUP BY id) AS g JOIN users AS u ON g.id = u.user_id;
-- ... joined on k it does not (changes of one id may come from two join instances)
EXPLAIN INSERT INTO by_id SELECT g.id, g.v FROM (SELECT id, MAX(k) AS k, MAX(v) AS v FROM changes GROUP BY id) AS g JOIN users AS u ON g.k = u.user_id;
-- an insert-only input needs none (AUTO)
EXPLAIN INSERT INTO totals SELECT o.user_id, o.amount FROM orders AS o JOIN users AS u ON o.user_id = u.user_id;

-- FORCE: even an insert-only input
SET 'table.exec.sink.upsert-materialize' = 'FORCE';
EXPLAIN INSERT INTO totals SELECT user_id, amount FROM orders;
SET 'table.exec.sink.upsert-materialize' = 'SOMETIMES';
RESET 'table.exec.sink.upsert-materialize';

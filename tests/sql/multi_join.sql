-- multi_join.sql - MultiJoin (issue 3): seed 002's datagen1..6 chain and
-- seed 000's orders/users/products query, EXPLAIN with multi-join off and
-- on, and the fused job's changelog (final rows equal the binary chain's:
-- see seed002.out, 16 rows).
CREATE TABLE datagen1 (id int, f1 int, PRIMARY KEY (id) NOT ENFORCED)
WITH
  (
    'connector' = 'datagen',
    'number-of-rows' = '10',
    'fields.id.kind' = 'sequence',
    'fields.id.start' = '1',
    'fields.id.end' = '10',
    'fields.f1.kind' = 'sequence',
    'fields.f1.start' = '101',
    'fields.f1.end' = '110'
  );
CREATE TABLE datagen2 (id int, f2 int, PRIMARY KEY (id) NOT ENFORCED)
WITH
  (
    'connector' = 'datagen',
    'number-of-rows' = '10',
    'fields.id.kind' = 'sequence',
    'fields.id.start' = '1',
    'fields.id.end' = '10',
    'fields.f2.kind' = 'sequence',
    'fields.f2.start' = '201',
    'fields.f2.end' = '210'
  );
CREATE TABLE datagen3 (id int, f3 int, PRIMARY KEY (id) NOT ENFORCED)
WITH
  (
    'connector' = 'datagen',
    'number-of-rows' = '10',
    'fields.id.kind' = 'sequence',
    'fields.id.start' = '1',
    'fields.id.end' = '10',
    'fields.f3.kind' = 'sequence',
    'fields.f3.start' = '301',
    'fields.f3.end' = '310'
  );
CREATE TABLE datagen5 (id int, f5 int, PRIMARY KEY (id) NOT ENFORCED)
WITH
  (
    'connector' = 'datagen',
    'number-of-rows' = '10',
    'fields.id.kind' = 'sequence',
    'fields.id.start' = '1',
    'fields.id.end' = '10',
    'fields.f5.kind' = 'sequence',
    'fields.f5.start' = '501',
    'fields.f5.end' = '510'
  );
CREATE TABLE datagen6 (id int, f6 int, PRIMARY KEY (id) NOT ENFORCED)
WITH
  (
    'connector' = 'datagen',
    'number-of-rows' = '10',
    'fields.id.kind' = 'sequence',
    'fields.id.start' = '1',
    'fields.id.end' = '10',
    'fields.f6.kind' = 'sequence',
    'fields.f6.start' = '601',
    'fields.f6.end' = '610'
  );
CREATE TABLE print (id int, f1 int, f2 int, f3 int, f5 int, f6 int)
WITH
  ('connector' = 'print');

-- binary chain (default)
EXPLAIN insert into print select datagen1.id, datagen1.f1, datagen2.f2, datagen3.f3, datagen5.f5, datagen6.f6 from datagen1 left join datagen2 on datagen1.id = datagen2.id and datagen2.id > 2 join datagen3 on datagen1.id = datagen3.id and datagen3.id > 3 right join datagen5 on datagen1.id = datagen5.id and datagen5.id > 5 full outer join datagen6 on datagen1.id = datagen6.id and datagen6.id > 6 and datagen1.id > 1;

-- fused: one MultiJoin keyed by id with LEFT, INNER, RIGHT and FULL steps
SET 'table.optimizer.multi-join.enabled' = 'true';
EXPLAIN insert into print select datagen1.id, datagen1.f1, datagen2.f2, datagen3.f3, datagen5.f5, datagen6.f6 from datagen1 left join datagen2 on datagen1.id = datagen2.id and datagen2.id > 2 join datagen3 on datagen1.id = datagen3.id and datagen3.id > 3 right join datagen5 on datagen1.id = datagen5.id and datagen5.id > 5 full outer join datagen6 on datagen1.id = datagen6.id and datagen6.id > 6 and datagen1.id > 1;
insert into print select datagen1.id, datagen1.f1, datagen2.f2, datagen3.f3, datagen5.f5, datagen6.f6 from datagen1 left join datagen2 on datagen1.id = datagen2.id and datagen2.id > 2 join datagen3 on datagen1.id = datagen3.id and datagen3.id > 3 right join datagen5 on datagen1.id = datagen5.id and datagen5.id > 5 full outer join datagen6 on datagen1.id = datagen6.id and datagen6.id > 6 and datagen1.id > 1;

-- seed 000: users and products join on different keys: no common key, so the
-- chain splits into two MultiJoins (user_id, then product_id)
CREATE TABLE orders (order_id BIGINT, user_id BIGINT, product_id BIGINT, amount DECIMAL(10, 2), order_time TIMESTAMP(3), PRIMARY KEY (order_id) NOT ENFORCED) WITH ('connector' = 'filesystem', 'path' = 'sample-data/orders.json', 'format' = 'json');
CREATE TABLE users (user_id BIGINT, user_name STRING, region_id BIGINT, PRIMARY KEY (user_id) NOT ENFORCED) WITH ('connector' = 'filesystem', 'path' = 'sample-data/users.json', 'format' = 'json');
CREATE TABLE products (product_id BIGINT, product_name STRING, category STRING, PRIMARY KEY (product_id) NOT ENFORCED) WITH ('connector' = 'filesystem', 'path' = 'sample-data/products.json', 'format' = 'json');
SET 'table.exec.state.ttl' = '1 h';
EXPLAIN SELECT o.order_id, u.user_name, p.product_name, p.category FROM orders AS o LEFT JOIN users AS u ON o.user_id = u.user_id LEFT JOIN products AS p ON o.product_id = p.product_id WHERE o.amount > 10;
-- a STATE_TTL hint per input
EXPLAIN SELECT /*+ STATE_TTL('o' = '1d', 'u' = '7d') */ o.order_id, u.user_name FROM orders AS o LEFT JOIN users AS u ON o.user_id = u.user_id;
RESET 'table.optimizer.multi-join.enabled';
-- the MULTI_JOIN hint fuses without the option
EXPLAIN SELECT /*+ MULTI_JOIN(o, u) */ o.order_id, u.user_name FROM orders AS o LEFT JOIN users AS u ON o.user_id = u.user_id;
-- a chain whose joins each use another key splits into two-input MultiJoins: the advice says
-- fusion saves nothing there
SET 'table.optimizer.multi-join.enabled' = 'true';
EXPLAIN PLAN_ADVICE SELECT o.order_id, u.user_name, p.product_name FROM orders AS o JOIN users AS u ON o.user_id = u.user_id JOIN products AS p ON o.product_id = p.product_id;

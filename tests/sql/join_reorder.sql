-- join_reorder.sql - cost-based join reordering (issue 3):
-- 'table.optimizer.join-reorder-enabled' off and on, after ANALYZE TABLE,
-- for seed 000's orders/users/products and a star join (orders with users,
-- products, stores and regions). EXPLAIN ESTIMATED_COST shows the row
-- estimates the cost model chose by; the reordered plan ends in a Calc
-- that restores the original columns.
SET 'table.exec.state.ttl' = '1 h';
CREATE TABLE orders (order_id BIGINT, user_id BIGINT, product_id BIGINT, store_id BIGINT, amount DECIMAL(10, 2), order_time TIMESTAMP(3), status STRING, PRIMARY KEY (order_id) NOT ENFORCED) WITH ('connector' = 'filesystem', 'path' = 'sample-data/orders.json', 'format' = 'json');
CREATE TABLE users (user_id BIGINT, user_name STRING, region_id BIGINT, level INT, PRIMARY KEY (user_id) NOT ENFORCED) WITH ('connector' = 'filesystem', 'path' = 'sample-data/users.json', 'format' = 'json');
CREATE TABLE products (product_id BIGINT, product_name STRING, category STRING, price DECIMAL(10, 2), PRIMARY KEY (product_id) NOT ENFORCED) WITH ('connector' = 'filesystem', 'path' = 'sample-data/products.json', 'format' = 'json');
CREATE TABLE stores (store_id BIGINT, store_name STRING, region_id BIGINT, PRIMARY KEY (store_id) NOT ENFORCED) WITH ('connector' = 'filesystem', 'path' = 'sample-data/stores.json', 'format' = 'json');
CREATE TABLE regions (region_id BIGINT, region_name STRING, PRIMARY KEY (region_id) NOT ENFORCED) WITH ('connector' = 'filesystem', 'path' = 'sample-data/regions.json', 'format' = 'json');

-- statistics: row counts, distinct and null counts (bounded files are read fully)
ANALYZE TABLE orders COMPUTE STATISTICS FOR ALL COLUMNS;
ANALYZE TABLE users COMPUTE STATISTICS FOR ALL COLUMNS;
ANALYZE TABLE products COMPUTE STATISTICS FOR ALL COLUMNS;
ANALYZE TABLE stores COMPUTE STATISTICS FOR ALL COLUMNS;
ANALYZE TABLE regions COMPUTE STATISTICS;

-- seed 000, inner joins: reordering off (the written order)
EXPLAIN ESTIMATED_COST SELECT o.order_id, u.user_name, p.product_name, p.category, o.amount FROM orders AS o JOIN users AS u ON o.user_id = u.user_id JOIN products AS p ON o.product_id = p.product_id WHERE o.amount > 10 AND p.category = 'electronics';

-- star join, reordering off
EXPLAIN ESTIMATED_COST SELECT o.order_id, u.user_name, p.product_name, s.store_name, r.region_name FROM orders AS o JOIN users AS u ON o.user_id = u.user_id JOIN products AS p ON o.product_id = p.product_id JOIN stores AS s ON o.store_id = s.store_id JOIN regions AS r ON s.region_id = r.region_id WHERE p.category = 'electronics' AND r.region_name = 'North China';

SET 'table.optimizer.join-reorder-enabled' = 'true';

-- seed 000, reordering on: the filtered products (1 in 8 rows) join first
EXPLAIN ESTIMATED_COST SELECT o.order_id, u.user_name, p.product_name, p.category, o.amount FROM orders AS o JOIN users AS u ON o.user_id = u.user_id JOIN products AS p ON o.product_id = p.product_id WHERE o.amount > 10 AND p.category = 'electronics';

-- seed 000's own query: LEFT JOIN users is not reordered (only inner-join trees are)
EXPLAIN SELECT o.order_id, u.user_name, p.product_name, p.category, o.amount FROM orders AS o LEFT JOIN users AS u ON o.user_id = u.user_id LEFT JOIN products AS p ON o.product_id = p.product_id WHERE o.amount > 10 AND p.category = 'electronics';

-- star join, reordering on: stores with the one region first, then the fact table
EXPLAIN ESTIMATED_COST SELECT o.order_id, u.user_name, p.product_name, s.store_name, r.region_name FROM orders AS o JOIN users AS u ON o.user_id = u.user_id JOIN products AS p ON o.product_id = p.product_id JOIN stores AS s ON o.store_id = s.store_id JOIN regions AS r ON s.region_id = r.region_id WHERE p.category = 'electronics' AND r.region_name = 'North China';

-- with MultiJoin on as well: products and users join orders on different keys,
-- so the chain splits into two MultiJoins (product_id, then user_id)
SET 'table.optimizer.multi-join.enabled' = 'true';
EXPLAIN SELECT o.order_id, u.user_name, p.product_name, p.category, o.amount FROM orders AS o JOIN users AS u ON o.user_id = u.user_id JOIN products AS p ON o.product_id = p.product_id WHERE o.amount > 10 AND p.category = 'electronics';
SET 'table.optimizer.multi-join.enabled' = 'false';

-- the same rows either way
SELECT o.order_id, u.user_name, p.product_name, s.store_name, r.region_name FROM orders AS o JOIN users AS u ON o.user_id = u.user_id JOIN products AS p ON o.product_id = p.product_id JOIN stores AS s ON o.store_id = s.store_id JOIN regions AS r ON s.region_id = r.region_id WHERE p.category = 'electronics' AND r.region_name = 'North China' AND o.order_id < 400;

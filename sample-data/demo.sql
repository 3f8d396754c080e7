-- demo.sql - what `make demo` runs (paths are relative to the repository root).
--
-- A small shop: orders, users, products, stores, regions and payments, read
-- from the JSON-lines files next to this script (see sample-data/README.md).
-- The demo declares the tables, keeps join state for one hour, shows the plan
-- of a four-table join whose WHERE clause the optimizer pushes down to the
-- scans, then streams the result of that join (28 rows).

SET 'table.exec.state.ttl' = '1 h';

CREATE TABLE orders (
  order_id   BIGINT,
  user_id    BIGINT,
  product_id BIGINT,
  store_id   BIGINT,
  amount     DECIMAL(10, 2),
  order_time TIMESTAMP(3),
  status     STRING
) WITH (
  'connector' = 'filesystem',
  'path' = 'sample-data/orders.json',
  'format' = 'json'
);

CREATE TABLE users (
  user_id   BIGINT,
  user_name STRING,
  region_id BIGINT,
  level     INT
) WITH (
  'connector' = 'filesystem',
  'path' = 'sample-data/users.json',
  'format' = 'json'
);

CREATE TABLE products (
  product_id   BIGINT,
  product_name STRING,
  category     STRING,
  price        DECIMAL(10, 2)
) WITH (
  'connector' = 'filesystem',
  'path' = 'sample-data/products.json',
  'format' = 'json'
);

CREATE TABLE stores (
  store_id   BIGINT,
  store_name STRING,
  region_id  BIGINT
) WITH (
  'connector' = 'filesystem',
  'path' = 'sample-data/stores.json',
  'format' = 'json'
);

CREATE TABLE regions (
  region_id   BIGINT,
  region_name STRING
) WITH (
  'connector' = 'filesystem',
  'path' = 'sample-data/regions.json',
  'format' = 'json'
);

CREATE TABLE payments (
  payment_id BIGINT,
  order_id   BIGINT,
  pay_time   TIMESTAMP(3),
  pay_amount DECIMAL(10, 2),
  method     STRING
) WITH (
  'connector' = 'filesystem',
  'path' = 'sample-data/payments.json',
  'format' = 'json'
);

SHOW TABLES;

-- Each predicate of the WHERE clause touches one table, so the optimizer
-- pushes it below the joins, into the scans of orders, users and products.
EXPLAIN
SELECT o.order_id, u.user_name, p.product_name, s.store_name, o.amount
FROM orders AS o
JOIN users AS u ON o.user_id = u.user_id
JOIN products AS p ON o.product_id = p.product_id
JOIN stores AS s ON o.store_id = s.store_id
WHERE p.category = 'electronics' AND o.amount > 1000 AND u.level = 5 AND o.status = 'PAID';

-- The same join, streamed: big paid orders of top-level users for electronics.
SELECT o.order_id, u.user_name, p.product_name, s.store_name, o.amount
FROM orders AS o
JOIN users AS u ON o.user_id = u.user_id
JOIN products AS p ON o.product_id = p.product_id
JOIN stores AS s ON o.store_id = s.store_id
WHERE p.category = 'electronics' AND o.amount > 1000 AND u.level = 5 AND o.status = 'PAID';

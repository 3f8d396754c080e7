-- seed000_explain.sql - the EXPLAINs of seed article 000 (orders, users,
-- products): amount, read only by the filter, is pruned right after it, and the
-- filter on products goes into its scan.
SET 'table.exec.state.ttl' = '1 h';

CREATE TABLE orders (
  order_id BIGINT,
  user_id BIGINT,
  product_id BIGINT,
  amount DECIMAL(10, 2),
  order_time TIMESTAMP(3),
  WATERMARK FOR order_time AS order_time - INTERVAL '5' SECONDS,
  PRIMARY KEY (order_id) NOT ENFORCED
) WITH (
  'connector' = 'filesystem',
  'path' = 'sample-data/orders.json',
  'format' = 'json'
);

CREATE TABLE users (
  user_id BIGINT,
  user_name STRING,
  region_id BIGINT,
  PRIMARY KEY (user_id) NOT ENFORCED
) WITH (
  'connector' = 'filesystem',
  'path' = 'sample-data/users.json',
  'format' = 'json'
);

CREATE TABLE products (
  product_id BIGINT,
  product_name STRING,
  category STRING,
  PRIMARY KEY (product_id) NOT ENFORCED
) WITH (
  'connector' = 'filesystem',
  'path' = 'sample-data/products.json',
  'format' = 'json'
);

-- The article's EXPLAIN (section 3.4): is amount > 10 pushed below the joins?
EXPLAIN SELECT o.order_id, u.user_name, p.product_name, p.category FROM orders AS o LEFT JOIN users AS u ON o.user_id = u.user_id LEFT JOIN products AS p ON o.product_id = p.product_id WHERE o.amount > 10;


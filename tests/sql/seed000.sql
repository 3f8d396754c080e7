-- seed000.sql - the orders/users/products example of seed article 000
-- (sample-data/seed000_orders_users_products.sql) on the shop sample data:
-- its LEFT JOIN query filtered on o.amount > 10 AND p.category = 'electronics'.
-- The final state (763 rows, insert-only) was checked against SQLite on the
-- same files. The seed's first EXPLAIN is in pending/seed000_explain.sql
-- (amount, used only by the filter, is carried through both joins).

-- The article's state retention setting (section 3.3).
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

-- The plan of the article's query (section 3.2): amount > 10 stays in a Calc
-- above the WatermarkAssigner, category = 'electronics' goes into the
-- products scan and turns the second LEFT JOIN into an inner join.
EXPLAIN SELECT o.order_id, u.user_name, p.product_name, p.category, o.amount FROM orders AS o LEFT JOIN users AS u ON o.user_id = u.user_id LEFT JOIN products AS p ON o.product_id = p.product_id WHERE o.amount > 10 AND p.category = 'electronics';

-- The article's query (section 3.2), streamed.
SELECT o.order_id, u.user_name, p.product_name, p.category, o.amount FROM orders AS o LEFT JOIN users AS u ON o.user_id = u.user_id LEFT JOIN products AS p ON o.product_id = p.product_id WHERE o.amount > 10 AND p.category = 'electronics';

-- explain_pushdown.sql - EXPLAIN of joins: filter pushdown into scans,
-- projection pruning, outer-join simplification, exchanges, state TTL,
-- CHANGELOG_MODE and ESTIMATED_COST. Uses the shop tables of sample-data/.

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

-- 1. Inner join: both single-table predicates go into the scans, only the
--    needed columns are read (project=[...]), both inputs hashed on the key.
EXPLAIN
SELECT o.order_id, u.user_name
FROM orders AS o JOIN users AS u ON o.user_id = u.user_id
WHERE o.amount > 100 AND u.level = 5;

-- 2. LEFT JOIN whose WHERE rejects the NULLs of the right side
--    (u.level = 5): the join becomes an inner join and the predicate goes
--    into the users scan.
EXPLAIN
SELECT o.order_id, u.user_name
FROM orders AS o LEFT JOIN users AS u ON o.user_id = u.user_id
WHERE u.level = 5;

-- 3. LEFT JOIN with a predicate on the preserved (left) side only: pushed
--    into the orders scan, the join stays a LeftOuterJoin.
EXPLAIN
SELECT o.order_id, u.user_name
FROM orders AS o LEFT JOIN users AS u ON o.user_id = u.user_id
WHERE o.status = 'PAID';

-- 4. LEFT JOIN with IS NULL on the right side (anti-join shape): must not
--    be pushed, must not turn the join into an inner join.
EXPLAIN
SELECT o.order_id
FROM orders AS o LEFT JOIN users AS u ON o.user_id = u.user_id
WHERE u.user_id IS NULL;

-- 5. ON condition of an outer join: a condition on the right (null
--    producing) side of a LEFT JOIN is pushed into the right input; a
--    condition on the left (preserved) side stays in the join.
EXPLAIN
SELECT o.order_id, u.user_name
FROM orders AS o LEFT JOIN users AS u
  ON o.user_id = u.user_id AND u.level > 3;

EXPLAIN
SELECT o.order_id, u.user_name
FROM orders AS o LEFT JOIN users AS u
  ON o.user_id = u.user_id AND o.amount > 500;

-- 6. RIGHT JOIN and FULL JOIN: predicates on the preserved side of a RIGHT
--    JOIN pushed; a FULL JOIN with a WHERE on one side becomes a LEFT/RIGHT.
EXPLAIN
SELECT o.order_id, u.user_name
FROM orders AS o RIGHT JOIN users AS u ON o.user_id = u.user_id
WHERE u.region_id = 3;

EXPLAIN
SELECT o.order_id, u.user_name
FROM orders AS o FULL JOIN users AS u ON o.user_id = u.user_id
WHERE o.amount > 100;

-- 7. Three tables, with a residual (non-equi) join condition.
EXPLAIN
SELECT o.order_id, u.user_name, p.product_name
FROM orders AS o
JOIN users AS u ON o.user_id = u.user_id
JOIN products AS p ON o.product_id = p.product_id AND o.amount > p.price
WHERE p.category = 'electronics';

-- 8. state TTL from the session option.
SET 'table.exec.state.ttl' = '1 h';
EXPLAIN
SELECT o.order_id, u.user_name
FROM orders AS o JOIN users AS u ON o.user_id = u.user_id;
RESET 'table.exec.state.ttl';

-- 9. EXPLAIN CHANGELOG_MODE: an inner join of insert-only inputs is
--    insert-only; a LEFT JOIN produces every kind of change.
EXPLAIN CHANGELOG_MODE
SELECT o.order_id, u.user_name
FROM orders AS o JOIN users AS u ON o.user_id = u.user_id;

EXPLAIN CHANGELOG_MODE
SELECT o.order_id, u.user_name
FROM orders AS o LEFT JOIN users AS u ON o.user_id = u.user_id;

-- 10. EXPLAIN ESTIMATED_COST.
EXPLAIN ESTIMATED_COST
SELECT o.order_id, u.user_name
FROM orders AS o JOIN users AS u ON o.user_id = u.user_id
WHERE u.level = 5;

-- explain_plans.sql - EXPLAIN details checked against Flink's spellings:
-- STATE_TTL hints on the LogicalJoin of the AST, flattened AND conditions,
-- Calcite's aggregate naming (no Calc above GroupAggregate), an inner join over
-- an updating input forwarding [I,UB,UA], and interval units (INTERVAL HOUR).
CREATE TABLE orders (order_id BIGINT, user_id BIGINT, amount DECIMAL(10, 2), order_time TIMESTAMP(3))
  WITH ('connector' = 'filesystem', 'path' = 'sample-data/orders.json', 'format' = 'json');
CREATE TABLE users (user_id BIGINT, user_name STRING, region_id BIGINT, level INT)
  WITH ('connector' = 'filesystem', 'path' = 'sample-data/users.json', 'format' = 'json');

-- 1. STATE_TTL hint: the physical plan shows stateTtl=[left=1 d, right=12 h]
--    but the AST lacks Flink's
--    LogicalJoin(..., stateTtlHints=[[[STATE_TTL inheritPath:[0] options:{o=1d, u=12h}]]]).
EXPLAIN
SELECT /*+ STATE_TTL('o' = '1d', 'u' = '12h') */ o.order_id, u.user_name
FROM orders AS o JOIN users AS u ON o.user_id = u.user_id;

-- 2. Three conjuncts: AST prints AND(AND(=($1, $4), >($7, 3)), >($2, 500));
--    Calcite flattens to AND(=($1, $4), >($7, 3), >($2, 500)).
EXPLAIN
SELECT o.order_id, u.user_name
FROM orders AS o LEFT JOIN users AS u
  ON o.user_id = u.user_id AND u.level > 3 AND o.amount > 500;

-- 3. Aggregate naming: joinery prints LogicalAggregate(group=[{0}], EXPR$0=[SUM($1)])
--    over LogicalProject(user_id=[$1], $f1=[$2]) under an extra LogicalProject,
--    and GroupAggregate(select=[user_id, SUM($f1) AS EXPR$0]) between two Calcs.
--    Flink: LogicalAggregate(group=[{0}], total=[SUM($1)]) over
--    LogicalProject(user_id=[$1], amount=[$2]); GroupAggregate(groupBy=[user_id],
--    select=[user_id, SUM(amount) AS total]) with no Calc above it (and an
--    unaliased SUM is EXPR$1, its select-list position, not EXPR$0).
--    Also: the inner Join over the updating input shows changelogMode=[I,UB,UA,D];
--    Flink's inner join forwards its inputs' kinds: [I,UB,UA] (the operator
--    indeed never emits -D here).
EXPLAIN CHANGELOG_MODE
SELECT u.user_name, t.total
FROM (SELECT user_id, SUM(amount) AS total FROM orders GROUP BY user_id) AS t
JOIN users AS u ON t.user_id = u.user_id;

-- 4. INTERVAL '1' HOUR prints as 3600000:INTERVAL SECOND; Calcite prints
--    3600000:INTERVAL HOUR (and 86400000:INTERVAL DAY, 60000:INTERVAL MINUTE).
CREATE TABLE orders_wm (order_id BIGINT, order_time TIMESTAMP(3),
  WATERMARK FOR order_time AS order_time - INTERVAL '1' HOUR)
  WITH ('connector' = 'filesystem', 'path' = 'sample-data/orders.json', 'format' = 'json');
EXPLAIN SELECT order_id, order_time FROM orders_wm;

-- 5. A filter that stays above a WatermarkAssigner keeps the columns it
--    alone uses: Calc(select=[order_id, user_id, amount], where=[>(amount, 10)])
--    carries amount through the join; Flink's Calc selects [order_id, user_id].
--    (In seed000, with the same shape, order_time is carried too.)
CREATE TABLE orders_wm2 (order_id BIGINT, user_id BIGINT, amount DECIMAL(10, 2), order_time TIMESTAMP(3),
  WATERMARK FOR order_time AS order_time - INTERVAL '5' SECOND)
  WITH ('connector' = 'filesystem', 'path' = 'sample-data/orders.json', 'format' = 'json');
EXPLAIN
SELECT o.order_id, u.user_name
FROM orders_wm2 AS o JOIN users AS u ON o.user_id = u.user_id
WHERE o.amount > 10;

-- 6. EXPLAIN INSERT: a redundant identity LogicalProject under LogicalSink.
CREATE TABLE out_print (order_id BIGINT, user_id BIGINT) WITH ('connector' = 'print');
EXPLAIN INSERT INTO out_print SELECT order_id, user_id FROM orders;

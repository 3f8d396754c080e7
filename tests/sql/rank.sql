-- rank.sql - Top-N: ROW_NUMBER() OVER (PARTITION BY ... ORDER BY ...) under a filter
-- that bounds it, planned as Flink's Rank (RankTest.xml) with the process strategy
-- Flink chooses from the input: AppendFastStrategy over an append-only input,
-- UpdateFastStrategy[key] over an aggregate with a monotonic order (COUNT DESC),
-- RetractStrategy otherwise (SUM, a count over an updating input, a changelog
-- source). Results as Flink's TopN functions emit them: rows entering the top N
-- shift the ranks below (-U/+U per rank, +I for a new rank), without the rank column
-- -D of the row pushed out and +I of the new one; rn = N, ranges, a global Top-N,
-- rn = 1 on a non-time column (a Rank, not a Deduplicate), RANK() planned and refused.
CREATE TABLE shop (
  category STRING,
  product STRING,
  price INT,
  sold TIMESTAMP(3),
  WATERMARK FOR sold AS sold
) WITH ('connector' = 'filesystem', 'path' = 'tests/sql/data/rank_shop.json', 'format' = 'json');

-- the two most expensive products per category (append-only input)
EXPLAIN SELECT * FROM (
  SELECT category, product, price,
    ROW_NUMBER() OVER (PARTITION BY category ORDER BY price DESC) AS rn
  FROM shop)
WHERE rn <= 2;
-- b2 (19) pushes b1 to rank 2; b4 (11) does not enter; b5 (25) shifts both down; b6 ties
-- with b2 (19) and comes after it: it does not enter a full top 2; toy's NULL price ranks
-- last (DESC NULLS LAST)
SELECT * FROM (
  SELECT category, product, price,
    ROW_NUMBER() OVER (PARTITION BY category ORDER BY price DESC) AS rn
  FROM shop)
WHERE rn <= 2;

-- without the rank column (Flink's outputRankNumber=false): -D of the row pushed out, +I
SELECT product, price FROM (
  SELECT category, product, price,
    ROW_NUMBER() OVER (PARTITION BY category ORDER BY price DESC) AS rn
  FROM shop)
WHERE rn <= 2;

-- rn = 2: the rank is a constant in a Calc above the Rank
EXPLAIN SELECT * FROM (
  SELECT category, product, price,
    ROW_NUMBER() OVER (PARTITION BY category ORDER BY price DESC) AS rn
  FROM shop)
WHERE rn = 2;
SELECT * FROM (
  SELECT category, product, price,
    ROW_NUMBER() OVER (PARTITION BY category ORDER BY price DESC) AS rn
  FROM shop)
WHERE rn = 2;

-- a global Top-N (single exchange), two ORDER BY keys, ranks 2 to 3; 3 >= rn and rn > 1
-- give the same range; the condition on price stays in a Calc above
EXPLAIN SELECT * FROM (
  SELECT product, price,
    ROW_NUMBER() OVER (ORDER BY price DESC, product) AS rn
  FROM shop)
WHERE rn BETWEEN 2 AND 3;
EXPLAIN SELECT * FROM (
  SELECT product, price,
    ROW_NUMBER() OVER (ORDER BY price DESC, product) AS rn
  FROM shop)
WHERE 3 >= rn AND rn > 1 AND price > 20;
SELECT * FROM (
  SELECT product, price,
    ROW_NUMBER() OVER (ORDER BY price DESC, product) AS rn
  FROM shop)
WHERE rn BETWEEN 2 AND 3;

-- rn = 1 ordered by a column that is not a time attribute: a Rank, not a Deduplicate
EXPLAIN SELECT category, product FROM (
  SELECT category, product, price,
    ROW_NUMBER() OVER (PARTITION BY category ORDER BY price ASC) AS rn
  FROM shop)
WHERE rn < 2;
SELECT category, product FROM (
  SELECT category, product, price,
    ROW_NUMBER() OVER (PARTITION BY category ORDER BY price ASC) AS rn
  FROM shop)
WHERE rn < 2;
-- ordered by the rowtime it is Flink's Deduplicate (a Rank in the physical plan)
EXPLAIN SELECT category, product FROM (
  SELECT category, product, sold,
    ROW_NUMBER() OVER (PARTITION BY category ORDER BY sold DESC) AS rn
  FROM shop)
WHERE rn = 1;

-- over an aggregate: COUNT only grows, so UpdateFastStrategy[0] (the group key) with
-- ORDER BY cnt DESC; the upserts move a category up
EXPLAIN CHANGELOG_MODE SELECT * FROM (
  SELECT category, cnt, ROW_NUMBER() OVER (ORDER BY cnt DESC) AS rn
  FROM (SELECT category, COUNT(*) AS cnt FROM shop GROUP BY category))
WHERE rn <= 2;
SELECT * FROM (
  SELECT category, cnt, ROW_NUMBER() OVER (ORDER BY cnt DESC) AS rn
  FROM (SELECT category, COUNT(*) AS cnt FROM shop GROUP BY category))
WHERE rn <= 2;
-- ORDER BY cnt ASC is not monotonic that way: RetractStrategy
EXPLAIN SELECT * FROM (
  SELECT category, cnt, ROW_NUMBER() OVER (ORDER BY cnt ASC) AS rn
  FROM (SELECT category, COUNT(*) AS cnt FROM shop GROUP BY category))
WHERE rn <= 2;
-- SUM may go down (Flink: RetractStrategy too); MAX per category and product grows
EXPLAIN SELECT * FROM (
  SELECT category, total, ROW_NUMBER() OVER (ORDER BY total DESC) AS rn
  FROM (SELECT category, SUM(price) AS total FROM shop GROUP BY category))
WHERE rn <= 2;
EXPLAIN SELECT * FROM (
  SELECT category, product, top_price,
    ROW_NUMBER() OVER (PARTITION BY category ORDER BY top_price DESC) AS rn
  FROM (SELECT category, product, MAX(price) AS top_price FROM shop GROUP BY category, product))
WHERE rn <= 2;

-- a count over an updating input retracts: how many categories have each number of
-- products, the top 2 by that number; RetractStrategy, rows leave and come back
EXPLAIN SELECT * FROM (
  SELECT cnt, categories, ROW_NUMBER() OVER (ORDER BY categories DESC, cnt) AS rn
  FROM (SELECT cnt, COUNT(*) AS categories
        FROM (SELECT category, COUNT(*) AS cnt FROM shop GROUP BY category)
        GROUP BY cnt))
WHERE rn <= 2;
SELECT * FROM (
  SELECT cnt, categories, ROW_NUMBER() OVER (ORDER BY categories DESC, cnt) AS rn
  FROM (SELECT cnt, COUNT(*) AS categories
        FROM (SELECT category, COUNT(*) AS cnt FROM shop GROUP BY category)
        GROUP BY cnt))
WHERE rn <= 2;

-- a changelog source (updates and a delete): the two cheapest products per category
CREATE TABLE prices (
  product STRING,
  category STRING,
  price INT,
  PRIMARY KEY (product) NOT ENFORCED
) WITH ('connector' = 'filesystem', 'path' = 'tests/sql/data/rank_prices.debezium.json', 'format' = 'debezium-json');
EXPLAIN SELECT * FROM (
  SELECT category, product, price,
    ROW_NUMBER() OVER (PARTITION BY category ORDER BY price) AS rn
  FROM prices)
WHERE rn <= 2;
-- p2 (20) leads, p3 (25) second; p2 to 35 falls out (p1 moves in); p3 deleted: p1 up,
-- p2 back; p1 to 10: the same rank, new price
SELECT * FROM (
  SELECT category, product, price,
    ROW_NUMBER() OVER (PARTITION BY category ORDER BY price) AS rn
  FROM prices)
WHERE rn <= 2;
SELECT product, price FROM (
  SELECT category, product, price,
    ROW_NUMBER() OVER (PARTITION BY category ORDER BY price) AS rn
  FROM prices)
WHERE rn <= 2;

-- the state TTL shows on the Rank
SET 'table.exec.state.ttl' = '1 h';
EXPLAIN SELECT * FROM (
  SELECT category, product, price,
    ROW_NUMBER() OVER (PARTITION BY category ORDER BY price DESC) AS rn
  FROM shop)
WHERE rn <= 2;
RESET 'table.exec.state.ttl';

-- RANK() and DENSE_RANK() plan as Flink plans them and are refused on streams
EXPLAIN SELECT * FROM (
  SELECT category, product, price, RANK() OVER (PARTITION BY category ORDER BY price) AS rk
  FROM shop)
WHERE rk <= 2;
SELECT * FROM (
  SELECT category, product, price, RANK() OVER (PARTITION BY category ORDER BY price) AS rk
  FROM shop)
WHERE rk <= 2;
SELECT * FROM (
  SELECT category, product, price, DENSE_RANK() OVER (PARTITION BY category ORDER BY price) AS rk
  FROM shop)
WHERE rk <= 2;

-- a filter without an upper bound, no filter at all, an empty range
SELECT * FROM (
  SELECT product, ROW_NUMBER() OVER (ORDER BY price) AS rn FROM shop)
WHERE rn > 2;
SELECT * FROM (
  SELECT product, ROW_NUMBER() OVER (ORDER BY price) AS rn FROM shop);
SELECT * FROM (
  SELECT product, ROW_NUMBER() OVER (ORDER BY price) AS rn FROM shop)
WHERE rn <= 3 AND rn > 5;
SELECT product, ROW_NUMBER() OVER (PARTITION BY category) AS rn FROM shop;

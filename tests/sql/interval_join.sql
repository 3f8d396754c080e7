-- interval_join.sql - interval joins (Flink's IntervalJoin): the examples of
-- seed articles 003 and 000 verbatim on small files (tests/sql/data/
-- interval_orders.json, interval_payments.json: the columns of
-- sample-data's orders and payments), their plans, outer joins, the bounds
-- Flink derives from each way of writing the condition, and the joins that
-- stay regular joins (a bound on a plain TIMESTAMP, an updating input).
-- Each payment is placed on an edge of the intervals below: at the order
-- time, 10 minutes after it, 10 minutes and 1 ms after it, 10 minutes
-- before it, 10 minutes and 1 ms before it; one has a NULL order_id, one a
-- dangling one. The files are small, so each is read in one batch and no
-- row is behind the watermark: the results are the batch join's.

-- Seed 003 (section 2): orders and payments with rowtime attributes.
CREATE TABLE orders (
  order_id BIGINT,
  order_time TIMESTAMP(3),
  rowtime AS order_time,
  WATERMARK FOR rowtime AS rowtime - INTERVAL '5' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'tests/sql/data/interval_orders.json',
  'format' = 'json'
);

CREATE TABLE payments (
  payment_id BIGINT,
  order_id BIGINT,
  pay_time TIMESTAMP(3),
  pay_id AS payment_id,
  rowtime AS pay_time,
  WATERMARK FOR rowtime AS rowtime - INTERVAL '5' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'tests/sql/data/interval_payments.json',
  'format' = 'json'
);

-- The payment from 10 minutes before to 5 minutes after the order:
-- o.rowtime - p.rowtime in [-5 min, 10 min].
EXPLAIN SELECT
    o.order_id,
    p.pay_id
FROM orders o
JOIN payments p
ON o.order_id = p.order_id
AND p.rowtime BETWEEN o.rowtime - INTERVAL '10' MINUTE
                  AND o.rowtime + INTERVAL '5' MINUTE;

-- Matches: 1-1 (same time), 2-2 (30 s before), 1-3 (5 min after), 5-6,
-- 6-7 (10 min before), 7-11, 8-13, 9-15 (10 min before); not 9-14 (1 ms
-- more), 3-4, 4-5, 7-10, 8-12 (more than 5 min after).
SELECT
    o.order_id,
    p.pay_id
FROM orders o
JOIN payments p
ON o.order_id = p.order_id
AND p.rowtime BETWEEN o.rowtime - INTERVAL '10' MINUTE
                  AND o.rowtime + INTERVAL '5' MINUTE;

-- The article's other way of writing it gives the same bounds and rows.
EXPLAIN SELECT
    o.order_id,
    p.pay_id
FROM orders o
JOIN payments p
ON o.order_id = p.order_id
AND o.rowtime BETWEEN p.rowtime - INTERVAL '5' MINUTE
                  AND p.rowtime + INTERVAL '10' MINUTE;

SELECT
    o.order_id,
    p.pay_id
FROM orders o
JOIN payments p
ON o.order_id = p.order_id
AND o.rowtime BETWEEN p.rowtime - INTERVAL '5' MINUTE
                  AND p.rowtime + INTERVAL '10' MINUTE;

-- Outer joins: unmatched rows are padded when their interval has passed
-- (here at the end of input), so nothing is ever retracted.
SELECT o.order_id, p.pay_id
FROM orders o LEFT JOIN payments p
ON o.order_id = p.order_id
AND p.rowtime BETWEEN o.rowtime - INTERVAL '10' MINUTE AND o.rowtime + INTERVAL '5' MINUTE;

SELECT o.order_id, p.pay_id
FROM orders o RIGHT JOIN payments p
ON o.order_id = p.order_id
AND p.rowtime BETWEEN o.rowtime - INTERVAL '10' MINUTE AND o.rowtime + INTERVAL '5' MINUTE;

EXPLAIN SELECT o.order_id, p.pay_id
FROM orders o FULL JOIN payments p
ON o.order_id = p.order_id
AND p.rowtime BETWEEN o.rowtime - INTERVAL '10' MINUTE AND o.rowtime + INTERVAL '5' MINUTE;

SELECT o.order_id, p.pay_id
FROM orders o FULL JOIN payments p
ON o.order_id = p.order_id
AND p.rowtime BETWEEN o.rowtime - INTERVAL '10' MINUTE AND o.rowtime + INTERVAL '5' MINUTE;

-- Strict comparisons move each bound by 1 ms: 0 < p - o < 10 min gives
-- [-599999, -1]; 1-3, 5-6, 7-11 and 8-13 match, 1-1 (equal) does not.
EXPLAIN SELECT o.order_id, p.pay_id FROM orders o, payments p
WHERE o.order_id = p.order_id AND p.rowtime > o.rowtime
  AND p.rowtime < o.rowtime + INTERVAL '10' MINUTE;

SELECT o.order_id, p.pay_id FROM orders o, payments p
WHERE o.order_id = p.order_id AND p.rowtime > o.rowtime
  AND p.rowtime < o.rowtime + INTERVAL '10' MINUTE;

-- Equal times: bounds 0 and 0 (1-1 only).
SELECT o.order_id, p.pay_id FROM orders o JOIN payments p
ON o.order_id = p.order_id AND o.rowtime = p.rowtime;

-- Operands written either way round, with a fractional second: p - 1.5 s
-- <= o and p + 1 min >= o give o - p in [-1500, 60000]; the residual
-- p.pay_id > o.order_id stays in where=[...]. In the bounds: 1-1 (0), 2-2
-- (+30 s), 7-11 (-1 s); the residual keeps 7-11 only.
EXPLAIN SELECT o.order_id, p.pay_id FROM orders o JOIN payments p
ON o.order_id = p.order_id AND p.rowtime - INTERVAL '1.5' SECOND <= o.rowtime
  AND p.rowtime + INTERVAL '1' MINUTE >= o.rowtime AND p.pay_id > o.order_id;

SELECT o.order_id, p.pay_id FROM orders o JOIN payments p
ON o.order_id = p.order_id AND p.rowtime - INTERVAL '1.5' SECOND <= o.rowtime
  AND p.rowtime + INTERVAL '1' MINUTE >= o.rowtime AND p.pay_id > o.order_id;

-- Two lower bounds (p - 1 ms <= o and o + 1 min >= p both bound o - p from
-- below) bound nothing from above: a regular join.
EXPLAIN SELECT o.order_id, p.pay_id FROM orders o JOIN payments p
ON o.order_id = p.order_id AND p.rowtime - INTERVAL '0.001' SECOND <= o.rowtime
  AND o.rowtime + INTERVAL '1' MINUTE >= p.rowtime;

-- Without an equi key both inputs go to one subtask (single exchanges).
EXPLAIN SELECT o.order_id, p.pay_id FROM orders o JOIN payments p
ON p.rowtime BETWEEN o.rowtime AND o.rowtime + INTERVAL '1' SECOND;

SELECT o.order_id, p.pay_id FROM orders o JOIN payments p
ON p.rowtime BETWEEN o.rowtime AND o.rowtime + INTERVAL '1' SECOND;

-- One time predicate alone bounds nothing: a regular join (Flink's
-- testInteravlJoinSingleTimeCondition).
EXPLAIN SELECT o.order_id, p.pay_id FROM orders o JOIN payments p
ON o.order_id = p.order_id AND p.rowtime >= o.rowtime;

-- A bound on a column that is not a time attribute (Nexmark q4's
-- `B.dateTime BETWEEN A.dateTime AND A.expires`): a regular join.
CREATE TABLE orders_due (
  order_id BIGINT,
  order_time TIMESTAMP(3),
  expires AS order_time + INTERVAL '10' MINUTE,
  WATERMARK FOR order_time AS order_time - INTERVAL '5' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'tests/sql/data/interval_orders.json',
  'format' = 'json'
);

EXPLAIN SELECT o.order_id, p.pay_id FROM orders_due o, payments p
WHERE o.order_id = p.order_id AND p.rowtime BETWEEN o.order_time AND o.expires;

-- An updating input (a LEFT JOIN below): a regular join, as Flink 2.1+ plans it.
EXPLAIN SELECT a.order_id, p.pay_id
FROM (SELECT x.order_id, x.rowtime FROM orders x LEFT JOIN orders y ON x.order_id = y.order_id + 1) a
JOIN payments p ON a.order_id = p.order_id
AND p.rowtime BETWEEN a.rowtime - INTERVAL '10' MINUTE AND a.rowtime + INTERVAL '5' MINUTE;

-- MultiJoin fusion leaves the interval join binary; the regular joins above it
-- on the same key fuse.
SET 'table.optimizer.multi-join.enabled' = 'true';

EXPLAIN SELECT o.order_id, p.pay_id, q.pay_id AS q_id, r.pay_id AS r_id
FROM orders o
JOIN payments p ON o.order_id = p.order_id
  AND p.rowtime BETWEEN o.rowtime - INTERVAL '10' MINUTE AND o.rowtime + INTERVAL '5' MINUTE
JOIN payments q ON o.order_id = q.order_id
JOIN payments r ON o.order_id = r.order_id;

SET 'table.optimizer.multi-join.enabled' = 'false';

-- Processing time: isRowTime=false.
CREATE TABLE clicks (user_id BIGINT, url STRING, pt AS PROCTIME()) WITH (
  'connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE views (user_id BIGINT, page STRING, pt AS PROCTIME()) WITH (
  'connector' = 'datagen', 'number-of-rows' = '10');

EXPLAIN SELECT c.user_id, v.page FROM clicks c JOIN views v
ON c.user_id = v.user_id AND c.pt BETWEEN v.pt - INTERVAL '1' HOUR AND v.pt + INTERVAL '1' HOUR;

-- Rowtime attributes of different types (Flink's testIntervalJoinOnDiffRowTimeType).
CREATE TABLE payments_ltz (
  order_id BIGINT,
  pay_millis BIGINT,
  rowtime AS TO_TIMESTAMP_LTZ(pay_millis, 3),
  WATERMARK FOR rowtime AS rowtime - INTERVAL '0.001' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'tests/sql/data/interval_payments.json',
  'format' = 'json'
);

SELECT o.order_id FROM orders o JOIN payments_ltz p ON o.order_id = p.order_id
AND o.rowtime > p.rowtime - INTERVAL '5' SECOND AND o.rowtime < p.rowtime + INTERVAL '5' SECOND;

DROP TABLE orders;
DROP TABLE payments;

-- Seed 000 (section 3.2): its orders DDL (connector replaced by the file) and
-- payments with sample-data's columns, the query verbatim: payments from the
-- order time to 10 minutes after it. Matches: 1-1, 1-3, 3-4 (10 min exactly),
-- 5-6, 7-10 (10 min exactly), 7-11, 8-12, 8-13; not 4-5 (1 ms more).
CREATE TABLE orders ( order_id BIGINT, user_id BIGINT, product_id BIGINT, amount DECIMAL(10, 2), order_time TIMESTAMP(3), WATERMARK FOR order_time AS order_time - INTERVAL '5' SECONDS, PRIMARY KEY (order_id) NOT ENFORCED ) WITH ( 'connector' = 'filesystem', 'path' = 'tests/sql/data/interval_orders.json', 'format' = 'json' );

CREATE TABLE payments (
  payment_id BIGINT,
  order_id BIGINT,
  pay_time TIMESTAMP(3),
  pay_amount DECIMAL(10, 2),
  method STRING,
  WATERMARK FOR pay_time AS pay_time - INTERVAL '5' SECONDS
) WITH (
  'connector' = 'filesystem',
  'path' = 'tests/sql/data/interval_payments.json',
  'format' = 'json'
);

EXPLAIN SELECT o.order_id, o.amount, p.pay_time FROM orders AS o JOIN payments AS p ON o.order_id = p.order_id AND p.pay_time BETWEEN o.order_time AND o.order_time + INTERVAL '10' MINUTE;

SELECT o.order_id, o.amount, p.pay_time FROM orders AS o JOIN payments AS p ON o.order_id = p.order_id AND p.pay_time BETWEEN o.order_time AND o.order_time + INTERVAL '10' MINUTE;

-- PLAN_ADVICE on a regular join of two unbounded append-only streams with
-- rowtime attributes (datagen): keep rows forever (the warning) or bound
-- the join in time (the advice, seed 003's rule of thumb).
CREATE TABLE order_stream (order_id BIGINT, order_time TIMESTAMP(3),
  WATERMARK FOR order_time AS order_time - INTERVAL '5' SECOND) WITH ('connector' = 'datagen');
CREATE TABLE pay_stream (order_id BIGINT, pay_time TIMESTAMP(3),
  WATERMARK FOR pay_time AS pay_time - INTERVAL '5' SECOND) WITH ('connector' = 'datagen');

EXPLAIN PLAN_ADVICE SELECT o.order_id, p.pay_time FROM order_stream AS o
JOIN pay_stream AS p ON o.order_id = p.order_id;

-- As an interval join: no advice (its state is freed by the watermark).
EXPLAIN PLAN_ADVICE SELECT o.order_id, p.pay_time FROM order_stream AS o
JOIN pay_stream AS p ON o.order_id = p.order_id
AND p.pay_time BETWEEN o.order_time AND o.order_time + INTERVAL '10' MINUTE;

-- Flink's IntervalJoinTestPrograms (event time, and the negative interval), their
-- rows before and after the restore in one file each: orders 1, 2, 5 and 10 meet
-- a shipment within 5 s; with the bounds the wrong way round (+10 s .. +5 s)
-- nothing matches and every order is padded.
CREATE TABLE orders_t (id INT, order_ts_str STRING, order_ts AS TO_TIMESTAMP(order_ts_str),
  WATERMARK for `order_ts` AS `order_ts` - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = 'tests/sql/data/interval_orders_t.json', 'format' = 'json');
CREATE TABLE shipments_t (id INT, order_id INT, shipment_ts_str STRING,
  shipment_ts AS TO_TIMESTAMP(shipment_ts_str),
  WATERMARK for `shipment_ts` AS `shipment_ts` - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = 'tests/sql/data/interval_shipments_t.json', 'format' = 'json');

SELECT
     o.id AS order_id,
     o.order_ts_str,
     s.shipment_ts_str
 FROM orders_t o
 JOIN shipments_t s ON o.id = s.order_id
 WHERE o.order_ts BETWEEN s.shipment_ts - INTERVAL '5' SECOND AND s.shipment_ts + INTERVAL '5' SECOND;

EXPLAIN SELECT
     o.id AS order_id,
     o.order_ts_str,
     s.shipment_ts_str
 FROM orders_t o LEFT OUTER JOIN shipments_t s
 ON o.id = s.order_id
 AND o.order_ts BETWEEN s.shipment_ts + INTERVAL '10' SECOND AND s.shipment_ts + INTERVAL '5' SECOND;

SELECT
     o.id AS order_id,
     o.order_ts_str,
     s.shipment_ts_str
 FROM orders_t o LEFT OUTER JOIN shipments_t s
 ON o.id = s.order_id
 AND o.order_ts BETWEEN s.shipment_ts + INTERVAL '10' SECOND AND s.shipment_ts + INTERVAL '5' SECOND;

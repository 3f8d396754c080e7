-- The jobs of run.sh, each the INSERT after its "-- name" line; the line
-- "-- name: ..." gives the sink's columns (the CREATE TABLE sink line), "-- name2: ..."
-- those of a second sink, sink2 (a statement set's job writes both).
-- aggregate: (user_id BIGINT, orders BIGINT, amount INT);
-- aggregate
INSERT INTO sink SELECT user_id, COUNT(*) AS orders, SUM(amount) FROM orders GROUP BY user_id;
-- join: (order_id BIGINT, user_id BIGINT, region INT);
-- join
INSERT INTO sink SELECT o.order_id, o.user_id, u.region FROM orders o LEFT JOIN users u ON o.user_id = u.user_id;
-- multijoin: (order_id BIGINT, region INT, total INT);
-- multijoin
INSERT INTO sink SELECT o.order_id, u.region, p.total FROM orders o JOIN users u ON o.user_id = u.user_id JOIN (SELECT user_id, SUM(paid) AS total FROM payments GROUP BY user_id) p ON p.user_id = o.user_id;
-- interval: (order_id BIGINT, payment_id BIGINT, paid INT);
-- interval
INSERT INTO sink SELECT o.order_id, p.payment_id, p.paid FROM orders_t o LEFT JOIN payments_t p ON o.user_id = p.user_id AND p.rowtime BETWEEN o.rowtime - INTERVAL '10' MINUTE AND o.rowtime + INTERVAL '5' MINUTE;
-- set: (user_id BIGINT, orders BIGINT, amount INT);
-- set2: (user_id BIGINT, doubled INT);
-- set
EXECUTE STATEMENT SET BEGIN INSERT INTO sink SELECT user_id, COUNT(*) AS orders, SUM(amount) FROM orders GROUP BY user_id; INSERT INTO sink2 SELECT user_id, amount * 2 FROM orders; END;

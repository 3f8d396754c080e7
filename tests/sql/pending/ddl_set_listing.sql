-- pending/ddl_set_listing.sql - not yet golden:
-- 1. (fixed: SET; prints whole keys, right-aligned, as Flink)
-- 2. (fixed: COMMENT and WITH are on lines of their own now)
--    Computed columns and watermarks are printed as written (price * qty,
--    ts - INTERVAL '5' SECOND); Flink prints them serialized with quoted
--    identifiers (`price` * `qty`, `ts` - INTERVAL '5' SECOND), also in
--    DESCRIBE's extras/watermark columns.
-- 3. total AS price * qty with price DECIMAL(10, 2), qty INT is typed
--    DECIMAL(18, 2); Flink derives DECIMAL(20, 2) (p1 + p2, s1 + s2).
SET 'table.exec.state.ttl' = '2 h';
SET;
CREATE TABLE events (
  id       BIGINT NOT NULL,
  price    DECIMAL(10, 2),
  qty      INT,
  total    AS price * qty,
  ts       TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND,
  PRIMARY KEY (id) NOT ENFORCED
) COMMENT 'shop events' WITH (
  'connector' = 'datagen',
  'number-of-rows' = '5'
);
DESCRIBE events;
SHOW CREATE TABLE events;

-- q13 (nexmark-flink queries/q13.sql at commit 6b3646c): bounded side input join: each bid
-- enriched from a side-input file (a processing-time temporal join).
-- The SQL is upstream's, unchanged: it reads the person, auction and bid views of
-- ddl.sql, whose columns are upstream's.
-- scripts/run-nexmark.sh replaces ${FLINK_HOME} with a folder holding the side input file.

CREATE TABLE side_input (
  key BIGINT,
  `value` VARCHAR
) WITH (
  'connector.type' = 'filesystem',
  'connector.path' = 'file://${FLINK_HOME}/data/side_input.txt',
  'format.type' = 'csv'
);

CREATE TABLE nexmark_q13 (
  auction  BIGINT,
  bidder  BIGINT,
  price  BIGINT,
  `dateTime`  TIMESTAMP(3),
  `value`  VARCHAR
) WITH (
  'connector' = 'blackhole'
);

INSERT INTO nexmark_q13
SELECT
    B.auction,
    B.bidder,
    B.price,
    B.`dateTime`,
    S.`value`
FROM (SELECT *, PROCTIME() as p_time FROM bid) B
JOIN side_input FOR SYSTEM_TIME AS OF B.p_time AS S
ON mod(B.auction, 10000) = S.key;

-- q0 (nexmark-flink queries/q0.sql at commit 6b3646c): pass-through: every bid, five of its
-- columns (measures the source and sink alone).
-- The SQL is upstream's, unchanged: it reads the person, auction and bid views of
-- ddl.sql, whose columns are upstream's.

CREATE TABLE nexmark_q0 (
  auction  BIGINT,
  bidder  BIGINT,
  price  BIGINT,
  `dateTime`  TIMESTAMP(3),
  extra  VARCHAR
) WITH (
  'connector' = 'blackhole'
);

INSERT INTO nexmark_q0
SELECT auction, bidder, price, `dateTime`, extra FROM bid;

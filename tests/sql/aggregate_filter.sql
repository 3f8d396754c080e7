-- aggregate_filter.sql - agg(...) FILTER (WHERE condition): each call reads only the rows
-- whose condition is TRUE (FALSE and NULL skip it; the group still exists, so COUNT gives
-- 0 and SUM NULL over no passing row). The condition is a BOOLEAN field of the Calc below
-- the aggregate, `(condition) IS TRUE` when it is nullable (Calcite's conversion), shared
-- by the calls with the same condition; EXPLAIN prints `COUNT(*) FILTER $f2 AS ...` as
-- Flink's DistinctAggregateTest.xml (testAggWithFilterClause) does. Over a debezium
-- changelog (updates -U/+U, deletes -D), in GroupAggregate, with DISTINCT, the distinct
-- split, two phases, window TVF and legacy group windows. Every change checked by hand.
CREATE TABLE bids (id INT, bidder STRING, price BIGINT, channel STRING) WITH (
  'connector' = 'filesystem', 'path' = 'tests/sql/data/aggregate_filter_bids.debezium.json',
  'format' = 'debezium-json');

SET 'sql-client.execution.result-mode' = 'changelog';

EXPLAIN SELECT channel, COUNT(*) AS n, COUNT(*) FILTER (WHERE price < 10) AS cheap,
  COUNT(DISTINCT bidder) FILTER (WHERE price < 10) AS cheap_bidders,
  SUM(price) FILTER (WHERE price >= 10) AS dear_sum, MAX(price) FILTER (WHERE bidder = 'a') AS a_max
FROM bids GROUP BY channel;

-- x: a 5 (cheap 1, bidders {a}), b 50 (dear 50), a 8 (cheap 2, bidders still {a}),
-- b 50 -> 7 (dear back to NULL, cheap 3, bidders {a, b}), a 8 deleted (cheap 2, bidders
-- {a, b}: a's 5 remains); a_max 5, 8, back to 5. y: c NULL (no call passes: cheap 0,
-- bidders 0, dear NULL, a_max NULL), a 100 (dear 100, a_max 100)
SELECT channel, COUNT(*) AS n, COUNT(*) FILTER (WHERE price < 10) AS cheap,
  COUNT(DISTINCT bidder) FILTER (WHERE price < 10) AS cheap_bidders,
  SUM(price) FILTER (WHERE price >= 10) AS dear_sum, MAX(price) FILTER (WHERE bidder = 'a') AS a_max
FROM bids GROUP BY channel;

-- a condition that is never NULL is the field itself (no IS TRUE); the same call with and
-- without FILTER are two calls
EXPLAIN SELECT COUNT(bidder) AS c, COUNT(bidder) FILTER (WHERE id IS NOT NULL AND id > 1) AS c2 FROM bids;
SELECT COUNT(bidder) AS c, COUNT(bidder) FILTER (WHERE price IS NOT NULL) AS priced FROM bids;

-- errors
SELECT COUNT(*) FILTER (WHERE price) FROM bids;
SELECT UPPER(bidder) FILTER (WHERE price > 1) FROM bids;
SELECT COUNT(*) FILTER (WHERE COUNT(*) > 1) FROM bids;
SELECT COUNT(*) FILTER (WHERE price > 1) OVER (ORDER BY proctime) FROM (SELECT *, PROCTIME() AS proctime FROM bids);

-- the distinct split (Flink's SplitAggregateRule): the partial aggregate by channel and
-- the bucket keeps the FILTERs, the final one sums what they counted
SET 'table.optimizer.distinct-agg.split.enabled' = 'true';
EXPLAIN SELECT channel, COUNT(DISTINCT bidder) FILTER (WHERE price < 10) AS cheap_bidders,
  SUM(price) FILTER (WHERE price >= 10) AS dear_sum
FROM bids GROUP BY channel;
-- final state as above: x (2, NULL), y (0, 100)
SELECT channel, COUNT(DISTINCT bidder) FILTER (WHERE price < 10) AS cheap_bidders,
  SUM(price) FILTER (WHERE price >= 10) AS dear_sum
FROM bids GROUP BY channel;
RESET 'table.optimizer.distinct-agg.split.enabled';

-- two phases: the LocalGroupAggregate applies the FILTER, the GlobalGroupAggregate merges
SET 'table.exec.mini-batch.enabled' = 'true';
SET 'table.exec.mini-batch.allow-latency' = '1 s';
SET 'table.exec.mini-batch.size' = '100';
EXPLAIN SELECT channel, COUNT(*) FILTER (WHERE price < 10) AS cheap,
  SUM(price) FILTER (WHERE price >= 10) AS dear_sum FROM bids GROUP BY channel;
-- one batch: x (2, NULL), y (0, 100)
SELECT channel, COUNT(*) FILTER (WHERE price < 10) AS cheap,
  SUM(price) FILTER (WHERE price >= 10) AS dear_sum FROM bids GROUP BY channel;
RESET 'table.exec.mini-batch.enabled';

CREATE TABLE events (uuid STRING, event_code INT, ip STRING, rowtime TIMESTAMP(3),
  WATERMARK FOR rowtime AS rowtime - INTERVAL '1' MINUTE)
WITH ('connector' = 'filesystem', 'path' = 'tests/sql/data/window_distinct_events.json',
  'format' = 'json');

-- window TVF: per uuid and 3 minutes, the events with code 21001 and their distinct ips
EXPLAIN SELECT uuid, window_start, COUNT(*) AS n, COUNT(*) FILTER (WHERE event_code = 21001) AS hits,
  COUNT(DISTINCT ip) FILTER (WHERE event_code = 21001) AS hit_ips
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(rowtime), INTERVAL '3' MINUTE))
GROUP BY uuid, window_start, window_end;
SELECT uuid, window_start, COUNT(*) AS n, COUNT(*) FILTER (WHERE event_code = 21001) AS hits,
  COUNT(DISTINCT ip) FILTER (WHERE event_code = 21001) AS hit_ips
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(rowtime), INTERVAL '3' MINUTE))
GROUP BY uuid, window_start, window_end;

-- the legacy group window: the same counts
EXPLAIN SELECT uuid, TUMBLE_START(rowtime, INTERVAL '3' MINUTE) AS ws,
  COUNT(*) FILTER (WHERE event_code = 21001) AS hits,
  COUNT(DISTINCT ip) FILTER (WHERE event_code = 21001) AS hit_ips
FROM events GROUP BY uuid, TUMBLE(rowtime, INTERVAL '3' MINUTE);
SELECT uuid, TUMBLE_START(rowtime, INTERVAL '3' MINUTE) AS ws,
  COUNT(*) FILTER (WHERE event_code = 21001) AS hits,
  COUNT(DISTINCT ip) FILTER (WHERE event_code = 21001) AS hit_ips
FROM events GROUP BY uuid, TUMBLE(rowtime, INTERVAL '3' MINUTE);

-- udf_aggregate.sql - user-defined aggregate functions written in C (joinery_udf.h's
-- JOINERY_UDF_AGGREGATE, Flink's AggregateFunction: init / accumulate / retract /
-- get_value over an accumulator of fixed size kept in the GroupAggregate's state): an
-- append-only input, an updating one (a debezium changelog: retract gives exact results),
-- mini-batch (two phases with merge, one without), NULL arguments, EXPLAIN, an error the
-- function returns, and the refusals: no retract over an updating input, a bad
-- descriptor. The functions are tests/udf/test_udfs.c.
CREATE FUNCTION weighted_avg AS 'weighted_avg' LANGUAGE C USING JAR 'build/udf/libjoinery_test_udf.so';
CREATE FUNCTION product_append AS 'product_append' LANGUAGE C USING JAR 'build/udf/libjoinery_test_udf.so';
CREATE TEMPORARY FUNCTION count_nulls AS 'count_nulls' LANGUAGE C USING JAR 'build/udf/libjoinery_test_udf.so';
CREATE FUNCTION aggregate_no_value AS 'aggregate_no_value' LANGUAGE C USING JAR 'build/udf/libjoinery_test_udf.so';

SET 'sql-client.execution.result-mode' = 'changelog';

CREATE TEMPORARY VIEW t AS SELECT * FROM (VALUES ('a', 10, 1), ('a', 20, 3), ('b', 7, 2),
  ('b', CAST(NULL AS INT), 4), ('a', 5, 0)) AS v(k, v, w);

-- append input: a = (10*1 + 20*3 + 5*0) / 4 = 17 (integer division), b = 14 / 2 = 7 (the
-- NULL value's row is skipped: not called on NULL input); the products of the non-NULL v;
-- count_nulls is called on NULL input: b has one
EXPLAIN SELECT k, weighted_avg(v, w), product_append(v) AS p FROM t GROUP BY k;
SELECT k, weighted_avg(v, w) AS wavg, product_append(v) AS p, count_nulls(v) AS nulls
FROM t GROUP BY k;
-- a global aggregate (no GROUP BY): (70 + 14 + 0) / 6 = 14
SELECT weighted_avg(v, w) AS wavg, product_append(v) AS p FROM t;
-- one argument cast to the declared BIGINT, a second one an expression
SELECT k, weighted_avg(CAST(w AS TINYINT), 1) AS avg_w FROM t GROUP BY k;

-- an updating input (debezium): a = 10*1 + 20*3 -> 70/4 = 17; id 2 -> (40, 1): (10 + 40) / 2
-- = 25; id 1 deleted: 40; id 3 moves b -> a: a (40 + 24) / 4 = 16, b's only row left is id 4
-- (v NULL: skipped, so its weights sum to 0: NULL); id 4 deleted: b deleted (-D)
CREATE TABLE scores (id INT, k STRING, v BIGINT, w INT) WITH (
  'connector' = 'filesystem', 'path' = 'tests/sql/data/udf_aggregate_scores.debezium.json',
  'format' = 'debezium-json');
EXPLAIN SELECT k, weighted_avg(v, w) AS wavg, count_nulls(v) AS nulls FROM scores GROUP BY k;
SELECT k, weighted_avg(v, w) AS wavg, count_nulls(v) AS nulls FROM scores GROUP BY k;
-- over an aggregate's updates: the average of the per-key counts weighted by 1
SELECT weighted_avg(n, 1) AS avg_n FROM (SELECT k, COUNT(*) AS n FROM scores GROUP BY k);

-- mini-batch: two phases, as Flink's LocalGroupAggregate / GlobalGroupAggregate, since
-- weighted_avg declares merge: the local phase folds each batch into the function's
-- accumulator bytes (retract for the batch's retractions), the global phase merges them;
-- the batches fold updates away, the final rows are one phase's (a 16, b deleted) and
-- equal the built-in beside it
SET 'table.exec.mini-batch.enabled' = 'true';
SET 'table.exec.mini-batch.allow-latency' = '1 s';
SET 'table.exec.mini-batch.size' = '3';
EXPLAIN SELECT k, weighted_avg(v, w) AS wavg FROM scores GROUP BY k;
SELECT k, weighted_avg(v, w) AS wavg, SUM(v * w) / SUM(v * 0 + w) AS expected FROM scores GROUP BY k;
-- count_nulls has no merge: one phase even with TWO_PHASE asked for (Flink keeps one
-- phase when a call cannot merge); the same rows as without mini-batch
SET 'table.optimizer.agg-phase-strategy' = 'TWO_PHASE';
EXPLAIN SELECT k, count_nulls(v) AS nulls, COUNT(*) AS n FROM scores GROUP BY k;
SELECT k, count_nulls(v) AS nulls, COUNT(*) AS n FROM scores GROUP BY k;
RESET 'table.optimizer.agg-phase-strategy';
RESET 'table.exec.mini-batch.enabled';
RESET 'table.exec.mini-batch.allow-latency';
RESET 'table.exec.mini-batch.size';

-- an error the function returns (a negative weight) fails the job naming the arguments
SELECT k, weighted_avg(v, w - 3) AS wavg FROM t GROUP BY k;

-- inside an expression of a global aggregate: 14 + 1 once all rows are in
SELECT weighted_avg(v, w) + 1 AS x, COUNT(*) AS n FROM t;
-- refused: no retract over an updating input (window aggregates: udf_aggregate_window.sql,
-- OVER: udf_aggregate_over.sql, DISTINCT and FILTER: udf_aggregate_distinct.sql);
-- an aggregate in WHERE; a descriptor without get_value (at CREATE FUNCTION, above)
SELECT k, product_append(v) AS p FROM scores GROUP BY k;
SELECT product_append(v) FROM t WHERE product_append(v) IS NULL;
-- the distinct split (partial / final aggregates) is not built for it
SET 'table.optimizer.distinct-agg.split.enabled' = 'true';
SELECT k, COUNT(DISTINCT v) AS dv, weighted_avg(v, w) AS wavg FROM t GROUP BY k;
RESET 'table.optimizer.distinct-agg.split.enabled';

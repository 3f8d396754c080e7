-- variance.sql - STDDEV_POP, STDDEV_SAMP, VAR_POP, VAR_SAMP and Flink's aliases STDDEV
-- (= STDDEV_SAMP) and VARIANCE (= VAR_SAMP), bound as Flink's AggregateReduceFunctionsRule
-- reduces them (engine/plan/bind_variance.c): SUM(x * x), SUM(x) and COUNT(x), and above
-- them (SUM(x * x) - SUM(x) * SUM(x) / COUNT(x)) / COUNT(x) (SAMP: / CASE(COUNT(x) = 1,
-- NULL, COUNT(x) - 1)), POWER(.., 0.5) for STDDEV, cast to the call's type: the
-- argument's (integers divide as integers: INT gives INT), DECIMAL with 6 decimals at
-- least (DECIMAL(18, 6) for DECIMAL(10, 2)). They retract wherever SUM and COUNT do
-- (GroupAggregate, GroupWindowAggregate over an updating input) and run in window TVF
-- aggregation. EXPLAIN as Flink's GroupWindowTest.xml testDecomposableAggFunctions.
-- SAMP over one value is NULL; over no value (only NULLs) every one is NULL.
-- The reduction happens in the binder, so the Abstract Syntax Tree shows the SUM / COUNT
-- calls already (Flink's AST keeps VAR_POP(...), its rule runs after); the optimized and
-- execution plans are Flink's.
CREATE TABLE measures (
  sensor STRING,
  i INT,
  b BIGINT,
  d DOUBLE,
  m DECIMAL(10, 2),
  rt TIMESTAMP(3),
  WATERMARK FOR rt AS rt - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'tests/sql/data/variance_measures.json', 'format' = 'json');

-- Flink's GroupWindowTest testDecomposableAggFunctions (c BIGINT): one SUM(c * c), SUM(c)
-- and COUNT(c) shared by the four calls
EXPLAIN SELECT
    VAR_POP(b),
    VAR_SAMP(b),
    STDDEV_POP(b),
    STDDEV_SAMP(b),
    TUMBLE_START(rt, INTERVAL '15' MINUTE),
    TUMBLE_END(rt, INTERVAL '15' MINUTE)
FROM measures
    GROUP BY TUMBLE(rt, INTERVAL '15' MINUTE);
-- b = 10, 20, 50, 40, NULL, -30, 30, 30: n = 7, SUM 150, SUM(b * b) 7300: VAR_POP =
-- (7300 - 22500 / 7) / 7 = (7300 - 3214) / 7 = 583, VAR_SAMP = 4086 / 6 = 681,
-- STDDEV_POP = CAST(24.14.. AS BIGINT) = 24, STDDEV_SAMP = CAST(26.09.. AS BIGINT) = 26
SELECT
    VAR_POP(b),
    VAR_SAMP(b),
    STDDEV_POP(b),
    STDDEV_SAMP(b),
    TUMBLE_START(rt, INTERVAL '15' MINUTE),
    TUMBLE_END(rt, INTERVAL '15' MINUTE)
FROM measures
    GROUP BY TUMBLE(rt, INTERVAL '15' MINUTE);

-- GroupAggregate per sensor, every change: INT (integer arithmetic), DOUBLE and DECIMAL.
-- s1's i = 1, 2, 4: VAR_POP (21 - 49 / 3) / 3 = 1, VAR_SAMP 5 / 2 = 2; s2's NULL leaves it
-- as it was (one value: SAMP NULL, no change: no row); s3's i = -3, 3, 3: (27 - 9 / 3) / 3
-- = 8, 24 / 2 = 12
SELECT sensor, VAR_POP(i) AS vp, VAR_SAMP(i) AS vs, STDDEV_POP(i) AS sp, STDDEV_SAMP(i) AS ss,
  STDDEV(i) AS sd, VARIANCE(i) AS va
FROM measures GROUP BY sensor;
-- d: s1 = 1, 2, 4 -> VAR_POP 14/9 = 1.5555.., STDDEV_SAMP sqrt(7/3) = 1.5275..
EXPLAIN SELECT sensor, VAR_POP(d) AS vp, STDDEV_SAMP(d) AS ss, VAR_SAMP(m) AS vs,
  STDDEV_POP(m) AS sp FROM measures GROUP BY sensor;
SELECT sensor, VAR_POP(d) AS vp, STDDEV_SAMP(d) AS ss, VAR_SAMP(m) AS vs,
  STDDEV_POP(m) AS sp FROM measures GROUP BY sensor;

-- DISTINCT goes to the three aggregates, as Flink's reduction puts it: SUM(DISTINCT x * x)
-- dedupes the squares, so s3's -3 and 3 count once there: (9 - 0 / 2) / 2 = 4 and 9 / 1 = 9
-- (the variance of {-3, 3} itself is 9 and 18)
SELECT sensor, VAR_POP(DISTINCT i) AS vp, VAR_SAMP(DISTINCT i) AS vs, COUNT(DISTINCT i) AS n
FROM measures WHERE sensor = 's3' GROUP BY sensor;

-- retraction over an updating input: the variance of the per-sensor counts as they change
-- (final counts 3, 2, 3: VAR_POP (22 - 64 / 3) / 3 = 1 / 3 = 0, VAR_SAMP 1 / 2 = 0, BIGINT)
SELECT VAR_POP(cnt) AS vp, VAR_SAMP(cnt) AS vs, COUNT(*) AS sensors
FROM (SELECT sensor, COUNT(*) AS cnt FROM measures GROUP BY sensor);
-- the same over DOUBLE: (22 - 64 / 3) / 3 = 0.2222.. and SQRT(1 / 3)
SELECT VAR_POP(avg_d) AS vp, STDDEV_SAMP(avg_d) AS ss
FROM (SELECT sensor, CAST(COUNT(*) AS DOUBLE) AS avg_d FROM measures GROUP BY sensor);

-- window TVF aggregation: per minute
SELECT window_start, window_end, VAR_POP(i) AS vp, VAR_SAMP(d) AS vs, STDDEV_POP(m) AS sp,
  STDDEV_SAMP(b) AS ss
FROM TABLE(TUMBLE(TABLE measures, DESCRIPTOR(rt), INTERVAL '1' MINUTE))
GROUP BY window_start, window_end;

-- errors
SELECT STDDEV_POP(sensor) FROM measures;
SELECT VAR_SAMP(i, b) FROM measures;

-- results_expressions.sql - scalar expressions over VALUES, each checked by
-- hand against Flink's semantics (tableau output).

-- CASE, COALESCE, NULLIF, IF.
SELECT
  x,
  CASE WHEN x > 2 THEN 'big' WHEN x > 1 THEN 'mid' ELSE 'low' END AS size,
  CASE x WHEN 1 THEN 'one' WHEN 2 THEN 'two' END AS word,
  COALESCE(y, -1) AS y_or_minus_one,
  NULLIF(x, 2) AS null_if_two,
  IF(x = 3, 'three', 'other') AS if_three
FROM (VALUES (1, 10), (2, CAST(NULL AS INT)), (3, 30)) AS t(x, y);

-- CAST between types.
SELECT
  CAST('42' AS INT) AS s_to_int,
  CAST(42 AS STRING) AS int_to_s,
  CAST(3.99 AS INT) AS dec_to_int,
  CAST('12.345' AS DECIMAL(10, 2)) AS s_to_dec,
  CAST(7 AS DOUBLE) AS int_to_double,
  CAST('2024-06-01' AS DATE) AS s_to_date,
  CAST('2024-06-01 12:34:56.789' AS TIMESTAMP(3)) AS s_to_ts,
  CAST(TRUE AS STRING) AS bool_to_s,
  TRY_CAST('abc' AS INT) AS try_bad;

-- IN, NOT IN, BETWEEN, LIKE.
SELECT
  x,
  x IN (1, 3) AS in_1_3,
  x NOT IN (1, 3) AS not_in_1_3,
  x BETWEEN 2 AND 3 AS between_2_3,
  x NOT BETWEEN 2 AND 3 AS not_between,
  s LIKE 'a%' AS starts_a,
  s LIKE '_b_' AS b_middle,
  s NOT LIKE '%c' AS not_ends_c
FROM (VALUES (1, 'abc'), (2, 'xbz'), (3, 'ab')) AS t(x, s);

-- Three-valued logic and IS [NOT] DISTINCT FROM with NULLs.
SELECT
  a, b,
  a AND b AS a_and_b,
  a OR b AS a_or_b,
  NOT a AS not_a,
  a IS NULL AS a_is_null,
  a IS TRUE AS a_is_true,
  a IS NOT FALSE AS a_is_not_false,
  a IS DISTINCT FROM b AS distinct_ab,
  a IS NOT DISTINCT FROM b AS not_distinct_ab
FROM (VALUES
  (TRUE, TRUE), (TRUE, FALSE), (TRUE, CAST(NULL AS BOOLEAN)),
  (FALSE, CAST(NULL AS BOOLEAN)), (CAST(NULL AS BOOLEAN), CAST(NULL AS BOOLEAN))
) AS t(a, b);

SELECT
  1 = CAST(NULL AS INT) AS eq_null,
  CAST(NULL AS INT) IN (1, 2) AS null_in,
  3 IN (1, CAST(NULL AS INT)) AS in_with_null,
  1 IN (1, CAST(NULL AS INT)) AS in_with_null_hit;

-- Arithmetic: integer division, modulo, decimals, doubles.
SELECT
  7 / 2 AS int_div,
  7 % 3 AS int_mod,
  -7 / 2 AS neg_div,
  7.0 / 2 AS dec_div,
  1.10 + 2.205 AS dec_add,
  CAST(1.5 AS DOUBLE) * 2 AS dbl_mul,
  ABS(-5) AS abs5,
  MOD(10, 4) AS mod10_4;

-- String functions.
SELECT
  UPPER('MixEd') AS up,
  LOWER('MixEd') AS low,
  CHAR_LENGTH('hello') AS len,
  SUBSTRING('streaming', 2, 4) AS sub,
  TRIM('  pad  ') AS trimmed,
  CONCAT('a', 'b', 'c') AS cat,
  'x' || 'y' AS pipes,
  REPLACE('a-b-c', '-', '+') AS repl,
  LTRIM('  l') AS ltrimmed,
  SUBSTR('joinery', 5) AS tail;

-- Dates, timestamps and intervals.
SELECT
  DATE_FORMAT(TIMESTAMP '2024-06-01 08:09:10', 'yyyy/MM/dd HH:mm') AS fmt,
  TO_TIMESTAMP('2024-06-01 08:09:10') AS to_ts,
  TO_TIMESTAMP('01/06/2024', 'dd/MM/yyyy') AS to_ts_fmt,
  TIMESTAMP '2024-06-01 23:30:00' + INTERVAL '45' MINUTE AS plus_45m,
  TIMESTAMP '2024-06-01 00:00:00' - INTERVAL '1' DAY AS minus_1d,
  DATE '2024-02-28' + INTERVAL '1' DAY AS leap_day,
  TIMESTAMP '2024-06-01 00:00:00' + INTERVAL '90' SECOND AS plus_90s,
  INTERVAL '2' HOUR * 3 + TIMESTAMP '2024-06-01 00:00:00' AS plus_6h,
  TIMESTAMP '2024-06-01 10:00:00' < TIMESTAMP '2024-06-01 10:00:01' AS ts_lt;

-- Numeric rounding and date parts.
SELECT
  ROUND(2.567, 2) AS round2,
  FLOOR(2.7) AS floor27,
  CEIL(2.1) AS ceil21,
  YEAR(DATE '2024-06-01') AS yr,
  MONTH(DATE '2024-06-01') AS mon,
  DAYOFMONTH(DATE '2024-06-15') AS dom,
  HOUR(TIMESTAMP '2024-06-01 13:45:00') AS hr;

-- a narrowing integer CAST wraps (70000 -> 4464 as SMALLINT) in WHERE as in SELECT
SELECT a, a = CAST(70000 AS SMALLINT) AS same FROM (VALUES (4464), (5)) AS t(a) WHERE a = CAST(70000 AS SMALLINT);

-- NaN compares with nothing, itself included (only <> holds); as a MAP key it is one key of its own
SELECT CAST('NaN' AS DOUBLE) = CAST('NaN' AS DOUBLE) AS eq, CAST('NaN' AS DOUBLE) <> 1.0 AS ne, CAST('NaN' AS DOUBLE) > 1.0 AS gt, 1.5 = 1.5 AS ok, CARDINALITY(MAP[CAST('NaN' AS DOUBLE), 1, 1.0, 2]) AS n;

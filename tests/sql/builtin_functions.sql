-- builtin_functions.sql - Flink built-in scalar functions beyond the basics,
-- each result checked by hand against Flink's documentation and Calcite's
-- tests (the figures cited beside each query).

-- TIMESTAMPDIFF over one leap year (Calcite's CALCITE-1827 figures:
-- 1 4 12 52 366 8784 527040 31622400).
SELECT
  TIMESTAMPDIFF(YEAR, TIMESTAMP '2019-06-01 07:01:11', TIMESTAMP '2020-06-01 07:01:11') AS y,
  TIMESTAMPDIFF(QUARTER, TIMESTAMP '2019-06-01 07:01:11', TIMESTAMP '2020-06-01 07:01:11') AS q,
  TIMESTAMPDIFF(MONTH, TIMESTAMP '2019-06-01 07:01:11', TIMESTAMP '2020-06-01 07:01:11') AS m,
  TIMESTAMPDIFF(WEEK, TIMESTAMP '2019-06-01 07:01:11', TIMESTAMP '2020-06-01 07:01:11') AS w,
  TIMESTAMPDIFF(DAY, TIMESTAMP '2019-06-01 07:01:11', TIMESTAMP '2020-06-01 07:01:11') AS d,
  TIMESTAMPDIFF(HOUR, TIMESTAMP '2019-06-01 07:01:11', TIMESTAMP '2020-06-01 07:01:11') AS h,
  TIMESTAMPDIFF(MINUTE, TIMESTAMP '2019-06-01 07:01:11', TIMESTAMP '2020-06-01 07:01:11') AS mi,
  TIMESTAMPDIFF(SECOND, TIMESTAMP '2019-06-01 07:01:11', TIMESTAMP '2020-06-01 07:01:11') AS s;

-- Flink's documented examples: 1, then dates and a negative difference (3, 3, -2).
SELECT
  TIMESTAMPDIFF(DAY, TIMESTAMP '2003-01-02 10:00:00', TIMESTAMP '2003-01-03 10:00:00') AS one,
  TIMESTAMPDIFF(DAY, TIMESTAMP '1997-04-25 10:00:00', TIMESTAMP '1997-04-28 10:00:00') AS three,
  TIMESTAMPDIFF(DAY, DATE '1997-04-25', DATE '1997-04-28') AS dates,
  TIMESTAMPDIFF(DAY, TIMESTAMP '1997-04-27 10:00:20', TIMESTAMP '1997-04-25 10:00:00') AS negative,
  TIMESTAMPDIFF(MONTH, TIMESTAMP '2024-01-31 10:00:00', TIMESTAMP '2024-02-29 10:00:00') AS to_month_end,
  TIMESTAMPDIFF(MONTH, TIMESTAMP '2024-01-15 10:00:00', TIMESTAMP '2024-02-15 09:59:59') AS not_quite,
  TIMESTAMPDIFF(second, TIMESTAMP '2024-01-01 00:00:00', CAST(NULL AS TIMESTAMP(3))) AS null_time;

-- TIMESTAMPADD: Flink's documented 2003-01-09, month-end clamping, negative counts.
SELECT
  TIMESTAMPADD(WEEK, 1, DATE '2003-01-02') AS next_week,
  TIMESTAMPADD(MONTH, 1, DATE '2024-01-31') AS leap_feb,
  TIMESTAMPADD(MONTH, 1, TIMESTAMP '2023-01-31 12:30:00') AS feb,
  TIMESTAMPADD(YEAR, 1, TIMESTAMP '2024-02-29 00:00:00') AS no_feb_29,
  TIMESTAMPADD(QUARTER, -1, TIMESTAMP '2024-05-31 08:00:00') AS back_a_quarter,
  TIMESTAMPADD(HOUR, -25, TIMESTAMP '2024-03-01 00:30:00') AS back_25_hours,
  TIMESTAMPADD(SECOND, CAST(NULL AS INT), TIMESTAMP '2024-03-01 00:30:00') AS null_count;

-- Columns, types and EXPLAIN.
CREATE TEMPORARY VIEW spans AS
SELECT * FROM (VALUES
  (TIMESTAMP '2024-01-01 00:00:00', TIMESTAMP '2024-01-01 00:01:30'),
  (TIMESTAMP '2024-01-01 00:00:00', CAST(NULL AS TIMESTAMP(3)))) AS t(a, b);
SELECT a, b, TIMESTAMPDIFF(SECOND, a, b) AS secs, TIMESTAMPADD(MINUTE, 90, a) AS later FROM spans;
EXPLAIN SELECT TIMESTAMPDIFF(SECOND, a, b) AS secs, TIMESTAMPADD(DAY, 2, a) AS later FROM spans;

-- Errors: a unit TIMESTAMPDIFF does not know, a string for a time, sub-day units on a DATE.
SELECT TIMESTAMPDIFF(EPOCH, TIMESTAMP '2024-01-01 00:00:00', TIMESTAMP '2024-01-02 00:00:00');
SELECT TIMESTAMPDIFF(DAY, '2024-01-01', TIMESTAMP '2024-01-02 00:00:00');
SELECT TIMESTAMPADD(HOUR, 1, DATE '2024-01-01');

-- Numeric functions: DOUBLE results with Java's Math special values (NaN,
-- -Infinity), SIGN in the argument's type, NULL in -> NULL out.
SELECT POWER(2, 10) AS p, POWER(2.5, 2) AS p_dec, SQRT(16) AS s, SQRT(-1) AS s_neg,
  EXP(0) AS e, LN(1) AS ln1, LN(0) AS ln0, LOG10(1000) AS l10, LOG2(8) AS l2,
  LOG(EXP(2)) AS l, LOG(2, 1024) AS lb, SQRT(CAST(NULL AS INT)) AS s_null;
SELECT SIGN(-3) AS neg, SIGN(2.50) AS dec, SIGN(CAST(0 AS DOUBLE)) AS zero,
  SIGN(CAST(NULL AS BIGINT)) AS none;
EXPLAIN SELECT POWER(x, 2), LOG(2, x), SIGN(x), SQRT(x) FROM (VALUES (1), (2)) AS t(x);
SELECT SQRT('4');

-- UNIX_TIMESTAMP / FROM_UNIXTIME / TO_DATE in the session time zone, UTC
-- (Flink's documented examples are in UTC+8: 861897600 there is 861926400
-- here); a string that does not parse gives Long.MIN_VALUE / NULL as in
-- Flink, text after the pattern is ignored (SimpleDateFormat.parse).
SELECT UNIX_TIMESTAMP('1997-04-25', 'yyyy-MM-dd') AS r1,
  UNIX_TIMESTAMP('1997-04-25 00:00:10', 'yyyy-MM-dd HH:mm:ss') AS r2,
  UNIX_TIMESTAMP('1997-04-25 00:00:00') AS r3, UNIX_TIMESTAMP('not a time') AS bad,
  UNIX_TIMESTAMP('1969-12-31 23:59:59') AS before_epoch,
  UNIX_TIMESTAMP('2023-08-16 10:56:45', 'yyyy-MM-dd') AS trailing,
  UNIX_TIMESTAMP(CAST(NULL AS STRING)) AS none;
SELECT UNIX_TIMESTAMP() > 1700000000 AS now_is_recent;
SELECT FROM_UNIXTIME(44) AS documented, FROM_UNIXTIME(861897610, 'yyyy/MM/dd HH:mm') AS formatted,
  FROM_UNIXTIME(-1) AS before_epoch, FROM_UNIXTIME(CAST(NULL AS BIGINT)) AS none;
SELECT TO_DATE('2018-03-18') AS documented, TO_DATE('18/03/2018', 'dd/MM/yyyy') AS formatted,
  TO_DATE('garbage') AS bad, TO_DATE('1969-12-31') AS before_epoch;
EXPLAIN SELECT UNIX_TIMESTAMP(), FROM_UNIXTIME(x), TO_DATE('2018-03-18') FROM (VALUES (1)) AS t(x);
SELECT FROM_UNIXTIME(1.5);

-- String functions, counting code points: Flink's documented examples
-- (JavaSQLJavaSQLJavaSQL, ??hi, h, hi??, AA~BB~~CC), UTF-8 text, and NULL for
-- a negative pad length or an empty pad.
SELECT REPEAT('JavaSQL', 3) AS r, REPEAT('x', 0) AS r0, REPEAT('x', -1) AS r_neg,
  REVERSE('Hello') AS rv, REVERSE('añb日') AS rv_utf8, LPAD('hi', 4, '??') AS lp,
  LPAD('hi', 1, '??') AS lp_cut, RPAD('hi', 4, '??') AS rp, RPAD('hi', 1, '??') AS rp_cut,
  LPAD('日本', 5, 'äb') AS lp_utf8, LPAD('hi', -1, '?') AS lp_neg, RPAD('hi', 3, '') AS rp_empty;
SELECT LEFT('Hello World', 5) AS l, LEFT('Hello', -1) AS l_neg, RIGHT('Hello World', 5) AS r,
  RIGHT('日本語', 2) AS r_utf8, LEFT('ab', 10) AS l_long, REPEAT(CAST(NULL AS STRING), 2) AS none,
  CONCAT_WS('~', 'AA', CAST(NULL AS STRING), 'BB', '', 'CC') AS cw,
  CONCAT_WS(CAST(NULL AS STRING), 'a') AS cw_null_separator;
EXPLAIN SELECT LPAD(s, 5, '*'), CONCAT_WS('-', s, s), REVERSE(s), LEFT(s, 1) FROM (VALUES ('a')) AS t(s);
SELECT REPEAT('a', 'b');

-- GREATEST / LEAST over one common type (NULL when any argument is), IFNULL,
-- INSTR (1-based code-point position, 0 when absent).
SELECT GREATEST(1, 5, 3) AS g, LEAST(1, 5, 3) AS l, GREATEST(1, 2.5) AS g_dec,
  LEAST('b', 'a', 'c') AS l_str, GREATEST(1, CAST(NULL AS INT)) AS g_null,
  GREATEST(DATE '2024-01-01', DATE '2023-01-01') AS g_date, IFNULL(CAST(NULL AS INT), 7) AS ifn,
  IFNULL(3, 7) AS ifn_value, INSTR('hello', 'll') AS i, INSTR('日本語', '語') AS i_utf8,
  INSTR('abc', 'z') AS i_absent;
EXPLAIN SELECT GREATEST(x, 2), IFNULL(x, 0), INSTR('ab', 'b') FROM (VALUES (1)) AS t(x);
SELECT GREATEST(1, 'a');

-- LOCATE (POSITION from a start: Flink's position(seek, s, from)), INITCAP
-- (Calcite's: words are runs of ASCII letters and digits), SPLIT_INDEX
-- (parts from 0, empty parts kept, NULL past the last, a character code as
-- separator), ASCII (the first byte, signed: 'é' starts with 0xC3 = -61),
-- CHR (code & 255, '' for a negative code), TRUNCATE (ROUND's type, toward
-- zero), PI.
SELECT LOCATE('b', 'abcb') AS l, LOCATE('b', 'abcb', 3) AS l_from, LOCATE('b', 'abcb', 9) AS l_past,
  LOCATE('語', '日本語本語', 4) AS l_utf8, LOCATE('', 'abc', 2) AS l_empty,
  LOCATE('a', 'abc', -5) AS l_negative, LOCATE('z', 'abc') AS l_absent;
SELECT INITCAP('hello wORLD') AS i, INITCAP('ab-cd ef1gh 9x') AS i_words, INITCAP('') AS i_empty,
  INITCAP('été ÉTÉ') AS i_utf8;
SELECT SPLIT_INDEX('Jack,John,Mary', ',', 2) AS s, SPLIT_INDEX('Jack,John,Mary', ',', 3) AS s_past,
  SPLIT_INDEX('a,,b', ',', 1) AS s_empty_part, SPLIT_INDEX(',a', ',', 0) AS s_leading,
  SPLIT_INDEX('a::b::c', '::', 1) AS s_whole, SPLIT_INDEX('a b', '', 1) AS s_whitespace,
  SPLIT_INDEX('a;b', 59, 1) AS s_code, SPLIT_INDEX('a;b', 300, 1) AS s_bad_code,
  SPLIT_INDEX('a,b', ',', -1) AS s_negative, SPLIT_INDEX('', ',', 0) AS s_no_parts;
SELECT ASCII('abc') AS a, ASCII('') AS a_empty, ASCII('é') AS a_utf8, ASCII(CAST(NULL AS STRING)) AS a_null,
  CHR(97) AS c, CHR(353) AS c_wrapped, CHR(233) AS c_latin1, CHR(-1) AS c_negative,
  CHAR_LENGTH(CHR(256)) AS c_nul_length;
SELECT TRUNCATE(42.345, 2) AS t, TRUNCATE(-42.345, 2) AS t_negative, TRUNCATE(42.345) AS t_whole,
  TRUNCATE(1234, -2) AS t_int, TRUNCATE(CAST(2.789 AS DOUBLE), 1) AS t_double,
  TRUNCATE(CAST(-2.789 AS DOUBLE)) AS t_double_whole, ROUND(42.345, 2) AS r, PI AS pi, PI() AS pi_call;
EXPLAIN SELECT LOCATE('a', s, 2), INITCAP(s), SPLIT_INDEX(s, ',', 0), ASCII(s), CHR(65), TRUNCATE(1.25, 1), PI FROM (VALUES ('a')) AS t(s);
SELECT SPLIT_INDEX('a', ',', 'x');
SELECT CHR('a');

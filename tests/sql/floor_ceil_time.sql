-- floor_ceil_time.sql - FLOOR / CEIL (t TO unit) as Flink computes them
-- (Calcite's FLOOR(t, FLAG(unit)); Flink's DateTimeUtils): units up to DAY
-- round the milliseconds, WEEK (weeks start on Sunday), MONTH, QUARTER and
-- YEAR round the date, so CEIL of a timestamp on such a boundary's day keeps
-- that day whatever its time (Flink's quirk, kept). Each value below was
-- computed apart with Python's datetime. 2024-05-06 is a Monday.
SET 'sql-client.execution.result-mode' = 'tableau';

SELECT
  FLOOR(TIMESTAMP '2024-05-06 13:45:12.345' TO MILLISECOND) AS f_ms,
  FLOOR(TIMESTAMP '2024-05-06 13:45:12.345' TO SECOND) AS f_s,
  FLOOR(TIMESTAMP '2024-05-06 13:45:12.345' TO MINUTE) AS f_min,
  FLOOR(TIMESTAMP '2024-05-06 13:45:12.345' TO HOUR) AS f_h,
  FLOOR(TIMESTAMP '2024-05-06 13:45:12.345' TO DAY) AS f_d;
SELECT
  FLOOR(TIMESTAMP '2024-05-06 13:45:12.345' TO WEEK) AS f_w,
  FLOOR(TIMESTAMP '2024-05-06 13:45:12.345' TO MONTH) AS f_mon,
  FLOOR(TIMESTAMP '2024-05-06 13:45:12.345' TO QUARTER) AS f_q,
  FLOOR(TIMESTAMP '2024-05-06 13:45:12.345' TO YEAR) AS f_y;
SELECT
  CEIL(TIMESTAMP '2024-05-06 13:45:12.345' TO SECOND) AS c_s,
  CEIL(TIMESTAMP '2024-05-06 13:45:12.345' TO MINUTE) AS c_min,
  CEILING(TIMESTAMP '2024-05-06 13:45:12.345' TO HOUR) AS c_h,
  CEIL(TIMESTAMP '2024-05-06 13:45:12.345' TO DAY) AS c_d;
SELECT
  CEIL(TIMESTAMP '2024-05-06 13:45:12.345' TO WEEK) AS c_w,
  CEIL(TIMESTAMP '2024-05-06 13:45:12.345' TO MONTH) AS c_mon,
  CEIL(TIMESTAMP '2024-05-06 13:45:12.345' TO QUARTER) AS c_q,
  CEIL(TIMESTAMP '2024-05-06 13:45:12.345' TO YEAR) AS c_y;

-- on a boundary CEIL stays; a date boundary keeps its day whatever the time; before the epoch
SELECT
  CEIL(TIMESTAMP '2024-05-06 13:00:00' TO HOUR) AS on_hour,
  CEIL(TIMESTAMP '2024-06-01 10:00:00' TO MONTH) AS first_of_month,
  CEIL(TIMESTAMP '2024-05-05 08:00:00' TO WEEK) AS a_sunday,
  FLOOR(TIMESTAMP '1969-12-31 23:59:59.500' TO SECOND) AS before_epoch_floor,
  CEIL(TIMESTAMP '1969-12-31 23:59:59.500' TO SECOND) AS before_epoch_ceil,
  CEIL(TIMESTAMP '2024-11-15 00:00:00' TO QUARTER) AS next_year;

-- DATE (DAY and coarser) and TIME (HOUR and finer); NULL in, NULL out
SELECT
  FLOOR(DATE '2024-05-06' TO MONTH) AS d_f_mon,
  CEIL(DATE '2024-12-15' TO YEAR) AS d_c_y,
  FLOOR(DATE '2024-05-06' TO WEEK) AS d_f_w,
  FLOOR(DATE '2024-05-06' TO DAY) AS d_f_d,
  FLOOR(TIME '12:44:31' TO MINUTE) AS t_f_min,
  CEIL(TIME '12:44:31' TO HOUR) AS t_c_h,
  FLOOR(CAST(NULL AS TIMESTAMP(3)) TO DAY) AS n;

-- over a table: bucketing by the hour, in a Calc and a GROUP BY; EXPLAIN as Flink prints it
CREATE TABLE emp (id INT, name STRING, dept_id INT, salary INT, hired TIMESTAMP(3)) WITH (
  'connector' = 'filesystem',
  'path' = 'tests/sql/data/emp.json',
  'format' = 'json'
);
EXPLAIN SELECT name, FLOOR(hired TO HOUR) AS hour_start, CEIL(hired TO DAY) AS next_day FROM emp;
SELECT name, FLOOR(hired TO HOUR) AS hour_start, CEIL(hired TO DAY) AS next_day FROM emp;
SET 'execution.runtime-mode' = 'batch';
SELECT FLOOR(hired TO DAY) AS day_start, COUNT(*) AS hires FROM emp GROUP BY FLOOR(hired TO DAY);
SET 'execution.runtime-mode' = 'streaming';

-- refused: a unit the type does not have, an unknown unit, a number, a missing unit
SELECT FLOOR(DATE '2024-05-06' TO HOUR);
SELECT CEIL(TIME '12:44:31' TO DAY);
SELECT FLOOR(TIMESTAMP '2024-05-06 13:45:12' TO FORTNIGHT);
SELECT FLOOR(2.5 TO DAY);
SELECT FLOOR(TIMESTAMP '2024-05-06 13:45:12' TO);

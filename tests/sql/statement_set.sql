-- Statement sets (Flink's EXECUTE STATEMENT SET and the SQL client's BEGIN STATEMENT SET
-- ... END): several INSERTs as one job, the sub-plans they share run once.
CREATE TABLE emp (id INT, name STRING, dept_id INT, salary INT) WITH (
  'connector' = 'filesystem', 'path' = 'tests/sql/data/emp.json', 'format' = 'json');
CREATE TABLE names_out (id INT, name STRING) WITH (
  'connector' = 'filesystem', 'path' = 'tests/sql/data/out/set_names', 'format' = 'csv');
CREATE TABLE upper_out (name STRING, id INT) WITH (
  'connector' = 'filesystem', 'path' = 'tests/sql/data/out/set_upper', 'format' = 'csv');
CREATE TABLE by_dept (dept_id INT, n BIGINT) WITH ('connector' = 'print');
CREATE TABLE by_dept_big (dept_id INT, n BIGINT) WITH ('connector' = 'print');
CREATE VIEW dept_counts AS SELECT dept_id, COUNT(*) AS n FROM emp GROUP BY dept_id;

-- Both INSERTs read id and name of emp: one scan, printed once with reuse_id, then Reused.
EXPLAIN STATEMENT SET BEGIN
INSERT INTO names_out SELECT id, name FROM emp;
INSERT INTO upper_out SELECT UPPER(name), id + 100 FROM emp;
END;

-- One job, two files (tests/cli/run.sh checks in SHOW JOB METRICS that the scan ran once).
EXECUTE STATEMENT SET BEGIN
INSERT INTO names_out SELECT id, name FROM emp;
INSERT INTO upper_out SELECT UPPER(name), id + 100 FROM emp;
END;
SELECT * FROM names_out;
SELECT * FROM upper_out;

-- A shared aggregate: GroupAggregate and everything below it reused, a Calc above for one.
EXPLAIN PLAN FOR STATEMENT SET BEGIN
INSERT INTO by_dept SELECT dept_id, n FROM dept_counts;
INSERT INTO by_dept_big SELECT dept_id, n * 10 FROM dept_counts WHERE n > 1;
END;
EXECUTE STATEMENT SET BEGIN
INSERT INTO by_dept SELECT dept_id, n FROM dept_counts;
INSERT INTO by_dept_big SELECT dept_id, n * 10 FROM dept_counts WHERE n > 1;
END;

-- Scans of emp that differ in their projection become one scan reading the union of their
-- columns in table order (Flink's ScanReuser), a Calc above it for each other projection.
CREATE TABLE dept_salaries (dept_id INT, salary INT) WITH (
  'connector' = 'filesystem', 'path' = 'tests/sql/data/out/set_dept_salaries', 'format' = 'csv');
EXPLAIN STATEMENT SET BEGIN
INSERT INTO by_dept SELECT dept_id, COUNT(*) FROM emp GROUP BY dept_id;
INSERT INTO names_out SELECT id, name FROM emp;
INSERT INTO dept_salaries SELECT dept_id, salary FROM emp;
END;
EXECUTE STATEMENT SET BEGIN
INSERT INTO by_dept SELECT dept_id, COUNT(*) FROM emp GROUP BY dept_id;
INSERT INTO dept_salaries SELECT dept_id, salary FROM emp;
END;
SELECT * FROM dept_salaries;

-- Two aggregates over the same key and column: the Exchange below them is shared.
EXPLAIN STATEMENT SET BEGIN
INSERT INTO by_dept SELECT dept_id, COUNT(salary) FROM emp GROUP BY dept_id;
INSERT INTO by_dept_big SELECT dept_id, SUM(salary) FROM emp GROUP BY dept_id;
END;
EXECUTE STATEMENT SET BEGIN
INSERT INTO by_dept SELECT dept_id, COUNT(salary) FROM emp GROUP BY dept_id;
INSERT INTO by_dept_big SELECT dept_id, SUM(salary) FROM emp GROUP BY dept_id;
END;

-- Without sub-plan reuse (or source reuse) every INSERT reads its own scan.
SET 'table.optimizer.reuse-sub-plan-enabled' = 'false';
EXPLAIN STATEMENT SET BEGIN
INSERT INTO by_dept SELECT dept_id, n FROM dept_counts;
INSERT INTO by_dept_big SELECT dept_id, n FROM dept_counts;
END;
RESET 'table.optimizer.reuse-sub-plan-enabled';
SET 'table.optimizer.reuse-source-enabled' = 'false';
EXPLAIN STATEMENT SET BEGIN
INSERT INTO by_dept SELECT dept_id, n FROM dept_counts;
INSERT INTO by_dept_big SELECT dept_id, n FROM dept_counts;
END;
RESET 'table.optimizer.reuse-source-enabled';

-- Details: CHANGELOG_MODE; PLAN_ADVICE and JSON_EXECUTION_PLAN are refused for sets.
EXPLAIN CHANGELOG_MODE STATEMENT SET BEGIN
INSERT INTO by_dept SELECT dept_id, n FROM dept_counts;
INSERT INTO names_out SELECT id, name FROM emp;
END;
EXPLAIN PLAN_ADVICE STATEMENT SET BEGIN
INSERT INTO by_dept SELECT dept_id, n FROM dept_counts;
END;

-- The same sink twice, as Flink allows: both INSERTs append to it.
CREATE TABLE twice (id INT, name STRING) WITH (
  'connector' = 'filesystem', 'path' = 'tests/sql/data/out/set_twice', 'format' = 'csv');
EXECUTE STATEMENT SET BEGIN
INSERT INTO twice SELECT id, name FROM emp WHERE id <= 2;
INSERT INTO twice SELECT id + 10, name FROM emp WHERE id > 4;
END;
SET 'execution.runtime-mode' = 'batch';
SELECT * FROM twice ORDER BY id;
RESET 'execution.runtime-mode';

-- The SQL client's form: BEGIN STATEMENT SET; INSERTs; END; with Flink's messages and errors.
END;
BEGIN STATEMENT SET;
BEGIN STATEMENT SET;
SELECT id FROM emp;
CREATE TABLE t (a INT) WITH ('connector' = 'blackhole');
INSERT INTO missing SELECT id FROM emp;
INSERT INTO names_out SELECT id, nam FROM emp;
INSERT INTO by_dept SELECT dept_id, n FROM dept_counts;
INSERT INTO by_dept_big SELECT dept_id, n + 1000 FROM dept_counts;
END;
END;
BEGIN STATEMENT SET;
END;

-- Batch mode: one job, the final rows.
SET 'execution.runtime-mode' = 'batch';
CREATE TABLE high_out (id INT, salary INT) WITH (
  'connector' = 'filesystem', 'path' = 'tests/sql/data/out/set_high', 'format' = 'csv');
CREATE TABLE low_out (id INT, salary INT) WITH (
  'connector' = 'filesystem', 'path' = 'tests/sql/data/out/set_low', 'format' = 'csv');
EXECUTE STATEMENT SET BEGIN
INSERT INTO high_out SELECT id, salary FROM emp WHERE salary >= 300;
INSERT INTO low_out SELECT id, salary FROM emp WHERE salary < 300 OR salary IS NULL;
END;
SELECT * FROM high_out ORDER BY id;
SELECT * FROM low_out ORDER BY id;
INSERT INTO by_dept SELECT dept_id, n FROM dept_counts;
BEGIN STATEMENT SET;
INSERT INTO by_dept SELECT dept_id, n FROM dept_counts;
END;
RESET 'execution.runtime-mode';

-- Parallelism 2: the shared scan's subtasks feed both sinks.
SET 'parallelism.default' = '2';
CREATE TABLE par_a (id INT, name STRING) WITH (
  'connector' = 'filesystem', 'path' = 'tests/sql/data/out/set_par_a', 'format' = 'csv');
CREATE TABLE par_b (dept_id INT, salary INT) WITH (
  'connector' = 'filesystem', 'path' = 'tests/sql/data/out/set_par_b', 'format' = 'csv');
EXECUTE STATEMENT SET BEGIN
INSERT INTO par_a SELECT id, name FROM emp WHERE dept_id = 10;
INSERT INTO par_b SELECT dept_id, salary FROM emp WHERE dept_id = 10;
END;
RESET 'parallelism.default';
SET 'execution.runtime-mode' = 'batch';
SELECT * FROM par_a ORDER BY id;
SELECT * FROM par_b ORDER BY salary;
RESET 'execution.runtime-mode';

-- In the background (table.dml-sync = false): one job id, both tables in its name; the
-- script waits for it at its end.
SET 'table.dml-sync' = 'false';
SET '$internal.pipeline.job-id' = 'c0ffee00000000000000000000000001';
CREATE TABLE bg_out (id INT, name STRING) WITH ('connector' = 'blackhole');
EXECUTE STATEMENT SET BEGIN
INSERT INTO bg_out SELECT id, name FROM emp;
INSERT INTO names_out SELECT id, LOWER(name) FROM emp;
END;

-- Syntax: only INSERT statements, each ended by ';', at least one, then END.
EXECUTE STATEMENT SET BEGIN SELECT 1; END;
EXECUTE STATEMENT SET BEGIN END;
EXECUTE STATEMENT SET BEGIN INSERT INTO bg_out SELECT id, name FROM emp END;

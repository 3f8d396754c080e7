-- insert_into.sql - INSERT INTO print, blackhole and filesystem sinks; the
-- filesystem output (tests/sql/data/out/, ignored by git and emptied before
-- each script by run-tests.sh; each path is a folder of part files, as in
-- Flink) is read back through a second table.

CREATE TABLE emp (
  id      INT,
  name    STRING,
  dept_id INT,
  salary  INT,
  hired   TIMESTAMP(3)
) WITH (
  'connector' = 'filesystem',
  'path' = 'tests/sql/data/emp.json',
  'format' = 'json'
);

CREATE TABLE dept (
  dept_id   INT,
  dept_name STRING,
  budget    INT
) WITH (
  'connector' = 'filesystem',
  'path' = 'tests/sql/data/dept.json',
  'format' = 'json'
);

-- print: one line per row, as Flink's Row.toString with the row kind.
CREATE TABLE print_sink (name STRING, dept_name STRING, salary INT) WITH ('connector' = 'print');
INSERT INTO print_sink
SELECT e.name, d.dept_name, e.salary FROM emp AS e LEFT JOIN dept AS d ON e.dept_id = d.dept_id;

-- An updating result into print: -U/+U lines.
CREATE TABLE print_counts (dept_id INT, cnt BIGINT) WITH ('connector' = 'print');
INSERT INTO print_counts SELECT dept_id, COUNT(*) FROM emp GROUP BY dept_id;

-- INSERT with a column list: the missing column is NULL.
INSERT INTO print_sink (name, salary) SELECT name, salary FROM emp WHERE salary > 300;

-- blackhole swallows the rows.
CREATE TABLE bh (name STRING, dept_name STRING) WITH ('connector' = 'blackhole');
INSERT INTO bh SELECT e.name, d.dept_name FROM emp AS e JOIN dept AS d ON e.dept_id = d.dept_id;

-- filesystem sink (csv), then read back.
CREATE TABLE fs_out (id INT, name STRING, dept_name STRING) WITH (
  'connector' = 'filesystem',
  'path' = 'tests/sql/data/out/emp_dept.csv',
  'format' = 'csv'
);
INSERT INTO fs_out SELECT e.id, e.name, d.dept_name FROM emp AS e JOIN dept AS d ON e.dept_id = d.dept_id;
SELECT id, name, dept_name FROM fs_out;

-- json sink, read back (NULLs and timestamps round-trip).
CREATE TABLE fs_json (id INT, name STRING, salary INT, hired TIMESTAMP(3)) WITH (
  'connector' = 'filesystem',
  'path' = 'tests/sql/data/out/emp_nulls.json',
  'format' = 'json'
);
INSERT INTO fs_json SELECT id, name, salary, hired FROM emp WHERE dept_id IS NULL OR salary IS NULL;
SELECT id, name, salary, hired FROM fs_json;

-- An updating result into a changelog format: every row kind is written as
-- a debezium-json (or canal-json) event, and reading the file back replays
-- the changelog, so the materialized result is the final counts.
CREATE TABLE fs_counts (dept_id INT, cnt BIGINT) WITH (
  'connector' = 'filesystem',
  'path' = 'tests/sql/data/out/dept_counts.debezium.json',
  'format' = 'debezium-json'
);
INSERT INTO fs_counts SELECT dept_id, COUNT(*) FROM emp GROUP BY dept_id;
SELECT dept_id, SUM(cnt) AS cnt FROM fs_counts GROUP BY dept_id;
CREATE TABLE fs_counts_canal (dept_id INT, cnt BIGINT) WITH (
  'connector' = 'filesystem',
  'path' = 'tests/sql/data/out/dept_counts.canal.json',
  'format' = 'canal-json'
);
INSERT INTO fs_counts_canal SELECT dept_id, COUNT(*) FROM emp GROUP BY dept_id;
SELECT dept_id, SUM(cnt) AS cnt FROM fs_counts_canal GROUP BY dept_id;

-- A plain json file sink stays insert-only: the updating result is rejected.
INSERT INTO fs_out SELECT dept_id, MAX(name), MIN(name) FROM emp GROUP BY dept_id;

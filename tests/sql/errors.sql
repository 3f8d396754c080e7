-- errors.sql - every statement here fails with a clear message (position
-- and caret for SQL errors, file and line for bad data); none crashes or
-- hangs. The runner uses --continue-on-error.

CREATE TABLE people (
  id    INT,
  name  STRING,
  score INT
) WITH (
  'connector' = 'filesystem',
  'path' = 'tests/sql/data/bad_type.json',
  'format' = 'json'
);

-- Malformed SQL.
SELEC id FROM people;
SELECT id name, FROM people;
SELECT id FROM people WHERE;

-- Unknown table, column, function, with "did you mean".
SELECT id FROM peeple;
SELECT nmae FROM people;
SELECT UPPPER(name) FROM people;

-- Wrong types.
SELECT id FROM people WHERE name > 5;
SELECT SUM(name) FROM people;

-- Connector options.
CREATE TABLE t1 (a INT) WITH ('connector' = 'filesytem', 'path' = 'x', 'format' = 'json');
CREATE TABLE t2 (a INT) WITH ('connector' = 'filesystem', 'format' = 'json');
CREATE TABLE t3 (a INT) WITH ('connector' = 'filesystem', 'path' = 'x', 'format' = 'json', 'pth' = 'y');
CREATE TABLE t4 (a INT) WITH ('connector' = 'datagen', 'rows-per-secnd' = '5');
CREATE TABLE t5 (a INT);
SET 'table.exec.state.tll' = '1 h';

-- A missing file.
CREATE TABLE missing (a INT) WITH ('connector' = 'filesystem', 'path' = 'tests/sql/data/no_such_file.json', 'format' = 'json');
SELECT a FROM missing;

-- Bad data: a wrong-typed JSON field, a malformed JSON line, a malformed
-- CSV line (each names the file and the line). Written to a blackhole table
-- (a SELECT prints the same error after its result header).
CREATE TABLE sink_bh (id INT, name STRING, score INT) WITH ('connector' = 'blackhole');
INSERT INTO sink_bh SELECT id, name, score FROM people;

CREATE TABLE people_syntax (id INT, name STRING, score INT) WITH (
  'connector' = 'filesystem', 'path' = 'tests/sql/data/bad_syntax.json', 'format' = 'json');
INSERT INTO sink_bh SELECT id, name, score FROM people_syntax;

CREATE TABLE people_csv (id INT, name STRING, score INT) WITH (
  'connector' = 'filesystem', 'path' = 'tests/sql/data/bad.csv', 'format' = 'csv');
INSERT INTO sink_bh SELECT id, name, score FROM people_csv;

-- json.ignore-parse-errors skips the bad line; csv.ignore-parse-errors too.
CREATE TABLE people_lenient (id INT, name STRING, score INT) WITH (
  'connector' = 'filesystem', 'path' = 'tests/sql/data/bad_type.json', 'format' = 'json',
  'json.ignore-parse-errors' = 'true');
SELECT id, name, score FROM people_lenient;

CREATE TABLE csv_lenient (id INT, name STRING, score INT) WITH (
  'connector' = 'filesystem', 'path' = 'tests/sql/data/bad.csv', 'format' = 'csv',
  'csv.ignore-parse-errors' = 'true');
SELECT id, name, score FROM csv_lenient;

-- Features not supported yet.
CREATE TABLE good (id INT, name STRING, score INT, ts AS PROCTIME()) WITH (
  'connector' = 'filesystem', 'path' = 'tests/sql/data/good.csv', 'format' = 'csv');
SELECT g.id FROM good AS g JOIN good FOR SYSTEM_TIME AS OF g.ts AS h ON g.id = h.id;
SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE good, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY window_start, window_end;
SELECT id FROM good ORDER BY id;
SELECT id, COUNT(*) FROM good GROUP BY id LIMIT 2;
SELECT /*+ MULTI_JOIN(a, b) */ a.id FROM good AS a JOIN good AS b ON a.id = b.id;
SELECT a.id FROM good AS a JOIN good AS b USING (id);
CREATE FUNCTION lower_udf AS 'com.example.LowerUdf';
-- Mini-batch needs a latency, and a size where an operator buffers (Flink's messages).
SET 'table.exec.mini-batch.enabled' = 'true';
SELECT id FROM good;
SET 'table.exec.mini-batch.allow-latency' = '1 s';
SET 'table.optimizer.agg-phase-strategy' = 'ONE_PHASE';
SELECT id, COUNT(*) FROM good GROUP BY id;
SET 'table.optimizer.agg-phase-strategy' = 'AUTO';
SET 'table.exec.mini-batch.size' = '100';
SELECT id, COUNT(*) FROM good GROUP BY id;
SET 'table.optimizer.agg-phase-strategy' = 'FOUR_PHASE';
RESET 'table.exec.mini-batch.enabled';
RESET 'table.exec.mini-batch.allow-latency';
RESET 'table.exec.mini-batch.size';
RESET 'table.optimizer.agg-phase-strategy';

-- INSERT of an updating result into an insert-only filesystem sink.
CREATE TABLE out_fs (name STRING, cnt BIGINT) WITH (
  'connector' = 'filesystem', 'path' = 'tests/sql/data/never_written.csv', 'format' = 'csv');
INSERT INTO out_fs SELECT name, COUNT(*) FROM good GROUP BY name;

-- DDL mistakes.
CREATE TABLE dup (a INT, a STRING) WITH ('connector' = 'datagen');
CREATE TABLE pk_enforced (a INT, PRIMARY KEY (a)) WITH ('connector' = 'datagen');
CREATE TABLE good (x INT) WITH ('connector' = 'datagen');
DROP TABLE no_such_table;
DESCRIBE no_such_table;

-- The session still works after all the errors.
SELECT id, name FROM good WHERE score > 15;

-- Last, because the open quote runs to the end of the script.
SELECT 'unterminated FROM people;

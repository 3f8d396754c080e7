-- partitioned_sink.sql - PARTITIONED BY on a filesystem sink (Flink's filesystem
-- connector): each row goes to '<path>/k1=v1/k2=v2/part-...' without its partition
-- columns; values are escaped as Flink's PartitionPathUtils does (':' is %3A), NULL and ''
-- go to 'partition.default-name' (__DEFAULT_PARTITION__); at the end of input the
-- 'success-file' commit policy writes _SUCCESS into every partition written. Part files
-- are named with the time and pid, so the folders are read back by tables over each
-- partition (the filesystem source skips _SUCCESS, as it skips every '_' and '.' name).
-- With checkpoints the parts of every partition are pending until their checkpoint
-- completes, then renamed into place. Refusals: reading a partitioned table, unknown
-- partition columns, connectors that do not write partitions, policies other than
-- success-file, a policy with checkpoints.
CREATE TABLE emp (id INT, name STRING, dept_id INT, salary INT, hired TIMESTAMP(3)) WITH (
  'connector' = 'filesystem', 'path' = 'tests/sql/data/emp.json', 'format' = 'json');

CREATE TABLE by_dept (id INT, name STRING, dept STRING, hm STRING) PARTITIONED BY (dept, hm) WITH (
  'connector' = 'filesystem', 'path' = 'tests/sql/data/out/by_dept/', 'format' = 'csv',
  'sink.partition-commit.policy.kind' = 'success-file');
SHOW CREATE TABLE by_dept;
INSERT INTO by_dept SELECT id, name, CAST(dept_id AS STRING), DATE_FORMAT(hired, 'HH:mm') FROM emp;

-- dept 10: alice at 09:00 and carol at 11:00 in two folders; dave's NULL dept in the
-- default partition; the partition columns are not in the files
CREATE TABLE dept10_0900 (id INT, name STRING) WITH ('connector' = 'filesystem',
  'path' = 'tests/sql/data/out/by_dept/dept=10/hm=09%3A00/', 'format' = 'csv');
CREATE TABLE dept10 (id INT, name STRING) WITH ('connector' = 'filesystem',
  'path' = 'tests/sql/data/out/by_dept/dept=10/', 'format' = 'csv');
CREATE TABLE dept_default (id INT, name STRING) WITH ('connector' = 'filesystem',
  'path' = 'tests/sql/data/out/by_dept/dept=__DEFAULT_PARTITION__/hm=08%3A15/', 'format' = 'csv');
CREATE TABLE all_rows (id INT, name STRING) WITH ('connector' = 'filesystem',
  'path' = 'tests/sql/data/out/by_dept/', 'format' = 'csv');
SELECT * FROM dept10_0900;
SELECT * FROM dept10;
SELECT * FROM dept_default;
SELECT COUNT(*) AS rows_written, SUM(id) AS ids FROM all_rows;

-- 'partition.default-name', and checkpoints: one partition per dept, committed when the
-- checkpoints complete and at the end (6 rows in all)
SET 'execution.checkpointing.interval' = '10 ms';
SET 'execution.checkpointing.dir' = 'tests/sql/data/out/checkpoints';
CREATE TABLE by_dept2 (id INT, name STRING, dept INT) PARTITIONED BY (dept) WITH (
  'connector' = 'filesystem', 'path' = 'tests/sql/data/out/by_dept2', 'format' = 'json',
  'partition.default-name' = 'none');
INSERT INTO by_dept2 SELECT id, name, dept_id FROM emp;
CREATE TABLE dept2_none (id INT, name STRING) WITH ('connector' = 'filesystem',
  'path' = 'tests/sql/data/out/by_dept2/dept=none/', 'format' = 'json');
CREATE TABLE dept2_all (id INT, name STRING) WITH ('connector' = 'filesystem',
  'path' = 'tests/sql/data/out/by_dept2/', 'format' = 'json');
SELECT * FROM dept2_none;
SELECT COUNT(*) AS rows_written FROM dept2_all;
-- a commit policy with checkpoints is refused (partitions would be committed by time)
INSERT INTO by_dept SELECT id, name, CAST(dept_id AS STRING), 'x' FROM emp;
RESET 'execution.checkpointing.interval';
RESET 'execution.checkpointing.dir';

-- refusals
SELECT * FROM by_dept;
CREATE TABLE bad1 (a INT, b STRING) PARTITIONED BY (c) WITH ('connector' = 'filesystem',
  'path' = 'tests/sql/data/out/bad1/', 'format' = 'csv');
CREATE TABLE bad2 (a INT, b STRING) PARTITIONED BY (b) WITH ('connector' = 'print');
CREATE TABLE bad3 (a INT, b STRING) PARTITIONED BY (b) WITH ('connector' = 'filesystem',
  'path' = 'tests/sql/data/out/bad3/', 'format' = 'csv', 'sink.partition-commit.policy.kind' = 'metastore');
INSERT INTO bad3 VALUES (1, 'x');
-- blackhole accepts partitions and discards the rows, as Flink's
CREATE TABLE hole (a INT, b STRING) PARTITIONED BY (b) WITH ('connector' = 'blackhole');
INSERT INTO hole VALUES (1, 'x');

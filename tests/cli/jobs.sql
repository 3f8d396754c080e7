-- Background jobs, SHOW JOBS, DESCRIBE JOB, STOP JOB, savepoints and their
-- errors (tests/cli/jobs.sh runs this in a temporary folder and compares it
-- with jobs.out, the start times and the savepoints' random digits masked).
CREATE TABLE slow (id BIGINT, v INT) WITH ('connector' = 'datagen', 'rows-per-second' = '5',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '1000000');
CREATE TABLE quick (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '10',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '10');
CREATE TABLE counted (id BIGINT, n BIGINT) WITH ('connector' = 'blackhole');
CREATE TABLE copied (id BIGINT) WITH ('connector' = 'blackhole');
-- a job in the background: Flink's submission messages and its id
SET 'table.dml-sync' = 'false';
SET '$internal.pipeline.job-id' = 'a0000000000000000000000000000001';
INSERT INTO counted SELECT id, COUNT(*) FROM slow GROUP BY id;
-- the same id again
INSERT INTO counted SELECT id, COUNT(*) FROM slow GROUP BY id;
-- one in the foreground, named by pipeline.name
SET 'table.dml-sync' = 'true';
SET '$internal.pipeline.job-id' = 'a0000000000000000000000000000002';
SET 'pipeline.name' = 'quick copy';
INSERT INTO copied SELECT id FROM quick;
RESET 'pipeline.name';
SHOW JOBS;
DESCRIBE JOB 'a0000000000000000000000000000001';
DESC JOB 'A0000000000000000000000000000002';
DESCRIBE JOB 'a0000000000000000000000000000009';
DESCRIBE JOB 'not-a-job-id';
-- a table a running job reads stays
DROP TABLE slow;
-- stopping: errors first
STOP JOB 'a0000000000000000000000000000001' WITH SAVEPOINT;
STOP JOB 'a0000000000000000000000000000001' WITH DRAIN;
STOP JOB 'a0000000000000000000000000000009';
STOP JOB 'a0000000000000000000000000000002';
STOP JOB 'a0000000000000000000000000000002' WITH SAVEPOINT;
SET 'state.savepoints.dir' = 'savepoints';
STOP JOB 'a0000000000000000000000000000001' WITH SAVEPOINT WITH DRAIN;
DESCRIBE JOB 'a0000000000000000000000000000001';
STOP JOB 'a0000000000000000000000000000001';
-- cancelled without a savepoint; a cancelled job stops again without complaint
SET 'table.dml-sync' = 'false';
SET '$internal.pipeline.job-id' = 'a0000000000000000000000000000003';
INSERT INTO copied SELECT id FROM slow;
STOP JOB 'a0000000000000000000000000000003';
STOP JOB 'a0000000000000000000000000000003';
DESCRIBE JOB 'a0000000000000000000000000000003';
SHOW JOB METRICS 'a0000000000000000000000000000009';
-- a bounded job in the background: the script waits for it at its end
SET '$internal.pipeline.job-id' = 'a0000000000000000000000000000004';
INSERT INTO copied SELECT id FROM quick;
RESET '$internal.pipeline.job-id';
DROP TABLE slow;
SELECT 'SELECT stays in the foreground' AS note;

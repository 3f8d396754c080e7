-- checkpoints.sql - checkpoint options and what a checkpointed INSERT
-- refuses (engine/exec/job_checkpoint.c); the kill -9 test is
-- tests/checkpoint/run.sh, checkpoint files are checked by
-- tests/unit/check_checkpoint_store.c.

-- Flink's keys, and the older names it accepts (stored under the new key).
SET 'execution.checkpointing.interval' = '5 ms';
SET 'execution.checkpointing.num-retained' = '0';
SET 'execution.checkpointing.mode' = 'AT_MOST_ONCE';
SET 'execution.checkpointing.mode' = 'AT_LEAST_ONCE';
SET 'state.checkpoints.num-retained' = '3';
SET 'execution.checkpointing.timeout' = '1 min';

CREATE TABLE emp (id INT, name STRING, dept_id INT, salary DOUBLE) WITH (
  'connector' = 'filesystem', 'path' = 'tests/sql/data/emp.json', 'format' = 'json');
CREATE TABLE quiet (id INT, name STRING) WITH ('connector' = 'blackhole');
CREATE TABLE out_dir (dept_id INT, people BIGINT) WITH (
  'connector' = 'filesystem', 'path' = 'tests/sql/data/out/checkpointed/', 'format' = 'debezium-json');
CREATE TABLE bids (bid_auction BIGINT, bid_price BIGINT) WITH (
  'connector' = 'nexmark', 'events.num' = '100');

-- an interval without a folder
SET 'execution.checkpointing.interval' = '1 s';
INSERT INTO quiet SELECT id, name FROM emp;

SET 'state.checkpoints.dir' = 'tests/sql/data/out/checkpoints';
-- every built-in source resumes from a position (nexmark: its event count)
INSERT INTO quiet SELECT CAST(bid_auction AS INT), 'bid' FROM bids;
-- a path that does not exist is a folder of part files (as Flink's), so this sink takes part too
CREATE TABLE one_file (dept_id INT, people BIGINT) WITH (
  'connector' = 'filesystem', 'path' = 'tests/sql/data/out/checkpointed.json', 'format' = 'debezium-json');
INSERT INTO one_file SELECT dept_id, COUNT(*) FROM emp GROUP BY dept_id;
-- a bounded job with checkpoints on: its last checkpoint makes the output visible
INSERT INTO out_dir SELECT dept_id, COUNT(*) FROM emp GROUP BY dept_id;

-- restores that are refused
SET 'execution.savepoint.path' = 'tests/sql/data/no-such-checkpoint';
INSERT INTO quiet SELECT id, name FROM emp;
SET 'execution.state-recovery.path' = 'tests/sql/data';
INSERT INTO quiet SELECT id, name FROM emp;
RESET 'execution.savepoint.path';
INSERT INTO quiet SELECT id, name FROM emp;

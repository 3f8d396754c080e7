-- batch_mode.sql - SET 'execution.runtime-mode' = 'batch': bounded sources only
-- (an unbounded table is refused with Flink's message at its FROM item), and
-- every query's final result once, after the job has ended, without the op
-- column (Flink's batch result: "N rows in set", NULL as <NULL>). The plan is
-- the streaming plan run to the end of its input, so EXPLAIN keeps the
-- streaming node names; ORDER BY in any order is a Sort of the final rows at
-- the end of input, LIMIT a Limit over it. Results checked against SQLite.
CREATE TABLE emp (id INT, name STRING, dept_id INT, salary INT, hired TIMESTAMP(3))
WITH ('connector' = 'filesystem', 'path' = 'tests/sql/data/emp.json', 'format' = 'json');
CREATE TABLE dept (dept_id INT, dept_name STRING, budget INT)
WITH ('connector' = 'filesystem', 'path' = 'tests/sql/data/dept.json', 'format' = 'json');
CREATE TABLE endless (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '10');

SET 'execution.runtime-mode' = 'batch';
-- one row, not the changelog of every count
SELECT COUNT(*) FROM emp;
SELECT COUNT(*) AS n, SUM(salary) AS total, MIN(name) AS first_name FROM emp;

-- a join and an aggregate over it: the final table
SELECT d.dept_name, COUNT(*) AS n, SUM(e.salary) AS total
FROM emp e JOIN dept d ON e.dept_id = d.dept_id
GROUP BY d.dept_name
ORDER BY total DESC, d.dept_name;
SELECT e.name, d.dept_name FROM emp e LEFT JOIN dept d ON e.dept_id = d.dept_id
ORDER BY e.name, d.dept_name NULLS LAST;

-- ORDER BY in any order, NULLS FIRST / LAST, ordinals, keys that are not selected
EXPLAIN SELECT name, dept_id FROM emp ORDER BY dept_id DESC, salary LIMIT 3;
SELECT name, dept_id FROM emp ORDER BY dept_id DESC, salary LIMIT 3;
SELECT name, dept_id FROM emp ORDER BY dept_id NULLS LAST, 1 DESC;
SELECT name FROM emp ORDER BY hired DESC OFFSET 2 ROWS FETCH NEXT 2 ROWS ONLY;

-- LIMIT over an updating input: the first rows of its final table
SELECT dept_id, COUNT(*) AS n FROM emp GROUP BY dept_id ORDER BY n DESC, dept_id NULLS FIRST LIMIT 2;
SELECT COUNT(*) FROM (SELECT dept_id, COUNT(*) AS n FROM emp GROUP BY dept_id LIMIT 2) t;

-- an empty result
SELECT name FROM emp WHERE salary < 0;

-- INSERT INTO in batch mode: final rows only; an updating query would hand the sink its
-- changelog, so it is refused (ORDER BY materialises it)
CREATE TABLE printed (dept_id INT, n BIGINT) WITH ('connector' = 'print');
INSERT INTO printed SELECT dept_id, id FROM emp ORDER BY id DESC LIMIT 2;
INSERT INTO printed SELECT dept_id, COUNT(*) FROM emp GROUP BY dept_id;
INSERT INTO printed SELECT dept_id, COUNT(*) AS n FROM emp GROUP BY dept_id ORDER BY dept_id;

-- unbounded sources are refused, with the table's place
SELECT e.name FROM emp e JOIN endless x ON e.id = x.id;
SET 'execution.runtime-mode' = 'automatic';

-- streaming again: the changelog
SET 'execution.runtime-mode' = 'streaming';
SELECT COUNT(*) FROM emp WHERE salary >= 400;

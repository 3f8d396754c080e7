-- results_joins.sql - result streams of regular joins on two tiny tables:
-- emp (6 rows, one NULL dept_id, one dept 30 without a dept) and dept
-- (5 rows, dept_id 20 twice, one NULL key, dept 40 without employees).
-- Every final state was checked against SQLite on the same data.

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

-- Inner join: NULL keys never match, dept 20 matches twice.
SELECT e.name, d.dept_name FROM emp AS e JOIN dept AS d ON e.dept_id = d.dept_id;

-- LEFT JOIN: dave (NULL key) and erin (dept 30) padded with NULLs.
SELECT e.name, d.dept_name FROM emp AS e LEFT JOIN dept AS d ON e.dept_id = d.dept_id;

-- RIGHT JOIN: hr and nokey padded.
SELECT e.name, d.dept_name FROM emp AS e RIGHT JOIN dept AS d ON e.dept_id = d.dept_id;

-- FULL JOIN: both sides padded.
SELECT e.name, d.dept_name FROM emp AS e FULL OUTER JOIN dept AS d ON e.dept_id = d.dept_id;

-- CROSS JOIN with an inline VALUES table.
SELECT d.dept_name, v.n FROM dept AS d CROSS JOIN (VALUES (1), (2)) AS v(n);

-- Comma join with the equality in WHERE (becomes an equi-join).
SELECT e.name, d.dept_name FROM emp AS e, dept AS d WHERE e.dept_id = d.dept_id AND d.budget > 200;

-- Residual (non-equi) condition in an outer join: evaluated per pair, a
-- left row without a passing pair is padded (frank's NULL salary fails).
SELECT e.name, e.salary, d.dept_name, d.budget
FROM emp AS e LEFT JOIN dept AS d ON e.dept_id = d.dept_id AND e.salary < d.budget;

-- Join over an aggregate (updating input): dept is joined with the count
-- per dept; an inner join forwards the aggregate's -U/+U as they come.
SELECT d.dept_name, t.cnt
FROM dept AS d
JOIN (SELECT dept_id, COUNT(*) AS cnt FROM emp GROUP BY dept_id) AS t
ON d.dept_id = t.dept_id;

-- LEFT JOIN over an aggregate on both sides.
SELECT a.dept_id, a.total, b.n
FROM (SELECT dept_id, SUM(salary) AS total FROM emp GROUP BY dept_id) AS a
LEFT JOIN (SELECT dept_id, COUNT(*) AS n FROM dept GROUP BY dept_id) AS b
ON a.dept_id = b.dept_id;

-- UNION ALL of two joins.
SELECT e.name, d.dept_name FROM emp AS e JOIN dept AS d ON e.dept_id = d.dept_id WHERE d.dept_id = 10
UNION ALL
SELECT e.name, 'none' FROM emp AS e WHERE e.dept_id IS NULL;

-- A view and a WITH query over the join.
CREATE VIEW emp_dept AS
SELECT e.id, e.name, e.salary, d.dept_name, d.budget
FROM emp AS e JOIN dept AS d ON e.dept_id = d.dept_id;

SELECT name, dept_name FROM emp_dept WHERE salary >= 200;

WITH rich AS (SELECT dept_id, dept_name FROM dept WHERE budget >= 500)
SELECT e.name, r.dept_name FROM emp AS e JOIN rich AS r ON e.dept_id = r.dept_id;

-- Computed columns and a watermark: the computed column is usable as a join
-- key; the plan of a query on the table shows the WatermarkAssigner over the
-- scan, the filter above it.
CREATE TABLE emp_t (
  id      INT,
  name    STRING,
  dept_id INT,
  salary  INT,
  hired   TIMESTAMP(3),
  bonus   AS salary / 10,
  dept_key AS dept_id * 1,
  WATERMARK FOR hired AS hired - INTERVAL '5' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'tests/sql/data/emp.json',
  'format' = 'json'
);

SELECT e.name, e.bonus, d.dept_name FROM emp_t AS e JOIN dept AS d ON e.dept_key = d.dept_id;

EXPLAIN SELECT name, hired FROM emp_t WHERE salary > 100;

-- IS NOT DISTINCT FROM as the join key: NULL keys match each other (dave
-- joins nokey).
SELECT e.name, d.dept_name FROM emp AS e JOIN dept AS d ON e.dept_id IS NOT DISTINCT FROM d.dept_id;

-- A BETWEEN on plain TIMESTAMP columns (no watermark on emp) is a regular
-- join with a residual condition: pairs of a dept hired within two days before.
SELECT a.name, b.name AS earlier
FROM emp AS a JOIN emp AS b
  ON a.dept_id = b.dept_id
 AND b.hired BETWEEN a.hired - INTERVAL '2' DAY AND a.hired - INTERVAL '1' SECOND;

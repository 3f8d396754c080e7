-- semi_anti_join.sql - IN / EXISTS subqueries as semi and anti joins (Flink's
-- Join(joinType=[LeftSemiJoin | LeftAntiJoin]) from SemiAntiJoinTest.xml):
-- uncorrelated and correlated IN, EXISTS, NOT IN with SQL's NULL semantics,
-- NOT EXISTS, several subqueries, a nested one, a computed IN operand, a row
-- (a, b) before IN,
-- updating inputs on either side, and the forms rejected. Data: emp (6 rows,
-- dave's dept_id NULL, erin's dept 30 has no dept) and dept (5 rows, dept 20
-- twice, one NULL dept_id, dept 40 without employees). Every final result
-- was checked against SQLite on the same rows.

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

-- the same rows with NOT NULL ids (NOT IN needs no NULL test on them)
CREATE TABLE emp_ids (id INT NOT NULL, name STRING) WITH (
  'connector' = 'filesystem',
  'path' = 'tests/sql/data/emp.json',
  'format' = 'json'
);

-- IN, uncorrelated (testInWithUncorrelated_SimpleCondition): hash[dept_id] on both sides,
-- the subquery projected to its column; dave (NULL) and erin (30) have no match
EXPLAIN SELECT * FROM emp WHERE dept_id IN (SELECT dept_id FROM dept);
SELECT name FROM emp WHERE dept_id IN (SELECT dept_id FROM dept);

-- IN, correlated, with conditions on each side (testInWithCorrelated_SimpleCondition2):
-- the item's equality first, then the correlation; salary > 100 goes into emp's scan,
-- budget < 1000 into dept's; bob (20: sales, budget 150 < 200) only
EXPLAIN SELECT name FROM emp e
WHERE salary > 100 AND dept_id IN (SELECT d.dept_id FROM dept d WHERE d.budget < e.salary AND d.budget < 1000);
SELECT name FROM emp e
WHERE salary > 100 AND dept_id IN (SELECT d.dept_id FROM dept d WHERE d.budget < e.salary AND d.budget < 1000);

-- EXISTS, correlated (testExistsWithCorrelated_SimpleCondition): the subquery gives the
-- correlated column only
EXPLAIN SELECT * FROM emp e WHERE EXISTS (SELECT * FROM dept d WHERE d.dept_id = e.dept_id);
SELECT name FROM emp e WHERE EXISTS (SELECT * FROM dept d WHERE d.dept_id = e.dept_id);

-- EXISTS with a non-equi correlation only (testExistsWithCorrelated_NonEquiCondition1):
-- no key, single exchanges; everyone but frank (NULL salary) earns less than some budget
EXPLAIN SELECT name FROM emp e WHERE EXISTS (SELECT * FROM dept d WHERE e.salary < d.budget);
SELECT name FROM emp e WHERE EXISTS (SELECT * FROM dept d WHERE e.salary < d.budget);

-- NOT EXISTS (testNotExistsWithCorrelated_SimpleCondition): an anti join; a left row is
-- emitted at once and deleted when its first match arrives: dave and erin remain
EXPLAIN SELECT * FROM emp e WHERE NOT EXISTS (SELECT * FROM dept d WHERE d.dept_id = e.dept_id);
SELECT name FROM emp e WHERE NOT EXISTS (SELECT * FROM dept d WHERE d.dept_id = e.dept_id);

-- uncorrelated EXISTS / NOT EXISTS (testExistsWithUncorrelated_ComplexCondition,
-- testExistsAndNotExists): the subquery becomes one global MIN(TRUE), a row once it has
-- any; EXISTS keeps the left rows while it has one, NOT EXISTS while it has none
EXPLAIN SELECT name FROM emp WHERE salary > 100 AND EXISTS (SELECT dept_id FROM dept WHERE budget > 400);
SELECT name FROM emp WHERE salary > 100 AND EXISTS (SELECT dept_id FROM dept WHERE budget > 400);
SELECT name FROM emp WHERE EXISTS (SELECT dept_id FROM dept WHERE budget > 4000);
EXPLAIN SELECT name FROM emp WHERE NOT EXISTS (SELECT * FROM dept WHERE budget > 400);
SELECT name FROM emp WHERE NOT EXISTS (SELECT * FROM dept WHERE budget > 400);
SELECT name FROM emp WHERE NOT EXISTS (SELECT * FROM dept WHERE budget > 4000);

-- a correlation on the outer query's columns only (testNotExistsWithCorrelated_NonEquiCondition2):
-- EXISTS filters the left rows below the join, NOT EXISTS keeps the condition in the join
-- (Flink computes it into a field $f3 first; joinery evaluates it in place); frank's NULL
-- salary makes the condition unknown, so NOT EXISTS keeps him
EXPLAIN SELECT name FROM emp e WHERE EXISTS (SELECT * FROM dept d WHERE e.salary < 300);
EXPLAIN SELECT name FROM emp e WHERE NOT EXISTS (SELECT * FROM dept d WHERE e.salary < 300);
SELECT name FROM emp e WHERE NOT EXISTS (SELECT * FROM dept d WHERE e.salary < 300);

-- NOT IN keeps SQL's NULL semantics, written as Flink writes them: a NULL on either side
-- matches every row, so dept's NULL dept_id drops everyone (the final result is empty)
EXPLAIN SELECT name FROM emp WHERE dept_id NOT IN (SELECT dept_id FROM dept);
SELECT name FROM emp WHERE dept_id NOT IN (SELECT dept_id FROM dept);

-- without the NULL on the right: erin (30) is kept, dave (NULL NOT IN a non-empty set:
-- unknown) is dropped
SELECT name FROM emp WHERE dept_id NOT IN (SELECT dept_id FROM dept WHERE dept_id IS NOT NULL);

-- an empty subquery keeps every row, dave's NULL too
SELECT name FROM emp WHERE dept_id NOT IN (SELECT dept_id FROM dept WHERE budget > 5000);

-- NOT NULL on both sides: a plain equality, hashed (ids 2 and 4 removed)
EXPLAIN SELECT name FROM emp_ids WHERE id NOT IN (SELECT id FROM emp_ids WHERE id IN (2, 4));
SELECT name FROM emp_ids WHERE id NOT IN (SELECT id FROM emp_ids WHERE id IN (2, 4));

-- NOT IN, correlated (testMultiNotInWithCorrelated): the NULL-aware pair, then the
-- correlation as the key; NOT (x IN ...) is the same
EXPLAIN SELECT name FROM emp e
WHERE NOT (salary IN (SELECT d.budget FROM dept d WHERE d.dept_id = e.dept_id));
SELECT name FROM emp e
WHERE NOT (salary IN (SELECT d.budget FROM dept d WHERE d.dept_id = e.dept_id));

-- two subqueries (testMultiInWithUncorrelated1): one semi join over the other, in order
EXPLAIN SELECT name FROM emp
WHERE dept_id IN (SELECT dept_id FROM dept) AND id NOT IN (SELECT id FROM emp WHERE salary >= 300);
SELECT name FROM emp
WHERE dept_id IN (SELECT dept_id FROM dept) AND id NOT IN (SELECT id FROM emp WHERE salary >= 300);

-- a subquery inside a subquery (testMultiInWithUncorrelated2)
EXPLAIN SELECT name FROM emp
WHERE dept_id IN (SELECT dept_id FROM dept WHERE budget IN (SELECT salary + 50 FROM emp));
SELECT name FROM emp
WHERE dept_id IN (SELECT dept_id FROM dept WHERE budget IN (SELECT salary + 50 FROM emp));

-- a computed operand (testInWithCorrelated_MultiFields' $f3): appended to the left input
-- and dropped again above the join
EXPLAIN SELECT name FROM emp WHERE dept_id * 10 IN (SELECT budget / 5 FROM dept);
SELECT name FROM emp WHERE dept_id * 10 IN (SELECT budget / 5 FROM dept);

-- an updating right input: the count per dept reaches 2 only for dept 20; its +U makes
-- bob and frank appear with the right row's kind
EXPLAIN SELECT name FROM emp
WHERE dept_id IN (SELECT dept_id FROM dept GROUP BY dept_id HAVING COUNT(*) > 1);
SELECT name FROM emp
WHERE dept_id IN (SELECT dept_id FROM dept GROUP BY dept_id HAVING COUNT(*) > 1);

-- the same as an anti join: dept 20 leaves the subquery (-U) when its count becomes 2,
-- so bob and frank come back (+I), until the NULL group's row arrives: NULL NOT IN
-- drops every row (the final result is empty)
SELECT name FROM emp
WHERE dept_id NOT IN (SELECT dept_id FROM (SELECT dept_id, COUNT(*) AS n FROM dept GROUP BY dept_id) WHERE n = 1);

-- an updating left input (a GroupAggregate: leftInputSpec stays NoUniqueKey, the key is
-- unique); here its changes all come before the subquery's rows, so the final counts
-- pass
SELECT t.dept_id, t.n
FROM (SELECT dept_id, COUNT(*) AS n FROM emp GROUP BY dept_id) AS t
WHERE t.dept_id IN (SELECT dept_id FROM dept);

-- a row before IN: one equality per value, ANDed (SemiAntiJoinTest's
-- testMultiFieldInWithUncorrelated); bob (20, 200) meets sales (20, 150 + 50)
EXPLAIN SELECT name FROM emp WHERE (dept_id, salary) IN (SELECT dept_id, budget + 50 FROM dept);
SELECT name FROM emp WHERE (dept_id, salary) IN (SELECT dept_id, budget + 50 FROM dept);
-- NOT IN drops a row some subquery row compares TRUE or UNKNOWN with: alice (10, 100) is
-- UNKNOWN against (NULL, 100), frank (20, NULL) against (20, 200); dave (NULL, 400) is
-- FALSE against every row (400 matches no budget) and stays (SQLite: carol, dave, erin)
EXPLAIN SELECT name FROM emp WHERE (dept_id, salary) NOT IN (SELECT dept_id, budget + 50 FROM dept);
SELECT name FROM emp WHERE (dept_id, salary) NOT IN (SELECT dept_id, budget + 50 FROM dept);
-- correlated, with the row's pairs first
SELECT name FROM emp e
WHERE (dept_id, salary) IN (SELECT dept_id, budget + 50 FROM dept d WHERE d.budget < e.salary + 1000);
-- the row and the subquery disagree on the number of columns
SELECT name FROM emp WHERE (dept_id, salary) IN (SELECT dept_id FROM dept);

-- forms not built: rejected with a position
SELECT name, dept_id IN (SELECT dept_id FROM dept) FROM emp;
SELECT name FROM emp WHERE salary > 300 OR dept_id IN (SELECT dept_id FROM dept);
SELECT name FROM emp WHERE salary = (SELECT MAX(budget) FROM dept);
SELECT name FROM emp e WHERE dept_id IN (SELECT MAX(dept_id) FROM dept d WHERE d.budget > e.salary);
SELECT name FROM emp WHERE dept_id IN (SELECT dept_id, budget FROM dept);

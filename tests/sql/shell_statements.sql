-- shell_statements.sql - Flink SQL-client statements, their result tables as
-- Flink's client prints them (right-aligned cells, NULL as an empty cell, no
-- width limit): SHOW COLUMNS [NOT] LIKE, SHOW CURRENT CATALOG / DATABASE,
-- SHOW CATALOGS / DATABASES / TABLES / VIEWS / FUNCTIONS with LIKE, USE,
-- SHOW [FULL] MODULES, SHOW JARS, SHOW CREATE VIEW, DESC, EXPLAIN PLAN FOR,
-- and Flink statements joinery does not run, each named in its error.
-- Expected tables follow flink-sql-client's table.q, view.q, module.q,
-- catalog_database.q and set.q.

CREATE TABLE orders (
  `user` BIGINT NOT NULL,
  product VARCHAR(32),
  amount INT,
  ts TIMESTAMP(3),
  PRIMARY KEY (`user`) NOT ENFORCED,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'datagen', 'number-of-rows' = '3');

-- SHOW COLUMNS FROM / IN, with LIKE and NOT LIKE ('%', '_').
SHOW COLUMNS FROM orders;
SHOW COLUMNS IN orders;
SHOW COLUMNS FROM orders LIKE '%u';
SHOW COLUMNS IN orders NOT LIKE '%r';
SHOW COLUMNS FROM orders LIKE '%u%';
SHOW COLUMNS FROM orders NOT LIKE '%u%';
SHOW COLUMNS FROM orders LIKE 'use_';
SHOW COLUMNS FROM missing;

-- The column width setting does not cut statement results (as Flink).
SET 'table.display.max-column-width' = '10';
DESC orders;
RESET 'table.display.max-column-width';

-- What exists: default_catalog.default_database, the core module, no jars.
SHOW CURRENT CATALOG;
SHOW CURRENT DATABASE;
SHOW CATALOGS;
SHOW CATALOGS LIKE 'x%';
SHOW DATABASES;
SHOW DATABASES FROM default_catalog;
SHOW DATABASES NOT LIKE 'default%';
SHOW DATABASES ILIKE 'DEFAULT%';
SHOW DATABASES FROM other;
SHOW MODULES;
SHOW FULL MODULES;
SHOW JARS;

-- USE: the defaults succeed; a missing catalog or database fails as Flink.
USE default_database;
USE default_catalog.default_database;
USE CATALOG default_catalog;
USE non_existing_db;
USE CATALOG non_existing_catalog;
USE other.default_database;

-- Views: SHOW TABLES lists them too; LIKE filters; FROM the default database.
CREATE VIEW big_orders AS SELECT `user`, amount FROM orders WHERE amount > 10;
SHOW TABLES;
SHOW VIEWS;
SHOW TABLES LIKE 'big%';
SHOW TABLES NOT LIKE 'big%';
SHOW TABLES FROM default_catalog.default_database LIKE '%s';
SHOW TABLES IN other_db;
SHOW CREATE VIEW big_orders;
-- What SHOW CREATE VIEW prints parses again.
DROP VIEW big_orders;
CREATE VIEW `default_catalog`.`default_database`.`big_orders` (
  `user`,
  `amount`
)
AS SELECT `user`, amount FROM orders WHERE amount > 10;
SHOW CREATE VIEW big_orders;
SHOW CREATE TABLE big_orders;
SHOW CREATE VIEW orders;
SHOW COLUMNS FROM big_orders;

-- Identifiers are case-sensitive as in Flink (keywords and function names
-- are not): a name in the other case is not found, and the error says so.
select `user`, AMOUNT from ORDERS;
SELECT Amount FROM orders;
SELECT O.amount FROM orders AS o;
sElEcT o.amount, upper(o.product) FrOm orders AS o WHERE o.amount > 1000;
DESCRIBE Orders;
CREATE TABLE Orders (id INT, Id INT) WITH ('connector' = 'datagen', 'number-of-rows' = '1');
SHOW TABLES LIKE '%rders';
DROP TABLE ORDERS;
DROP TABLE Orders;

-- Functions: the built-in table (engine/plan/function_list.h) and aggregates.
SHOW FUNCTIONS LIKE 'C%';
SHOW FUNCTIONS NOT LIKE '%\_%';
SHOW USER FUNCTIONS;

-- The time a statement took, after its result (off by default in joinery).
SET 'sql-client.display.print-time-cost' = 'false';
SET 'sql-client.display.max-column-width' = '40';
SET;
RESET 'sql-client.display.max-column-width';
RESET 'sql-client.display.print-time-cost';

-- EXPLAIN PLAN FOR is EXPLAIN.
EXPLAIN PLAN FOR SELECT `user` FROM orders WHERE amount > 5;

-- EXPLAIN JSON_EXECUTION_PLAN: the three sections, then the operator graph as
-- Flink's JSON (exchanges become HASH edges; ids in input order from 1).
CREATE TABLE users (user_id BIGINT, name STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
SET 'parallelism.default' = '2';
EXPLAIN JSON_EXECUTION_PLAN
SELECT o.`user`, u.name FROM orders AS o JOIN users AS u ON o.`user` = u.user_id;
RESET 'parallelism.default';
CREATE TABLE out_print (`user` BIGINT, amount INT) WITH ('connector' = 'print');
EXPLAIN JSON_EXECUTION_PLAN, CHANGELOG_MODE INSERT INTO out_print SELECT `user`, amount FROM orders;

-- EXPLAIN FORMAT DOT (joinery's): the physical plan as a Graphviz graph, with
-- exchanges as edges, state TTL and estimated state on the stateful operators.
SET 'table.exec.state.ttl' = '1 h';
EXPLAIN FORMAT DOT
SELECT o.`user`, u.name FROM orders AS o LEFT JOIN users AS u ON o.`user` = u.user_id WHERE o.amount > 10;
EXPLAIN FORMAT DOT, JSON_EXECUTION_PLAN SELECT `user` FROM orders;
RESET 'table.exec.state.ttl';

-- A filesystem sink whose path does not exist: a folder of part files, as
-- Flink makes; each INSERT adds one (read back: the rows twice).
CREATE TABLE parts (`user` BIGINT, amount INT) WITH (
  'connector' = 'filesystem', 'path' = 'tests/sql/data/out/shell_parts', 'format' = 'csv');
INSERT INTO parts SELECT `user`, amount FROM orders;
INSERT INTO parts SELECT `user`, amount FROM orders;
SELECT COUNT(*) AS part_rows FROM parts;

-- A bad record in the middle of a result: the table is closed (bottom
-- border, no footer) before the error, which names the file and line.
CREATE TABLE people (id INT, name STRING, score INT) WITH (
  'connector' = 'filesystem', 'path' = 'tests/sql/data/bad_type.json', 'format' = 'json');
SELECT id, name, score FROM people;

-- Flink statements joinery does not run: named, at the statement's position.
CREATE FUNCTION lower_udf AS 'com.example.LowerUdf';
CREATE TEMPORARY SYSTEM FUNCTION f AS 'com.example.F';
CREATE CATALOG c1 WITH ('type' = 'generic_in_memory');
CREATE DATABASE db1;
DROP DATABASE db1;
ALTER TABLE orders RENAME TO orders2;
LOAD MODULE hive;
USE MODULES core;
ADD JAR '/tmp/udf.jar';
-- (statement sets run now:
--  tests/sql/statement_set.sql)
-- (EXECUTE STATEMENT SET too)
  CALL sys.compact('t');
TRUNCATE TABLE orders;
DELETE FROM orders WHERE amount > 1;
DESCRIBE CATALOG default_catalog;
SHOW PARTITIONS orders;
-- (EXPLAIN STATEMENT SET too)

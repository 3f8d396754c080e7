-- pending/errors_unclear.sql - errors that are unclear or differ from what
-- the README promises; not yet golden.
CREATE TABLE good (id INT, name STRING, score INT, ts AS PROCTIME()) WITH (
  'connector' = 'filesystem', 'path' = 'tests/sql/data/good.csv', 'format' = 'csv');

-- 1. MATCH_RECOGNIZE: "Syntax error: unexpected 'ORDER'; expected column
--    alias" (it parses MATCH_RECOGNIZE as an alias); should be
--    "MATCH_RECOGNIZE is not supported yet".
SELECT * FROM good MATCH_RECOGNIZE (ORDER BY ts MEASURES A.id AS aid PATTERN (A) DEFINE A AS A.id > 0);

-- 2. POSITION(a IN b) and EXTRACT(x FROM y): plain syntax errors
--    ("unexpected ''stream''; expected '('", "unexpected 'FROM'; expected ','
--    or ')'"), although engine/sql/README.md lists them as not supported yet
--    and the function catalogue has POSITION and EXTRACT.
SELECT POSITION('m' IN 'stream');
SELECT EXTRACT(MINUTE FROM TIMESTAMP '2024-06-01 13:45:00');

-- 3. A SELECT whose source fails on line 2 prints the result header, row 1
--    and the table's bottom border (no footer: fixed), then the error; Flink
--    prints the error after the header (row 1, which is valid, is never
--    shown there).
CREATE TABLE people (id INT, name STRING, score INT) WITH (
  'connector' = 'filesystem', 'path' = 'tests/sql/data/bad_type.json', 'format' = 'json');
SELECT id, name, score FROM people;

-- 4. SUM of a string says 'SUM(<STRING>)' where the comparison error says
--    '<VARCHAR(2147483647)>' (Calcite: 'SUM(<VARCHAR(2147483647)>)').
SELECT SUM(name) FROM people;

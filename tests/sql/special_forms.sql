-- special_forms.sql - SQL-standard argument forms: EXTRACT(unit FROM x) and
-- POSITION(a IN b) (also the plain POSITION(a, b)), SUBSTRING(s FROM a [FOR b])
-- (the same as SUBSTRING(s, a [, b])), and MATCH_RECOGNIZE rejected as not
-- supported yet rather than misread as an alias.
SELECT EXTRACT(MINUTE FROM TIMESTAMP '2024-01-01 10:42:00') AS m, EXTRACT(year FROM DATE '2020-05-06') AS y, POSITION('m' IN 'stream') AS p1, POSITION('e', 'stream') AS p2, POSITION('x' IN 'stream') AS p3;
SELECT SUBSTRING('streaming' FROM 3 FOR 4) AS s1, SUBSTRING('streaming' FROM 6) AS s2, SUBSTRING('streaming', 3, 4) AS s3, SUBSTRING('streaming' FROM 2 + 1 FOR CHAR_LENGTH('ab')) AS s4;
SELECT SUBSTRING('streaming' FROM 3 FOR) AS bad;
CREATE TABLE t (a INT) WITH ('connector' = 'datagen', 'number-of-rows' = '1');
SELECT * FROM t MATCH_RECOGNIZE (ORDER BY a MEASURES a AS x PATTERN (A) DEFINE A AS a > 0);

-- User-defined C functions (engine/udf/joinery_udf.h), joinery's LANGUAGE C in Flink's
-- CREATE FUNCTION: scalar functions in SELECT / WHERE (implicit widening of arguments,
-- NULL input skipped or passed, strings from the function's memory), table functions in
-- LATERAL TABLE with the comma form, JOIN ... ON TRUE and LEFT JOIN ... ON TRUE (Flink's
-- Correlate), an updating input's retractions through a table function, SHOW [USER]
-- FUNCTIONS, DROP FUNCTION, and the errors: other languages, missing library or symbol, bad
-- descriptors, wrong argument types or counts, a function returning an error at runtime.
-- The functions are tests/udf/test_udfs.c, built by the Makefile.
CREATE FUNCTION plus_one AS 'plus_one' LANGUAGE C USING JAR 'build/udf/libjoinery_test_udf.so';
CREATE TEMPORARY FUNCTION IF NOT EXISTS str_len AS 'str_len' LANGUAGE C USING JAR 'build/udf/libjoinery_test_udf.so';
CREATE TEMPORARY SYSTEM FUNCTION greet AS 'greet' LANGUAGE C USING JAR 'build/udf/libjoinery_test_udf.so';
CREATE FUNCTION default_catalog.default_database.null_label AS 'null_label' LANGUAGE c USING JAR 'build/udf/libjoinery_test_udf.so';
CREATE FUNCTION fail_negative AS 'fail_negative' LANGUAGE C USING JAR 'build/udf/libjoinery_test_udf.so';
CREATE FUNCTION bad_int AS 'bad_int' LANGUAGE C USING JAR 'build/udf/libjoinery_test_udf.so';
CREATE FUNCTION split_words AS 'split_words' LANGUAGE C USING JAR 'build/udf/libjoinery_test_udf.so';
CREATE FUNCTION scale AS 'scale' LANGUAGE C USING JAR 'build/udf/libjoinery_test_udf.so';
CREATE FUNCTION repeat_row AS 'repeat_row' LANGUAGE C USING JAR 'build/udf/libjoinery_test_udf.so';
CREATE FUNCTION IF NOT EXISTS plus_one AS 'nothing' LANGUAGE C USING JAR 'no/such.so';
SHOW USER FUNCTIONS;
SHOW FUNCTIONS ILIKE 'split%';

CREATE TEMPORARY VIEW t AS SELECT * FROM (VALUES (1, 'a b c'), (2, 'hello  world'), (3, ''), (4, CAST(NULL AS STRING))) AS v(id, s);

-- scalar functions
SELECT id, plus_one(id) AS p, str_len(s) AS n, greet(s) AS g, null_label(CAST(NULL AS INT)) AS l0, null_label(id) AS l1 FROM t;
EXPLAIN SELECT id, plus_one(id) AS p FROM t WHERE str_len(s) > 1;
SELECT id FROM t WHERE str_len(s) > 1 AND plus_one(id) < 10;
SELECT plus_one(CAST(7 AS TINYINT)), plus_one(NULL), greet('joinery'), str_len('héllo');
SELECT scale(1.25, TRUE), scale(3, FALSE), scale(CAST(2.5 AS FLOAT), 1 > 0), scale(CAST(7 AS BIGINT), CAST(NULL AS BOOLEAN));
SELECT scale(1.5, 1);

-- table functions: comma, JOIN ... ON TRUE, LEFT JOIN ... ON TRUE, no aliases
EXPLAIN SELECT id, word, pos FROM t, LATERAL TABLE(split_words(s)) AS w(word, pos);
SELECT id, word, pos FROM t, LATERAL TABLE(split_words(s)) AS w(word, pos);
SELECT id, w.word FROM t JOIN LATERAL TABLE(split_words(s)) AS w ON TRUE WHERE w.pos > 1;
EXPLAIN SELECT id, word FROM t LEFT JOIN LATERAL TABLE(split_words(s)) AS w(word, pos) ON TRUE;
SELECT id, word FROM t LEFT JOIN LATERAL TABLE(split_words(s)) AS w(word, pos) ON TRUE;
SELECT * FROM t, LATERAL TABLE(repeat_row(greet(s), id)) WHERE id < 3;
SELECT id, x FROM t CROSS JOIN LATERAL TABLE(repeat_row('x', CAST(id AS TINYINT))) AS r(x) WHERE id = 2;
SELECT * FROM LATERAL TABLE(split_words('a b'));
SELECT w.word FROM TABLE(split_words('to be')) AS w WHERE w.pos = 2;

-- over an updating input: a changed group retracts the rows of its old value
CREATE TEMPORARY VIEW words AS SELECT * FROM (VALUES (1, 'a'), (2, 'b'), (1, 'c')) AS v(k, w);
SELECT k, word, pos FROM (SELECT k, LISTAGG(w, ' ') AS ws FROM words GROUP BY k) AS g, LATERAL TABLE(split_words(ws)) AS s(word, pos);

-- errors the functions return, at runtime (the statement fails naming the function)
SELECT id, fail_negative(id - 2) FROM t;
SELECT bad_int(3000000000);
SELECT id, x FROM t, LATERAL TABLE(repeat_row(s, 1 - id)) AS r(x);

-- planning errors
SELECT plus_one('x');
SELECT plus_one(1, 2);
SELECT str_len(42);
SELECT split_words('a b');
SELECT id FROM t, LATERAL TABLE(plus_one(id)) AS p(x);
SELECT id FROM t, LATERAL TABLE(no_such_function(id)) AS p(x);
SELECT id FROM t, LATERAL TABLE(split_words(s)) AS w(word);
SELECT id FROM t LEFT JOIN LATERAL TABLE(split_words(s)) AS w(word, pos) ON pos > 1;

-- definition errors
CREATE FUNCTION plus_one AS 'plus_one' LANGUAGE C USING JAR 'build/udf/libjoinery_test_udf.so';
CREATE FUNCTION upper AS 'greet' LANGUAGE C USING JAR 'build/udf/libjoinery_test_udf.so';
CREATE FUNCTION f AS 'com.example.F';
CREATE FUNCTION f AS 'com.example.F' LANGUAGE JAVA USING JAR '/tmp/f.jar';
CREATE TEMPORARY FUNCTION f AS 'f.py' LANGUAGE PYTHON;
CREATE FUNCTION f AS 'f' LANGUAGE RUST USING JAR 'build/udf/libjoinery_test_udf.so';
CREATE FUNCTION f AS 'plus_one' LANGUAGE C;
CREATE FUNCTION f AS 'plus_one' LANGUAGE C USING JAR 'build/udf/no_such_library.so';
CREATE FUNCTION f AS 'no_such_symbol' LANGUAGE C USING JAR 'build/udf/libjoinery_test_udf.so';
CREATE FUNCTION f AS 'bad_abi' LANGUAGE C USING JAR 'build/udf/libjoinery_test_udf.so';
CREATE FUNCTION f AS 'bad_type' LANGUAGE C USING JAR 'build/udf/libjoinery_test_udf.so';
CREATE FUNCTION f AS 'no_entry' LANGUAGE C USING JAR 'build/udf/libjoinery_test_udf.so';
CREATE FUNCTION f AS 'plus_one' LANGUAGE C USING JAR 'a.so', JAR 'b.so';

-- DROP FUNCTION
DROP FUNCTION str_len;
DROP TEMPORARY FUNCTION str_len;
DROP TEMPORARY SYSTEM FUNCTION greet;
DROP FUNCTION IF EXISTS no_such_function;
DROP FUNCTION no_such_function;
SELECT str_len('x');
SHOW USER FUNCTIONS;

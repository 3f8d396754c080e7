-- ROW, ARRAY and MULTISET (and MAPs of them): DDL and DESCRIBE, constructors, field and
-- element access, CARDINALITY / ELEMENT / ARRAY_CONTAINS, CAST, comparison, printing,
-- GROUP BY / DISTINCT on composite values, json round trip through a filesystem sink,
-- COLLECT and ARRAY_AGG with retractions, and what is refused.
CREATE TABLE t (
  id INT,
  r ROW<a INT, b STRING>,
  arr ARRAY<INT>,
  ms MULTISET<STRING>,
  m MAP<STRING, ARRAY<INT>>,
  nested ROW(x ROW<y INT NOT NULL>, z ARRAY<ROW<p DOUBLE>>) NOT NULL
) WITH ('connector' = 'filesystem', 'path' = 'tests/sql/data/composite_values.json', 'format' = 'json');
DESCRIBE t;
SHOW CREATE TABLE t;
SELECT * FROM t;

-- constructors, access, functions
SELECT ROW(1, 'a'), (2, 'b', TRUE), ARRAY[1, 2, 3], ARRAY['x', NULL], ARRAY[ARRAY[1], ARRAY[2, 3]];
SELECT ARRAY[1, 2][2], ARRAY[1, 2][0], ARRAY[1, 2][3], CARDINALITY(ARRAY[1, 2, 3]), ELEMENT(ARRAY[7]), ELEMENT(CAST(NULL AS ARRAY<INT>));
SELECT ROW(1, 'a').EXPR$1, (ROW(1, 'a')).EXPR$0, ARRAY[ROW(1, 'q')][1].EXPR$1, ARRAY_CONTAINS(ARRAY[1, 2], 2), ARRAY_CONTAINS(ARRAY[1, NULL], 3), ARRAY_CONTAINS(ARRAY[1, NULL], CAST(NULL AS INT));
SELECT CAST(ROW(1, 'a') AS STRING), CAST(ARRAY[1, 2] AS ARRAY<BIGINT>), CAST(ROW(1, 2) AS ROW<a STRING, b DOUBLE>), ROW(1, 'a') = ROW(1, 'a'), ARRAY[1] = ARRAY[2], ARRAY[1, 2] <> ARRAY[1, 2];
EXPLAIN SELECT r.a, t.r.b, nested.x.y, arr[1], CARDINALITY(ms), m['k'][2], nested.z[1].p FROM t WHERE ARRAY_CONTAINS(arr, 2) OR r.b IS NOT NULL;
SELECT r.a, t.r.b, nested.x.y, arr[1], CARDINALITY(ms), m['k'][2], nested.z[1].p FROM t;
CREATE VIEW v AS SELECT id, ROW(id, r.b) AS pair, ARRAY[id, r.a] AS ids FROM t;
DESCRIBE v;
SELECT * FROM v WHERE pair.EXPR$0 > 1;

-- composite values as keys
SELECT r, COUNT(*) AS n FROM t GROUP BY r;
SELECT DISTINCT ms FROM t;
SELECT a.id, b.id FROM t a JOIN t b ON a.nested = b.nested;

-- json round trip
CREATE TABLE t_out (
  id INT,
  r ROW<a INT, b STRING>,
  arr ARRAY<INT>,
  ms MULTISET<STRING>,
  m MAP<STRING, ARRAY<INT>>,
  nested ROW(x ROW<y INT NOT NULL>, z ARRAY<ROW<p DOUBLE>>)
) WITH ('connector' = 'filesystem', 'path' = 'tests/sql/data/out/composite', 'format' = 'json');
INSERT INTO t_out SELECT * FROM t;
SELECT * FROM t_out;
CREATE TABLE printed (id INT, r ROW<a INT, b STRING>, arr ARRAY<INT>, ms MULTISET<STRING>) WITH ('connector' = 'print');
INSERT INTO printed SELECT id, r, arr, ms FROM t;

-- COLLECT and ARRAY_AGG
CREATE TABLE e (k STRING, v INT, s STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'filesystem', 'path' = 'tests/sql/data/composite_events.json', 'format' = 'json');
SELECT k, COLLECT(v) AS c, ARRAY_AGG(s) AS a, COUNT(*) AS n FROM e GROUP BY k;
CREATE VIEW last_v AS SELECT k, MAX(v) AS mv FROM e GROUP BY k;
EXPLAIN SELECT mv, COLLECT(k), ARRAY_AGG(k) FROM last_v GROUP BY mv;
SELECT mv, COLLECT(k), ARRAY_AGG(k) FROM last_v GROUP BY mv;
SELECT k, COLLECT(ROW(v, s)) AS events FROM e GROUP BY k;
SELECT COLLECT(DISTINCT v), ARRAY_AGG(DISTINCT v) FROM e;
SELECT window_start, k, COLLECT(s) AS c, ARRAY_AGG(v) AS a FROM TABLE(TUMBLE(TABLE e, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY window_start, window_end, k;

-- refused
CREATE TABLE bad_csv (r ROW<a INT, b STRING>) WITH ('connector' = 'filesystem', 'path' = 'tests/sql/data/out/bad', 'format' = 'csv');
INSERT INTO bad_csv SELECT r FROM t;
CREATE TABLE bad_csv2 (ms MULTISET<STRING>) WITH ('connector' = 'filesystem', 'path' = 'tests/sql/data/out/bad2', 'format' = 'csv');
INSERT INTO bad_csv2 SELECT ms FROM t;
CREATE TABLE bad_row (r ROW<a INT, a STRING>) WITH ('connector' = 'blackhole');
SELECT r.c FROM t;
SELECT id.c FROM t;
SELECT ARRAY[1, 'a'];
SELECT ARRAY[1, 2]['x'];
SELECT ARRAY[1] < ARRAY[2];
SELECT ELEMENT(ARRAY[1, 2]);
SELECT CAST(ARRAY[1] AS ROW<a INT>);

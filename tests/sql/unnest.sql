-- UNNEST as Flink's Correlate over $UNNEST_ROWS$1 (UnnestTest.xml, UnnestITCase): CROSS JOIN,
-- comma and LEFT JOIN ... ON TRUE; ARRAY of scalars (f0), ARRAY of ROW (the row's fields),
-- MULTISET from COLLECT over an updating input (each element as often as it occurs; a
-- retraction of the outer row retracts its rows), MAP (f0 key, f1 value), NULL and empty
-- collections (data/unnest_values.json), filters below, into and above, UNNEST alone in FROM,
-- and what is refused.
CREATE TABLE t (
  id INT,
  arr ARRAY<INT>,
  rows_arr ARRAY<ROW<a INT, b STRING>>,
  m MAP<STRING, INT>
) WITH ('connector' = 'filesystem', 'path' = 'tests/sql/data/unnest_values.json', 'format' = 'json');

-- ARRAY of scalars: CROSS JOIN, comma, LEFT JOIN ... ON TRUE
EXPLAIN SELECT id, x FROM t CROSS JOIN UNNEST(arr) AS u(x);
SELECT id, x FROM t CROSS JOIN UNNEST(arr) AS u(x);
SELECT id, x FROM t, UNNEST(t.arr) AS u(x);
EXPLAIN SELECT id, x FROM t LEFT JOIN UNNEST(arr) AS u(x) ON TRUE;
SELECT id, x FROM t LEFT JOIN UNNEST(arr) AS u(x) ON TRUE;
SELECT * FROM t CROSS JOIN UNNEST(arr);

-- filters: on the left fields below the Correlate, on the function's fields only into it
-- (INNER; Flink's condition=[...] over the function's fields), mixed ones above it
EXPLAIN SELECT id, x FROM t CROSS JOIN UNNEST(arr) AS u(x) WHERE id < 3 AND x > 1;
SELECT id, x FROM t CROSS JOIN UNNEST(arr) AS u(x) WHERE id < 3 AND x > 1;
EXPLAIN SELECT id, x FROM t JOIN UNNEST(arr) AS u(x) ON x <> id;
SELECT id, x FROM t JOIN UNNEST(arr) AS u(x) ON x <> id;
EXPLAIN SELECT * FROM (SELECT id, a, b FROM t CROSS JOIN UNNEST(t.rows_arr) AS s(a, b) WHERE s.a >= 12) AS tmp WHERE b <> 'x' AND id < 4;
SELECT * FROM (SELECT id, a, b FROM t CROSS JOIN UNNEST(t.rows_arr) AS s(a, b) WHERE s.a >= 12) AS tmp WHERE b <> 'x' AND id < 4;
SELECT id, x FROM t LEFT JOIN UNNEST(arr) AS u(x) ON TRUE WHERE x > 1 OR x IS NULL;

-- ARRAY of ROW: the row's fields (a NULL element gives NULL fields)
EXPLAIN SELECT id, a, b FROM t, UNNEST(rows_arr) AS r(a, b) WHERE a > 10;
SELECT id, a, b FROM t, UNNEST(rows_arr) AS r(a, b);
SELECT id, r.a, r.b FROM t CROSS JOIN UNNEST(rows_arr) AS r;
SELECT id, a, b FROM t LEFT JOIN UNNEST(rows_arr) AS r(a, b) ON TRUE;

-- composite_types' table (data/composite_values.json): a MULTISET with an element twice, an
-- ARRAY of ROW inside a ROW, an empty MAP
CREATE TABLE c (
  id INT,
  arr ARRAY<INT>,
  ms MULTISET<STRING>,
  m MAP<STRING, ARRAY<INT>>,
  nested ROW(x ROW<y INT NOT NULL>, z ARRAY<ROW<p DOUBLE>>) NOT NULL
) WITH ('connector' = 'filesystem', 'path' = 'tests/sql/data/composite_values.json', 'format' = 'json');
SELECT id, x FROM c LEFT JOIN UNNEST(arr) AS u(x) ON TRUE;
SELECT id, e FROM c CROSS JOIN UNNEST(ms) AS u(e);
EXPLAIN SELECT id, p FROM c, UNNEST(c.nested.z) AS u(p);
SELECT id, p FROM c, UNNEST(c.nested.z) AS u(p);
SELECT id, k, v FROM c LEFT JOIN UNNEST(m) AS e(k, v) ON TRUE;

-- MAP: key and value
EXPLAIN SELECT id, k, v FROM t CROSS JOIN UNNEST(m) AS e(k, v);
SELECT id, k, v FROM t CROSS JOIN UNNEST(m) AS e(k, v);

-- MULTISET from COLLECT over an updating input: every change of the group's multiset
-- retracts the rows of the old one (-U) and adds the new one's (+U)
CREATE TEMPORARY VIEW events AS SELECT * FROM (VALUES (1, 'a'), (2, 'b'), (1, 'c'), (1, 'a'), (2, CAST(NULL AS STRING))) AS e(k, s);
EXPLAIN SELECT k, s FROM (SELECT k, COLLECT(s) AS ms FROM events GROUP BY k) AS g, UNNEST(g.ms) AS u(s) WHERE k < 5;
SELECT k, s FROM (SELECT k, COLLECT(s) AS ms FROM events GROUP BY k) AS g, UNNEST(g.ms) AS u(s) WHERE k < 5;
EXPLAIN CHANGELOG_MODE SELECT k, s FROM (SELECT k, COLLECT(s) AS ms FROM events GROUP BY k) AS g LEFT JOIN UNNEST(g.ms) AS u(s) ON TRUE;
SELECT k, s, COUNT(*) AS n FROM (SELECT k, COLLECT(s) AS ms FROM events GROUP BY k) AS g LEFT JOIN UNNEST(g.ms) AS u(s) ON TRUE GROUP BY k, s;

-- alone in FROM: over Calcite's one-row Values(ZERO); two of them, the second reading the first
SELECT * FROM UNNEST(ARRAY[1, 2, 3]);
EXPLAIN SELECT x FROM UNNEST(ARRAY[1, 2, 3]) AS t(x) WHERE x > 1;
SELECT x FROM UNNEST(ARRAY[1, 2, 3]) AS t(x) WHERE x > 1;
SELECT * FROM UNNEST(ARRAY[1, 2]) AS a(x) CROSS JOIN UNNEST(ARRAY[x, x * 10]) AS b(y);

-- WITH ORDINALITY (Flink 2.1, FLINK-37267): each element with its 1-based position, an INT NOT
-- NULL column after the element's (named ORDINALITY without aliases); Flink's
-- $UNNEST_ROWS_WITH_ORDINALITY$1 and Calcite's Uncollect(withOrdinality=[true])
EXPLAIN SELECT id, x, n FROM t CROSS JOIN UNNEST(arr) WITH ORDINALITY AS u(x, n);
SELECT id, x, n FROM t CROSS JOIN UNNEST(arr) WITH ORDINALITY AS u(x, n);
SELECT id, x, n FROM t LEFT JOIN UNNEST(arr) WITH ORDINALITY AS u(x, n) ON TRUE;
-- an ARRAY of ROW: the row's fields, then the position (a NULL element keeps its place)
SELECT id, a, b, pos FROM t, UNNEST(rows_arr) WITH ORDINALITY AS r(a, b, pos);
-- a MAP: key, value, position (the map's order); a filter does not renumber
SELECT id, k, v, o FROM t CROSS JOIN UNNEST(m) WITH ORDINALITY AS e(k, v, o) WHERE v > 1;
-- a MULTISET: a repeated element has one position per copy
SELECT id, e, o FROM c CROSS JOIN UNNEST(ms) WITH ORDINALITY AS u(e, o);
-- without aliases, and alone in FROM
SELECT * FROM UNNEST(ARRAY['shirt', 'pants', 'hat']) WITH ORDINALITY;
CREATE TEMPORARY VIEW positions AS SELECT * FROM t CROSS JOIN UNNEST(arr) WITH ORDINALITY;
DESCRIBE positions;
-- the alias list counts the position
SELECT id, x FROM t CROSS JOIN UNNEST(arr) WITH ORDINALITY AS u(x);

-- refused
SELECT id, x FROM t CROSS JOIN UNNEST(id) AS u(x);
SELECT id, x FROM t CROSS JOIN UNNEST(arr) AS u(x, y);
SELECT id, x FROM t LEFT JOIN UNNEST(arr) AS u(x) ON x > 1;
SELECT id, x FROM t RIGHT JOIN UNNEST(arr) AS u(x) ON TRUE;
SELECT id FROM t CROSS JOIN UNNEST(arr, arr) AS u(x, y);

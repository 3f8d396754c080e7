-- BYTES / VARBINARY / BINARY and MAP<K, V>: literals, casts, printing, json, joins.

-- binary literals are BINARY(n); printed x'..' as Flink's SQL client does
SELECT X'0A1B' AS b, X'' AS empty, CAST('héllo' AS BYTES) AS utf8, CAST(X'68656c6c6f' AS STRING) AS s;

-- CAST(bytes AS STRING) decodes UTF-8: ill-formed bytes become U+FFFD (no error, as in Flink)
SELECT CAST(X'61ff62' AS STRING) AS replaced, CHAR_LENGTH(CAST(X'61ff62' AS STRING)) AS n;

-- fitting to BINARY(n) pads with zero bytes, VARBINARY(n) cuts; comparisons are bytewise
SELECT CAST('ab' AS BINARY(4)) AS padded, CAST(X'010203' AS VARBINARY(2)) AS cut,
       X'0a' = X'0A' AS same, X'01' < X'02' AS less, X'ff' > X'0100' AS unsigned_order;

-- casts that Flink rejects
SELECT CAST(1 AS BYTES);
SELECT X'0G';
SELECT X'123';

-- maps: constructor, item access (NULL when absent), CARDINALITY, printed {k=v} in key order
SELECT MAP['b', 1, 'a', 2] AS m, MAP['b', 1, 'a', 2]['a'] AS a, MAP['b', 1]['zz'] AS absent,
       CARDINALITY(MAP['x', X'01', 'y', X'02']) AS n, MAP['k', X'6869'] AS bytes_values;

-- a repeated key keeps its last value; equal maps compare equal whatever the order written
SELECT MAP['k', 1, 'k', 2] AS last_wins, MAP['a', 1, 'b', 2] = MAP['b', 2, 'a', 1] AS equal;

-- maps are not ordered, and items need a key of the key's type
SELECT MAP['a', 1] < MAP['a', 2];
SELECT MAP['a', 1][1];
SELECT CARDINALITY(1);

-- types in DDL, DESCRIBE and SHOW CREATE TABLE
CREATE TABLE blobs (id INT, payload BYTES, tags MAP<STRING, STRING>)
WITH ('connector' = 'filesystem', 'path' = 'tests/sql/data/blobs.json', 'format' = 'json');
DESCRIBE blobs;
SHOW CREATE TABLE blobs;
CREATE TABLE other_types (fixed BINARY(16) NOT NULL, var VARBINARY(100), m MAP<INT NOT NULL, DECIMAL(10, 2)>)
WITH ('connector' = 'print');
DESCRIBE other_types;
CREATE TABLE nested (m MAP<STRING, MAP<STRING, INT>>) WITH ('connector' = 'datagen');

-- json: BYTES are base64, MAP an object
SELECT id, payload, CAST(payload AS STRING) AS text, tags, tags['env'] AS env, CARDINALITY(tags) AS n FROM blobs;

-- bytes as join keys (canonical bytes hash and compare)
SELECT a.id, b.id AS other FROM blobs AS a JOIN blobs AS b ON a.payload = b.payload WHERE a.id < b.id;

-- the print connector writes Row.toString forms: byte[] as [104, 101, ...]
CREATE TABLE printed (id INT, payload BYTES, tags MAP<STRING, STRING>) WITH ('connector' = 'print');
INSERT INTO printed SELECT * FROM blobs;

-- json sink round trip, csv with BYTES (base64), csv rejects MAP
CREATE TABLE blobs_out (id INT, payload BYTES, tags MAP<STRING, STRING>)
WITH ('connector' = 'filesystem', 'path' = 'tests/sql/data/out/blobs.json', 'format' = 'json');
INSERT INTO blobs_out SELECT * FROM blobs;
SELECT * FROM blobs_out;
CREATE TABLE blobs_csv (id INT, payload BYTES)
WITH ('connector' = 'filesystem', 'path' = 'tests/sql/data/out/blobs.csv', 'format' = 'csv');
INSERT INTO blobs_csv SELECT id, payload FROM blobs;
SELECT * FROM blobs_csv;
CREATE TABLE maps_csv (id INT, tags MAP<STRING, STRING>)
WITH ('connector' = 'filesystem', 'path' = 'tests/sql/data/out/maps.csv', 'format' = 'csv');
INSERT INTO maps_csv SELECT id, tags FROM blobs;

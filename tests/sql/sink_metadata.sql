-- sink_metadata.sql - persisted METADATA columns of a sink table: an INSERT
-- writes them (kafka: 'headers' and 'timestamp' go into the records, not
-- the value); a connector that writes no such metadata refuses the INSERT,
-- and VIRTUAL columns are read-only, never written.

CREATE TABLE src (id INT, name STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '3');

CREATE TABLE k_out (
  id INT,
  name STRING,
  headers MAP<STRING, BYTES> METADATA,
  ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp',
  part INT METADATA FROM 'partition' VIRTUAL
) WITH ('connector' = 'kafka', 'topic' = 't', 'properties.bootstrap.servers' = '127.0.0.1:1', 'format' = 'json');

-- the sink takes the physical and the persisted metadata columns, in table order
EXPLAIN INSERT INTO k_out
SELECT id, name, MAP['trace', CAST(name AS BYTES)], CAST(TIMESTAMP '2024-06-01 00:00:00' AS TIMESTAMP_LTZ(3))
FROM src;

-- a VIRTUAL column takes no value: four query columns, not five
INSERT INTO k_out SELECT id, name, MAP['a', CAST('b' AS BYTES)], CAST(NULL AS TIMESTAMP_LTZ(3)), 1 FROM src;

-- 'offset' is read-only for Kafka
CREATE TABLE k_offset (id INT, off BIGINT METADATA FROM 'offset')
WITH ('connector' = 'kafka', 'topic' = 't', 'properties.bootstrap.servers' = '127.0.0.1:1', 'format' = 'json');
INSERT INTO k_offset SELECT id, 1 FROM src;

-- the filesystem connector writes no metadata
CREATE TABLE fs_out (id INT, path STRING METADATA FROM 'file.path')
WITH ('connector' = 'filesystem', 'path' = 'tests/sql/data/out/sink_metadata.json', 'format' = 'json');
INSERT INTO fs_out SELECT id, 'x' FROM src;

-- declared VIRTUAL it is only read, and the INSERT writes the physical columns
CREATE TABLE fs_virtual (id INT, path STRING METADATA FROM 'file.path' VIRTUAL)
WITH ('connector' = 'filesystem', 'path' = 'tests/sql/data/out/sink_metadata.json', 'format' = 'json');
INSERT INTO fs_virtual SELECT id FROM src;
SELECT COUNT(*) AS n FROM fs_virtual;

-- Hostile text: bad records that must not take good ones with them, invalid
-- UTF-8, and messages that say what is wrong (issue 15, "Text" and the CSV
-- case of "Paths and files"). NUL bytes in literals: nul_in_strings.sql.

-- CSV with csv.ignore-parse-errors: an unterminated quote on line 2 of a
-- 1,000-line file is one bad record; reading resumes at line 3. Line 777
-- opens a quoted field closed on line 778 (one good record over two lines);
-- line 900 has a bad INT. 1000 lines - 2 bad - 1 continuation = 997 rows,
-- SUM(id) = 500500 - 2 - 778 - 900 = 498820.
CREATE TABLE quotes (id INT, name STRING) WITH (
  'connector' = 'filesystem',
  'path' = 'tests/sql/data/unterminated_quote.csv',
  'format' = 'csv',
  'csv.ignore-parse-errors' = 'true'
);
CREATE TABLE quote_rows (id INT, name STRING) WITH ('connector' = 'blackhole');
INSERT INTO quote_rows SELECT * FROM quotes;
SELECT id, name FROM quotes WHERE id IN (1, 3, 499, 500, 501, 776, 777, 779, 899, 901, 1000);
SELECT id FROM quotes WHERE id > 996 OR id < 4;
-- without the option, the job fails at line 2, saying how far the record ran
CREATE TABLE quotes_strict (id INT, name STRING) WITH (
  'connector' = 'filesystem',
  'path' = 'tests/sql/data/unterminated_quote.csv',
  'format' = 'csv'
);
SELECT * FROM quotes_strict;

-- JSON records must be UTF-8 (as Flink's Jackson-based format): line 2 has
-- bytes ff fe, line 4 a cut sequence; with json.ignore-parse-errors both are
-- skipped and counted
CREATE TABLE utf8_json (id INT, name STRING) WITH (
  'connector' = 'filesystem',
  'path' = 'tests/sql/data/invalid_utf8.json',
  'format' = 'json'
);
SELECT * FROM utf8_json;
CREATE TABLE utf8_json_lenient (id INT, name STRING) WITH (
  'connector' = 'filesystem',
  'path' = 'tests/sql/data/invalid_utf8.json',
  'format' = 'json',
  'json.ignore-parse-errors' = 'true'
);
SELECT id, name, CHAR_LENGTH(name) FROM utf8_json_lenient;

-- where bytes become a STRING (raw format, CAST of BYTES), each ill-formed
-- sequence is one U+FFFD, as Java's UTF-8 decoder makes it
CREATE TABLE utf8_raw (line STRING) WITH (
  'connector' = 'filesystem',
  'path' = 'tests/sql/data/invalid_utf8.txt',
  'format' = 'raw'
);
SELECT line, CHAR_LENGTH(line) FROM utf8_raw;
SELECT CAST(X'61FFFE62' AS STRING), CHAR_LENGTH(CAST(X'E282' AS STRING));

-- an unterminated block comment says so, at its start (not "empty statement")
SELECT 1;
/* this comment is never closed;
SELECT 2;

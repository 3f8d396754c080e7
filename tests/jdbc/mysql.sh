#!/usr/bin/env bash
# End-to-end tests of the jdbc connector's MySQL / MariaDB path against a
# real MariaDB server (tests/jdbc/mariadb.sh starts one in a temporary
# folder), with the mariadb client as the independent side that creates
# the input and reads the output back.
#
# Usage: tests/jdbc/mysql.sh [BUILD_DIR]   (default: build)
#
# Covered: a bounded scan of every type of Flink's MySQL mapping (NULLs,
# unsigned types, tinyint(1) as BOOLEAN, datetime / timestamp, blobs;
# not BIGINT UNSIGNED, Flink's DECIMAL(20, 0), beyond joinery's 18 digits)
# compared with the expected rows; an aggregate written to an upsert sink
# (ON DUPLICATE KEY UPDATE over rows already in the table) and read back
# equal to MariaDB's own GROUP BY; retractions as DELETEs by the key; an
# append sink without a key; strings with quotes, backslashes and
# non-ASCII round-tripped; the jdbc:mariadb:// url; errors at job start
# naming the table, the store and the column (missing table, missing
# column, type mismatch, wrong password, no server); the password never
# in any output. Exits 0 with a "skip" line when MariaDB cannot be
# installed. Prints "N passed, N failed".
set -u

. "$(dirname "$0")/../jdbc/harness.sh"
harness_init tests/jdbc/mysql.sh
harness_start_or_skip tests/jdbc/mariadb.sh MariaDB
PASSWORD=joinery-secret
sql() { "$ROOT/tests/jdbc/mariadb.sh" sql "$JOINERY_MYSQL_DIR"; }

sql <<'SQL' || { echo "setup failed"; exit 1; }
SET time_zone = '+00:00';
CREATE TABLE types (id INT PRIMARY KEY, b BOOLEAN, ti TINYINT, tu TINYINT UNSIGNED, s SMALLINT,
  su SMALLINT UNSIGNED, m MEDIUMINT, i INT, iu INT UNSIGNED, l BIGINT, lu BIGINT UNSIGNED,
  r FLOAT, d DOUBLE, n DECIMAL(10,2), c CHAR(3), v VARCHAR(20), t TEXT, dt DATE, tm TIME(3),
  ts DATETIME(3), tz TIMESTAMP(3) NULL, y VARBINARY(8), bl BLOB);
INSERT INTO types VALUES
  (1, TRUE, -128, 255, -32768, 65535, -8388608, -2147483648, 4294967295, -9223372036854775808,
   18446744073709551615, 1.5, 2.25, 12.50, 'ab', 'café', 'O''Brien "q" \\ back',
   '2024-02-29', '23:59:58.123', '2024-05-01 10:00:00.500', '2024-05-01 08:00:00.250',
   X'00ff10', X'41'),
  (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
   NULL, NULL, NULL, NULL, NULL, NULL, NULL),
  (3, FALSE, 127, 0, 32767, 0, 8388607, 2147483647, 0, 9223372036854775807, 0, -0.5, -1e300,
   -0.01, '', '', '', '1970-01-01', '00:00:00', '1969-12-31 23:59:59.999',
   '1970-01-01 00:00:01', X'', X'');
CREATE TABLE orders (id INT PRIMARY KEY, customer VARCHAR(10) NOT NULL, amount DECIMAL(10,2) NOT NULL);
INSERT INTO orders SELECT seq, CONCAT('c', seq % 7), (seq % 13) * 1.25 FROM seq_1_to_2500;
CREATE TABLE totals (customer VARCHAR(10) PRIMARY KEY, orders BIGINT NOT NULL, total DECIMAL(12,2));
INSERT INTO totals VALUES ('c1', -1, -1), ('zz', 5, 5);
CREATE TABLE by_count (cnt BIGINT PRIMARY KEY, customers BIGINT NOT NULL);
INSERT INTO by_count VALUES (5, -1), (99999, 1);
CREATE TABLE log (customer VARCHAR(10), amount DECIMAL(10,2));
CREATE TABLE texts (id INT PRIMARY KEY, s VARCHAR(40));
SQL

ddl() { # name columns [extra options] [table-name] [url]
  cat <<SQL
CREATE TABLE $1 ($2) WITH ('connector' = 'jdbc', 'url' = '${5:-$JOINERY_MYSQL_URL}', 'table-name' = '${4:-$1}',
  'username' = 'joinery', 'password' = '$PASSWORD'${3:-});
SQL
}
run_joinery() { # script file -> stdout+stderr
  (cd "$WORK" && HOME="$WORK" "$JOINERY" --continue-on-error -f "$1" 2>&1)
}
no_password() { ! grep -qF "$PASSWORD" "$1"; }

# 1. scan of every mapped type
{
  ddl types "id INT, b BOOLEAN, ti TINYINT, tu SMALLINT, s SMALLINT, su INT, m INT, i INT, iu BIGINT,
  l BIGINT, r FLOAT, d DOUBLE, n DECIMAL(10, 2), c CHAR(3), v VARCHAR(20), t STRING,
  dt DATE, tm TIME(3), ts TIMESTAMP(3), tz TIMESTAMP_LTZ(3), y BYTES, bl BYTES"
  echo "SET 'sql-client.execution.result-mode' = 'tableau';"
  echo "SELECT * FROM types;"
} >"$WORK/scan.sql"
run_joinery "$WORK/scan.sql" >"$WORK/scan.out"
DETAIL="$WORK/scan.out"
sed 's/  */ /g' "$WORK/scan.out" | grep '^| +I' | sort >"$WORK/scan.got"
cat >"$WORK/scan.want" <<'OUT'
| +I | 1 | TRUE | -128 | 255 | -32768 | 65535 | -8388608 | -2147483648 | 4294967295 | -9223372036854775808 | 1.5 | 2.25 | 12.50 | ab | café | O'Brien "q" \ back | 2024-02-29 | 23:59:58 | 2024-05-01 10:00:00.500 | 2024-05-01 08:00:00.250 | x'00ff10' | x'41' |
| +I | 2 | <NULL> | <NULL> | <NULL> | <NULL> | <NULL> | <NULL> | <NULL> | <NULL> | <NULL> | <NULL> | <NULL> | <NULL> | <NULL> | <NULL> | <NULL> | <NULL> | <NULL> | <NULL> | <NULL> | <NULL> | <NULL> |
| +I | 3 | FALSE | 127 | 0 | 32767 | 0 | 8388607 | 2147483647 | 0 | 9223372036854775807 | -0.5 | -1.0E300 | -0.01 | | | | 1970-01-01 | 00:00:00 | 1969-12-31 23:59:59.999 | 1970-01-01 00:00:01.000 | x'' | x'' |
OUT
if cmp -s "$WORK/scan.got" "$WORK/scan.want" && grep -q '^Received a total of 3 rows' "$WORK/scan.out"; then
  pass "scan: every type of Flink's MySQL mapping (unsigned, tinyint(1), datetime, timestamp in UTC, blobs, NULLs)"
else fail "scan: every mapped type"; diff "$WORK/scan.got" "$WORK/scan.want"; fi

# 2. aggregate into an upsert sink over rows already there, read back
{
  ddl orders "id INT, customer VARCHAR(10), amount DECIMAL(10, 2)"
  ddl totals "customer VARCHAR(10), orders BIGINT, total DECIMAL(12, 2), PRIMARY KEY (customer) NOT ENFORCED" ", 'sink.buffer-flush.max-rows' = '3'"
  echo "INSERT INTO totals SELECT customer, COUNT(*), SUM(amount) FROM orders GROUP BY customer;"
} >"$WORK/upsert.sql"
run_joinery "$WORK/upsert.sql" >"$WORK/upsert.out"
echo "SELECT customer, orders, total FROM totals ORDER BY customer" | sql >"$WORK/upsert.got" 2>&1
echo "SELECT customer, COUNT(*), SUM(amount) FROM orders GROUP BY customer UNION ALL SELECT 'zz', 5, 5.00 ORDER BY 1" | sql >"$WORK/upsert.want" 2>&1
if cmp -s "$WORK/upsert.got" "$WORK/upsert.want" && [ "$(wc -l <"$WORK/upsert.got")" = 8 ]; then
  pass "upsert sink: GROUP BY of 2500 rows read back equals MariaDB's own GROUP BY (8 rows, 'c1' overwritten, 'zz' kept)"
else DETAIL="$WORK/upsert.out"; fail "upsert sink"; diff "$WORK/upsert.got" "$WORK/upsert.want" | head; fi

# 2b. retractions: a -D deletes the key's row
{
  ddl orders "id INT, customer VARCHAR(10), amount DECIMAL(10, 2)"
  ddl by_count "cnt BIGINT, customers BIGINT, PRIMARY KEY (cnt) NOT ENFORCED" ", 'sink.buffer-flush.max-rows' = '50'"
  echo "INSERT INTO by_count SELECT cnt, COUNT(*) FROM (SELECT customer, COUNT(*) AS cnt FROM orders GROUP BY customer) GROUP BY cnt;"
} >"$WORK/delete.sql"
run_joinery "$WORK/delete.sql" >"$WORK/delete.out"
echo "SELECT cnt, customers FROM by_count ORDER BY cnt" | sql >"$WORK/delete.got" 2>&1
echo "SELECT cnt, COUNT(*) FROM (SELECT customer, COUNT(*) AS cnt FROM orders GROUP BY customer) c GROUP BY cnt UNION ALL SELECT 99999, 1 ORDER BY 1" | sql >"$WORK/delete.want" 2>&1
if cmp -s "$WORK/delete.got" "$WORK/delete.want" && [ "$(wc -l <"$WORK/delete.got")" = 3 ]; then
  pass "upsert sink with deletes: the row for 5 already there deleted, 99999 kept (3 rows, as MariaDB's own query)"
else DETAIL="$WORK/delete.out"; fail "upsert sink with deletes"; diff "$WORK/delete.got" "$WORK/delete.want" | head; fi

# 3. append sink without a key
{
  ddl orders "id INT, customer VARCHAR(10), amount DECIMAL(10, 2)"
  ddl log "customer VARCHAR(10), amount DECIMAL(10, 2)"
  echo "INSERT INTO log SELECT customer, amount FROM orders WHERE id <= 250;"
} >"$WORK/append.sql"
run_joinery "$WORK/append.sql" >"$WORK/append.out"
got=$(echo "SELECT COUNT(*), SUM(amount) FROM log" | sql)
want=$(echo "SELECT COUNT(*), SUM(amount) FROM orders WHERE id <= 250" | sql)
if [ "$got" = "$want" ] && [ -n "$got" ]; then pass "append sink: 250 rows ($got)"
else DETAIL="$WORK/append.out"; fail "append sink: got '$got' want '$want'"; fi

# 4. strings that need escaping, through the jdbc:mariadb:// url, written and read back
{
  ddl texts "id INT, s STRING, PRIMARY KEY (id) NOT ENFORCED" "" texts "jdbc:mariadb://127.0.0.1:$JOINERY_MYSQL_PORT/joinery"
  echo "INSERT INTO texts VALUES (1, 'it''s'), (2, 'back\\slash'), (3, 'naïve \"q\"'), (4, CAST(NULL AS STRING)), (5, ''), (6, 'a;b');"
  echo "SET 'sql-client.execution.result-mode' = 'tableau';"
  echo "SELECT * FROM texts;"
} >"$WORK/texts.sql"
run_joinery "$WORK/texts.sql" >"$WORK/texts.out"
echo "SELECT id, IFNULL(s, 'NULL'), CHAR_LENGTH(s) FROM texts ORDER BY id" | sql >"$WORK/texts.got"
printf '1\tit'"'"'s\t4\n2\tback\\\\slash\t10\n3\tnaïve "q"\t9\n4\tNULL\tNULL\n5\t\t0\n6\ta;b\t3\n' >"$WORK/texts.want"
DETAIL="$WORK/texts.out"
if cmp -s "$WORK/texts.got" "$WORK/texts.want" && grep -q '^Received a total of 6 rows' "$WORK/texts.out"; then
  pass "quotes, backslashes, non-ASCII, NULL, empty and ';' written as literals and read back (jdbc:mariadb://)"
else fail "strings round trip"; diff "$WORK/texts.got" "$WORK/texts.want"; fi

# 5. errors at job start, naming table, store and column; the password never shown
STORE="127.0.0.1:$JOINERY_MYSQL_PORT/joinery"
error_case() { # label expected-text script-body
  printf '%s\n' "$3" >"$WORK/err.sql"
  run_joinery "$WORK/err.sql" >"$WORK/err.out"
  DETAIL="$WORK/err.out"
  if grep -qF -- "$2" "$WORK/err.out" && no_password "$WORK/err.out"; then pass "$1"
  else fail "$1 (want: $2)"; fi
}
error_case "missing table" "Table 'ghost': table 'ghost' does not exist in MySQL at $STORE" \
  "$(ddl ghost "id INT")
SELECT * FROM ghost;"
error_case "missing column" "Table 'orders': column 'price' does not exist in table 'orders' of MySQL at $STORE" \
  "$(ddl orders "id INT, price INT")
SELECT * FROM orders;"
error_case "type mismatch" "Table 'orders': column 'amount' is declared BIGINT but is decimal(10,2) in table 'orders' of MySQL at $STORE" \
  "$(ddl orders "id INT, amount BIGINT")
SELECT * FROM orders;"
error_case "unsigned mismatch (INT UNSIGNED is BIGINT in Flink's mapping)" "column 'iu' is declared INT but is int(10) unsigned" \
  "$(ddl types "id INT, iu INT")
SELECT * FROM types;"
error_case "sink type mismatch" "Table 'totals': column 'total' is declared STRING NOT NULL but is decimal(12,2)" \
  "$(ddl orders "id INT, customer VARCHAR(10), amount DECIMAL(10, 2)")
$(ddl totals "customer VARCHAR(10), orders BIGINT, total STRING, PRIMARY KEY (customer) NOT ENFORCED")
INSERT INTO totals SELECT customer, COUNT(*), 'x' FROM orders GROUP BY customer;"
error_case "wrong password" "Table 'orders': cannot connect to MySQL at $STORE: Access denied for user 'joinery'" \
  "CREATE TABLE orders (id INT) WITH ('connector' = 'jdbc', 'url' = '$JOINERY_MYSQL_URL', 'table-name' = 'orders', 'username' = 'joinery', 'password' = 'not-$PASSWORD');
SELECT * FROM orders;"
free_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
error_case "no server" "Table 'orders': cannot connect to MySQL at 127.0.0.1:$free_port/joinery: " \
  "CREATE TABLE orders (id INT) WITH ('connector' = 'jdbc', 'url' = 'jdbc:mysql://127.0.0.1:$free_port/joinery', 'table-name' = 'orders', 'password' = '$PASSWORD');
SELECT * FROM orders;"
error_case "driver of another database" "option 'driver' = 'org.postgresql.Driver' does not match the url" \
  "$(ddl orders "id INT" ", 'driver' = 'org.postgresql.Driver'")
SELECT * FROM orders;"
error_case "password masked in SHOW CREATE TABLE and EXPLAIN" "'password' = '******'" \
  "$(ddl orders "id INT, customer VARCHAR(10), amount DECIMAL(10, 2)")
SHOW CREATE TABLE orders;
EXPLAIN SELECT * FROM orders;"

harness_finish

#!/usr/bin/env bash
# End-to-end tests of the jdbc connector against a real PostgreSQL server
# (tests/jdbc/postgres.sh starts one in a temporary folder), with psql as
# the independent client that creates the input and reads the output back.
#
# Usage: tests/jdbc/run.sh [BUILD_DIR]   (default: build)
#
# Covered: a bounded scan of every mapped type (NULLs included) compared
# with psql's view of the same rows; an aggregate written to an upsert sink
# (ON CONFLICT by the primary key, over rows already in the table) and read
# back with psql; retractions as DELETEs by the key; an append sink without a key; errors at job start naming
# the table, the store and the column: missing table, missing column, type
# mismatch, wrong password, no server; the password never in any output
# (SHOW CREATE TABLE, EXPLAIN, errors). Exits 0 with a "skip" line when
# PostgreSQL cannot be installed. Prints "N passed, N failed".
set -u

. "$(dirname "$0")/../jdbc/harness.sh"
harness_init tests/jdbc
harness_start_or_skip tests/jdbc/postgres.sh PostgreSQL
PSQL="psql -qAtX -v ON_ERROR_STOP=1"
# joinery must not find the password anywhere but in the DDL
PASSWORD=$PGPASSWORD
unset PGPASSWORD

PGPASSWORD=$PASSWORD $PSQL -h "$PGHOST" -p "$PGPORT" -U "$PGUSER" -d "$PGDATABASE" >/dev/null <<SQL || { echo "setup failed"; exit 1; }
\set QUIET on
SET TimeZone = 'UTC';
CREATE TABLE types (id int PRIMARY KEY, b boolean, s smallint, i int, l bigint, r real,
  d double precision, n numeric(10,2), c char(3), v varchar(20), t text, dt date, tm time,
  ts timestamp(3), tz timestamptz(3), y bytea);
INSERT INTO types VALUES
  (1, true, 7, -42, 9000000000, 1.5, 2.25, 12.50, 'ab', 'café', 'line
two', '2024-02-29', '23:59:58.123', '2024-05-01 10:00:00.5', '2024-05-01 10:00:00.25+02', '\x00ff10'),
  (2, false, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
  (3, NULL, -32768, 2147483647, -9223372036854775808, 'NaN', '-Infinity', -0.01, 'xyz', '', 'O''Brien "q"', '1970-01-01', '00:00:00', '1969-12-31 23:59:59.999', '1970-01-01 00:00:00+00', '\x');
CREATE TABLE orders (id int PRIMARY KEY, customer varchar(10) NOT NULL, amount numeric(10,2) NOT NULL);
INSERT INTO orders SELECT g, 'c' || (g % 7), (g % 13) * 1.25 FROM generate_series(1, 2500) g;
CREATE TABLE totals (customer varchar(10) PRIMARY KEY, orders bigint NOT NULL, total numeric(12,2));
INSERT INTO totals VALUES ('c1', -1, -1), ('zz', 5, 5);
CREATE TABLE log (customer varchar(10), amount numeric(10,2));
SQL
psql_run() { PGPASSWORD=$PASSWORD $PSQL -h "$PGHOST" -p "$PGPORT" -U "$PGUSER" -d "$PGDATABASE" -c "$1"; }

ddl() { # name columns [extra options]
  cat <<SQL
CREATE TABLE $1 ($2) WITH ('connector' = 'jdbc', 'url' = '$JOINERY_PG_URL', 'table-name' = '${4:-$1}',
  'username' = 'joinery', 'password' = '$PASSWORD'${3:-});
SQL
}
run_joinery() { # script file -> stdout+stderr
  (cd "$WORK" && HOME="$WORK" "$JOINERY" --continue-on-error -f "$1" 2>&1)
}

# 1. scan of every type, compared with psql's own text of the rows
{
  ddl types "id INT, b BOOLEAN, s SMALLINT, i INT, l BIGINT, r FLOAT, d DOUBLE, n DECIMAL(10, 2),
  c CHAR(3), v VARCHAR(20), t STRING, dt DATE, tm TIME(3), ts TIMESTAMP(3), tz TIMESTAMP_LTZ(3), y BYTES" ", 'scan.fetch-size' = '2'"
  echo "SET 'sql-client.execution.result-mode' = 'tableau';"
  echo "SELECT * FROM types;"
} >"$WORK/scan.sql"
run_joinery "$WORK/scan.sql" >"$WORK/scan.out"
DETAIL="$WORK/scan.out"
# the table's rows, spaces squeezed (cells are right-aligned in tableau)
sed 's/  */ /g' "$WORK/scan.out" | grep '^| +I' >"$WORK/scan.got"
cat >"$WORK/scan.want" <<'OUT'
| +I | 1 | TRUE | 7 | -42 | 9000000000 | 1.5 | 2.25 | 12.50 | ab | café | line
| +I | 2 | FALSE | <NULL> | <NULL> | <NULL> | <NULL> | <NULL> | <NULL> | <NULL> | <NULL> | <NULL> | <NULL> | <NULL> | <NULL> | <NULL> | <NULL> |
| +I | 3 | <NULL> | -32768 | 2147483647 | -9223372036854775808 | NaN | -Infinity | -0.01 | xyz | | O'Brien "q" | 1970-01-01 | 00:00:00 | 1969-12-31 23:59:59.999 | 1970-01-01 00:00:00.000 | x'' |
OUT
if cmp -s "$WORK/scan.got" "$WORK/scan.want" &&
   grep -q "^two | 2024-02-29 | *23:59:58 | 2024-05-01 10:00:00.500 | 2024-05-01 08:00:00.250 | *x'00ff10' |" "$WORK/scan.out" &&
   grep -q '^Received a total of 3 rows' "$WORK/scan.out"; then
  pass "scan: every mapped type, NULLs, NaN/-Infinity, bytea, timestamptz in UTC (fetch-size 2)"
else fail "scan: every mapped type"; fi

# 2. aggregate into an upsert sink over rows already there, read back with psql
{
  ddl orders "id INT, customer VARCHAR(10), amount DECIMAL(10, 2)"
  ddl totals "customer VARCHAR(10), orders BIGINT, total DECIMAL(12, 2), PRIMARY KEY (customer) NOT ENFORCED" ", 'sink.buffer-flush.max-rows' = '3'"
  echo "INSERT INTO totals SELECT customer, COUNT(*), SUM(amount) FROM orders GROUP BY customer;"
} >"$WORK/upsert.sql"
run_joinery "$WORK/upsert.sql" >"$WORK/upsert.out"
psql_run "SELECT customer, orders, total FROM totals ORDER BY customer" >"$WORK/upsert.got" 2>&1
psql_run "SELECT customer, count(*), sum(amount) FROM orders GROUP BY customer UNION ALL SELECT 'zz', 5, 5.00 ORDER BY 1" >"$WORK/upsert.want" 2>&1
if cmp -s "$WORK/upsert.got" "$WORK/upsert.want" && [ "$(wc -l <"$WORK/upsert.got")" = 8 ]; then
  pass "upsert sink: GROUP BY of 2500 rows read back with psql equals PostgreSQL's own GROUP BY (8 rows, 'c1' overwritten, 'zz' kept)"
else DETAIL="$WORK/upsert.out"; fail "upsert sink"; diff "$WORK/upsert.got" "$WORK/upsert.want" | head; fi

# 2b. retractions into an upsert sink: a -D deletes the key's row in PostgreSQL
PGPASSWORD=$PASSWORD $PSQL -h "$PGHOST" -p "$PGPORT" -U "$PGUSER" -d "$PGDATABASE" \
  -c "CREATE TABLE by_count (cnt bigint PRIMARY KEY, customers bigint NOT NULL); INSERT INTO by_count VALUES (5, -1), (99999, 1)"
{
  ddl orders "id INT, customer VARCHAR(10), amount DECIMAL(10, 2)"
  ddl by_count "cnt BIGINT, customers BIGINT, PRIMARY KEY (cnt) NOT ENFORCED" ", 'sink.buffer-flush.max-rows' = '50'"
  echo "INSERT INTO by_count SELECT cnt, COUNT(*) FROM (SELECT customer, COUNT(*) AS cnt FROM orders GROUP BY customer) GROUP BY cnt;"
} >"$WORK/delete.sql"
run_joinery "$WORK/delete.sql" >"$WORK/delete.out"
psql_run "SELECT cnt, customers FROM by_count ORDER BY cnt" >"$WORK/delete.got" 2>&1
psql_run "SELECT cnt, count(*) FROM (SELECT customer, count(*) AS cnt FROM orders GROUP BY customer) c GROUP BY cnt UNION ALL SELECT 99999, 1 ORDER BY 1" >"$WORK/delete.want" 2>&1
if cmp -s "$WORK/delete.got" "$WORK/delete.want" && [ "$(wc -l <"$WORK/delete.got")" = 3 ]; then
  pass "upsert sink with deletes: counts 1..356 inserted and deleted again, the row for 5 already there deleted, 99999 kept (3 rows, as PostgreSQL's own query)"
else DETAIL="$WORK/delete.out"; fail "upsert sink with deletes"; diff "$WORK/delete.got" "$WORK/delete.want" | head; fi

# 3. append sink without a key
{
  ddl orders "id INT, customer VARCHAR(10), amount DECIMAL(10, 2)"
  ddl log "customer VARCHAR(10), amount DECIMAL(10, 2)"
  echo "INSERT INTO log SELECT customer, amount FROM orders WHERE id <= 250;"
} >"$WORK/append.sql"
run_joinery "$WORK/append.sql" >"$WORK/append.out"
got=$(psql_run "SELECT count(*), sum(amount) FROM log")
want=$(psql_run "SELECT count(*), sum(amount) FROM orders WHERE id <= 250")
if [ "$got" = "$want" ]; then pass "append sink: 250 rows ($got)"
else DETAIL="$WORK/append.out"; fail "append sink: got '$got' want '$want'"; fi

# 4. an updating result into a jdbc table without a key is rejected
{
  ddl orders "id INT, customer VARCHAR(10), amount DECIMAL(10, 2)"
  ddl log "customer VARCHAR(10), amount DECIMAL(10, 2)"
  echo "INSERT INTO log SELECT customer, SUM(amount) FROM orders GROUP BY customer;"
} >"$WORK/nokey.sql"
run_joinery "$WORK/nokey.sql" >"$WORK/nokey.out"
DETAIL="$WORK/nokey.out"
if grep -q "PRIMARY KEY" "$WORK/nokey.out"; then pass "updating result into a keyless jdbc table: rejected with the hint"
else fail "updating result into a keyless jdbc table"; fi

# 5. errors at job start, naming table, store and column; the password never shown
STORE="127.0.0.1:$PGPORT/joinery"
error_case() { # label expected-text script-body
  printf '%s\n' "$3" >"$WORK/err.sql"
  run_joinery "$WORK/err.sql" >"$WORK/err.out"
  DETAIL="$WORK/err.out"
  if grep -qF -- "$2" "$WORK/err.out" && ! grep -qF "$PASSWORD" "$WORK/err.out"; then pass "$1"
  else fail "$1 (want: $2)"; fi
}
error_case "missing table" "Table 'ghost': table 'ghost' does not exist in PostgreSQL at $STORE" \
  "$(ddl ghost "id INT")
SELECT * FROM ghost;"
error_case "missing column" "Table 'orders': column 'price' does not exist in table 'orders' of PostgreSQL at $STORE" \
  "$(ddl orders "id INT, price INT")
SELECT * FROM orders;"
error_case "type mismatch" "Table 'orders': column 'amount' is declared BIGINT but is numeric(10,2) in table 'orders' of PostgreSQL at $STORE" \
  "$(ddl orders "id INT, amount BIGINT")
SELECT * FROM orders;"
error_case "sink type mismatch" "Table 'totals': column 'total' is declared STRING NOT NULL but is numeric(12,2)" \
  "$(ddl orders "id INT, customer VARCHAR(10), amount DECIMAL(10, 2)")
$(ddl totals "customer VARCHAR(10), orders BIGINT, total STRING, PRIMARY KEY (customer) NOT ENFORCED")
INSERT INTO totals SELECT customer, COUNT(*), 'x' FROM orders GROUP BY customer;"
error_case "wrong password" "Table 'orders': cannot connect to PostgreSQL at $STORE: " \
  "CREATE TABLE orders (id INT) WITH ('connector' = 'jdbc', 'url' = '$JOINERY_PG_URL', 'table-name' = 'orders', 'username' = 'joinery', 'password' = 'not-$PASSWORD');
SELECT * FROM orders;"
grep -q 'password authentication failed for user "joinery"' "$WORK/err.out" && pass "wrong password: libpq's reason" || fail "wrong password: libpq's reason"
free_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
error_case "no server" "Table 'orders': cannot connect to PostgreSQL at 127.0.0.1:$free_port/joinery: " \
  "CREATE TABLE orders (id INT) WITH ('connector' = 'jdbc', 'url' = 'jdbc:postgresql://127.0.0.1:$free_port/joinery', 'table-name' = 'orders', 'password' = '$PASSWORD');
SELECT * FROM orders;"
error_case "url with credentials" "option 'url' must not hold credentials" \
  "CREATE TABLE orders (id INT) WITH ('connector' = 'jdbc', 'url' = 'jdbc:postgresql://joinery:$PASSWORD@127.0.0.1:$PGPORT/joinery', 'table-name' = 'orders');
SELECT * FROM orders;"
error_case "sink.max-retries other than 0 rejected" "option 'sink.max-retries' = '3' is not supported yet" \
  "$(ddl orders "id INT" ", 'sink.max-retries' = '3'")
SELECT * FROM orders;"
error_case "password masked in SHOW CREATE TABLE and EXPLAIN" "'password' = '******'" \
  "$(ddl orders "id INT, customer VARCHAR(10), amount DECIMAL(10, 2)")
SHOW CREATE TABLE orders;
EXPLAIN SELECT * FROM orders;"

harness_finish

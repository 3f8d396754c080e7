#!/usr/bin/env bash
# End-to-end tests of the redis connector's sink against a real Redis
# server (tests/redis/redis.sh starts one), with redis-cli as the
# independent side that reads what joinery wrote.
#
# Usage: tests/redis/run.sh [BUILD_DIR]   (default: build)
#
# Covered: 'set' (a value column) of 300 rows with a ttl; an aggregate's
# updates and retractions into 'set' (the last value per key, deleted keys
# gone); 'hset' (key, field, value); 'hmget' (a hash a row, a NULL column
# as a missing field); the row layout ('\x01'-joined values, DATE and
# TIMESTAMP as jeff-zou encodes them); errors at job start naming the table
# and the store (wrong password, no server, a table that cannot be
# scanned); the password never in any output. Exits 0 with a "skip" line
# when Redis cannot be installed. Prints "N passed, N failed".
set -u

. "$(dirname "$0")/../jdbc/harness.sh"
harness_init tests/redis
harness_start_or_skip tests/redis/redis.sh Redis
PASSWORD=$JOINERY_REDIS_PASSWORD
cli() { "$ROOT/tests/redis/redis.sh" cli "$JOINERY_REDIS_DIR" "$@"; }
ddl() { # name columns command [extra options]
  cat <<SQL
CREATE TABLE $1 ($2) WITH ('connector' = 'redis', 'host' = '127.0.0.1', 'port' = '$JOINERY_REDIS_PORT',
  'password' = '$PASSWORD', 'command' = '$3'${4:-});
SQL
}
run_joinery() { (cd "$WORK" && HOME="$WORK" "$JOINERY" --continue-on-error -f "$1" 2>&1); }
no_password() { ! grep -qF "$PASSWORD" "$1"; }
SOURCE="CREATE TABLE numbers (n INT) WITH ('connector' = 'datagen', 'fields.n.kind' = 'sequence', 'fields.n.start' = '1', 'fields.n.end' = '300');"

# 1. set: 300 keys with a ttl
{
  echo "$SOURCE"
  ddl plain "k STRING, v BIGINT" set ", 'ttl' = '600'"
  echo "INSERT INTO plain SELECT CONCAT('n:', CAST(n AS STRING)), CAST(n AS BIGINT) * 10 FROM numbers;"
} >"$WORK/set.sql"
run_joinery "$WORK/set.sql" >"$WORK/set.out"
DETAIL="$WORK/set.out"
keys=$(cli --scan --pattern 'n:*' | wc -l)
v=$(cli GET n:123)
ttl=$(cli TTL n:7)
if [ "$keys" = 300 ] && [ "$v" = 1230 ] && [ "$ttl" -gt 500 ] && [ "$ttl" -le 600 ] && no_password "$WORK/set.out"; then
  pass "set: 300 keys, GET n:123 = 1230, ttl 600 set"
else fail "set (keys=$keys v=$v ttl=$ttl)"; fi

# 2. an aggregate's changelog into 'set': the last value per key; retracted keys deleted
{
  echo "$SOURCE"
  ddl counts "cnt STRING, customers BIGINT" set
  echo "INSERT INTO counts SELECT CAST(cnt AS STRING), COUNT(*) FROM (SELECT n % 7 AS g, COUNT(*) AS cnt FROM numbers GROUP BY n % 7) GROUP BY cnt;"
} >"$WORK/agg.sql"
cli SET 43 stale >/dev/null
run_joinery "$WORK/agg.sql" >"$WORK/agg.out"
DETAIL="$WORK/agg.out"
# 300 numbers in 7 groups: groups 1..6 hold 43 numbers, group 0 holds 42
got="$(cli GET 42) $(cli GET 43) $(cli EXISTS 1) $(cli EXISTS 40)"
if [ "$got" = "1 6 0 0" ]; then pass "set from an updating aggregate: 42 -> 1, 43 -> 6 (overwritten), retracted counts deleted"
else fail "set from an updating aggregate (got '$got')"; fi

# 3. hset: key, field, value
{
  echo "$SOURCE"
  ddl fields "k STRING, f STRING, v DOUBLE" hset
  echo "INSERT INTO fields SELECT CONCAT('h', CAST(n % 3 AS STRING)), CAST(n AS STRING), n / 4.0 FROM numbers WHERE n <= 30;"
} >"$WORK/hset.sql"
run_joinery "$WORK/hset.sql" >"$WORK/hset.out"
DETAIL="$WORK/hset.out"
got="$(cli HLEN h0) $(cli HLEN h1) $(cli HGET h2 29)"
if [ "$got" = "10 10 7.25" ]; then pass "hset: 30 rows into 3 hashes, HGET h2 29 = 7.25"
else fail "hset (got '$got')"; fi

# 4. hmget: a hash a row, a NULL column left out
{
  ddl people "id BIGINT, name STRING, city STRING, score DOUBLE" hmget
  echo "INSERT INTO people VALUES (1, 'ann', 'paris', 1.5), (2, 'bob', CAST(NULL AS STRING), 2.0);"
} >"$WORK/hmget.sql"
run_joinery "$WORK/hmget.sql" >"$WORK/hmget.out"
DETAIL="$WORK/hmget.out"
got="$(cli HGET 1 name) $(cli HGET 1 city) $(cli HGET 1 score) $(cli HLEN 2) $(cli HEXISTS 2 city)"
if [ "$got" = "ann paris 1.5 2 0" ]; then pass "hmget: columns as hash fields, a NULL column not written"
else fail "hmget (got '$got')"; fi

# 5. the row layout: every column joined by \x01, DATE as days, TIMESTAMP as epoch milliseconds
{
  ddl rows "k STRING, d DATE, ts TIMESTAMP(3), ok BOOLEAN, note STRING" set ", 'value.data.structure' = 'row'"
  echo "INSERT INTO rows VALUES ('r1', DATE '1970-01-11', TIMESTAMP '1970-01-01 00:00:01.500', TRUE, CAST(NULL AS STRING));"
} >"$WORK/row.sql"
run_joinery "$WORK/row.sql" >"$WORK/row.out"
DETAIL="$WORK/row.out"
got=$(cli --raw GET r1 | od -An -c | tr -s ' ')
want=$(printf 'r1\00110\0011500\001true\001\n' | od -An -c | tr -s ' ')
if [ "$got" = "$want" ]; then pass "row layout: r1\\x0110\\x011500\\x01true\\x01 (jeff-zou's encodings)"
else fail "row layout (got '$got')"; fi

# 6. errors at job start naming table and store, never the password
STORE="Redis at 127.0.0.1:$JOINERY_REDIS_PORT/0"
error_case() { # label expected-text script-body
  printf '%s\n' "$3" >"$WORK/err.sql"
  run_joinery "$WORK/err.sql" >"$WORK/err.out"
  DETAIL="$WORK/err.out"
  if grep -qF -- "$2" "$WORK/err.out" && no_password "$WORK/err.out" && ! grep -qF "CANARY" "$WORK/err.out"; then pass "$1"
  else fail "$1 (want: $2)"; fi
}
error_case "wrong password" "Table 'plain': authentication to $STORE failed: WRONGPASS" \
  "CREATE TABLE plain (k STRING, v STRING) WITH ('connector' = 'redis', 'host' = '127.0.0.1', 'port' = '$JOINERY_REDIS_PORT', 'password' = 'CANARY_REDIS', 'command' = 'set');
INSERT INTO plain VALUES ('a', 'b');"
free_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
error_case "no server" "Table 'plain': cannot connect to Redis at 127.0.0.1:$free_port/0: " \
  "CREATE TABLE plain (k STRING, v STRING) WITH ('connector' = 'redis', 'host' = '127.0.0.1', 'port' = '$free_port', 'password' = '$PASSWORD', 'command' = 'set');
INSERT INTO plain VALUES ('a', 'b');"
error_case "a redis table is not scanned" "cannot be read: connector 'redis' is not a source" \
  "$(ddl plain "k STRING, v STRING" get)
SELECT * FROM plain;"
error_case "EXPLAIN of a scan of a redis table refused at planning, naming it" \
  "Cannot generate a valid execution plan for the given query: table \`plain\` cannot be read: connector 'redis' is not a source; it can only be looked up" \
  "$(ddl plain "k STRING, v STRING" get)
EXPLAIN SELECT k FROM plain WHERE v = 'x';"
error_case "layout checked when the table is created" "with 'command' = 'set' the table has 2 columns (the key first), not 3 columns" \
  "$(ddl plain "k STRING, v STRING, w STRING" set)"
error_case "commands not supported named" "option 'command' = 'rpush' is not supported" \
  "$(ddl plain "k STRING, v STRING" rpush)"
error_case "password masked in SHOW CREATE TABLE" "'password' = '******'" \
  "$(ddl plain "k STRING, v STRING" set)
SHOW CREATE TABLE plain;"

harness_finish

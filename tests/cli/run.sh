#!/usr/bin/env bash
# End-to-end tests of the joinery command-line shell (cli/).
#
# Usage: tests/cli/run.sh [BUILD_DIR]   (default: build; uses BUILD_DIR/joinery)
# Runs script-mode tests here and terminal tests through a pseudo-terminal
# (tests/cli/pty_test.py). Every command runs under `timeout`; nothing depends
# on wall-clock speed. Prints "N passed, N failed" and exits non-zero when
# anything failed. Tests that need queries the engine cannot run yet are
# reported as skipped, never as passed.
set -u

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-build}
case "$BUILD" in /*) ;; *) BUILD="$ROOT/$BUILD" ;; esac
JOINERY="$BUILD/joinery"
if [ ! -x "$JOINERY" ]; then
  echo "tests/cli: $JOINERY not found (run make first)"
  echo "0 passed, 1 failed"
  exit 1
fi

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export HOME="$WORK/home"
mkdir -p "$HOME"
LIMIT=30
passed=0
failed=0
skipped=0

pass() { passed=$((passed + 1)); echo "ok   $1"; }
fail() {
  failed=$((failed + 1)); echo "FAIL $1"
  [ -f "$WORK/out" ] && { echo "  --- stdout:"; sed 's/^/  | /' "$WORK/out" | head -40; }
  [ -f "$WORK/err" ] && { echo "  --- stderr:"; sed 's/^/  | /' "$WORK/err" | head -40; }
}
skip() { skipped=$((skipped + 1)); echo "skip $1 ($2)"; }

# run ARGS...: runs joinery with stdin from /dev/null unless redirected by the caller
run() { timeout "$LIMIT" "$JOINERY" "$@" >"$WORK/out" 2>"$WORK/err" </dev/null; rc=$?; }
# run_input TEXT ARGS...: pipes TEXT into joinery
run_input() {
  local input=$1; shift
  printf '%s' "$input" | timeout "$LIMIT" "$JOINERY" "$@" >"$WORK/out" 2>"$WORK/err"; rc=$?
}
out_has() { grep -qF -- "$1" "$WORK/out"; }
err_has() { grep -qF -- "$1" "$WORK/err"; }

# ---------------------------------------------------------------- arguments
run --version
if [ $rc -eq 0 ] && grep -q '^joinery [0-9]' "$WORK/out"; then pass "--version"; else fail "--version"; fi

run --help
if [ $rc -eq 0 ] && out_has "--output" && out_has "-f, --file"; then pass "--help"; else fail "--help"; fi
run -h
if [ $rc -eq 0 ] && out_has "Usage: joinery"; then pass "-h"; else fail "-h"; fi

run --no-such-option
if [ $rc -eq 2 ] && err_has "unknown option"; then pass "unknown option exits 2"; else fail "unknown option exits 2"; fi
run --output xml -e 'SET;'
if [ $rc -eq 2 ] && err_has "unknown output format"; then pass "bad --output exits 2"; else fail "bad --output exits 2"; fi
run -f
if [ $rc -eq 2 ]; then pass "-f without argument exits 2"; else fail "-f without argument exits 2"; fi

# ---------------------------------------------------------------- -e
run -e "SET 'parallelism.default' = '7'; SET;"
if [ $rc -eq 0 ] && out_has "[INFO] Session property has been set." \
   && grep -q '^|  *parallelism.default |  *7 |$' "$WORK/out" && out_has "rows in set"; then
  pass "-e SET and SET listing (tableau)"
else fail "-e SET and SET listing (tableau)"; fi

run -e "HELP;"
if [ $rc -eq 0 ] && [ -s "$WORK/out" ] && ! grep -q '^\[ERROR\]' "$WORK/err"; then pass "-e HELP"; else fail "-e HELP"; fi
# HELP lists what exists: every connector of the registry and every format
missing=""
for name in $(sed -n '/CONNECTOR_NAMES\[\] = {/,/};/p' "$ROOT/engine/connector/registry.c" \
                | grep -o '"[a-z-]*"' | tr -d '"') \
            $(grep -o 'strcmp(name, "[a-z-]*") == 0' "$ROOT/engine/format/format.c" | grep -o '"[a-z-]*"' | tr -d '"'); do
  grep -q -- "[ ,]$name[,.]" "$WORK/out" || missing="$missing $name"
done
for word in ANALYZE PLAN_ADVICE "SHOW JOB METRICS" "SHOW COLUMNS" kafka; do
  grep -q -- "$word" "$WORK/out" || missing="$missing $word"
done
if [ -z "$missing" ]; then pass "HELP lists every connector, format and statement"
else fail "HELP lists every connector, format and statement (missing:$missing)"; fi

run -e "SET 'parallelism.default' = '3'"
if [ $rc -eq 0 ] && out_has "[INFO]"; then pass "-e last statement without ';'"; else fail "-e last statement without ';'"; fi

run -e "  -- only a comment"
if [ $rc -eq 0 ] && [ ! -s "$WORK/out" ] && [ ! -s "$WORK/err" ]; then pass "-e blank text"; else fail "-e blank text"; fi

run -e "SELECT * FROM (VALUES ('a;b')) AS t(s); SET;"
if [ $rc -eq 0 ] && out_has "a;b |" && out_has "rows in set"; then pass "';' inside a string does not split"; else fail "';' inside a string does not split"; fi

run -e "QUIT; SET 'parallelism.default' = '1';"
if [ $rc -eq 0 ] && ! out_has "[INFO]"; then pass "QUIT stops -e"; else fail "QUIT stops -e"; fi

# ---------------------------------------------------------------- -f
cat >"$WORK/bad.sql" <<'SQL'
SET 'parallelism.default' = '2';

SELECT * FROM nosuch_table;
SET 'parallelism.default' = '3';
SQL
(cd "$WORK" && timeout "$LIMIT" "$JOINERY" -f bad.sql >"$WORK/out" 2>"$WORK/err" </dev/null); rc=$?
if [ $rc -eq 1 ] && grep -q '^bad\.sql:3:[0-9][0-9]*: \[ERROR\] Could not execute SQL statement\. Reason:$' "$WORK/err" \
   && [ "$(grep -c 'INFO' "$WORK/out")" -eq 1 ]; then
  pass "-f stops at the first error, exit 1, file:LINE:COL: prefix"
else fail "-f stops at the first error, exit 1, file:LINE:COL: prefix"; fi
if err_has "  3 | SELECT * FROM nosuch_table;" && grep -q '^    | *\^$' "$WORK/err"; then
  pass "-f error shows the source line and a caret"
else fail "-f error shows the source line and a caret"; fi

(cd "$WORK" && timeout "$LIMIT" "$JOINERY" --continue-on-error -f bad.sql >"$WORK/out" 2>"$WORK/err" </dev/null); rc=$?
if [ $rc -eq 1 ] && [ "$(grep -c 'INFO' "$WORK/out")" -eq 2 ] && err_has "bad.sql:3:"; then
  pass "--continue-on-error keeps going, exit 1"
else fail "--continue-on-error keeps going, exit 1"; fi

printf "SET 'parallelism.default' = '2';\n\tSET 'table.exec.state.ttl' =\n  '1 h';  SELECT\n  * FROM\tmissing_one;\n" >"$WORK/pos.sql"
run -f "$WORK/pos.sql"
if [ $rc -eq 1 ] && grep -q "pos\.sql:4:10: \[ERROR\]" "$WORK/err" \
   && grep -q "^  4 |   \* FROM	missing_one;$" "$WORK/err" && grep -q "^    |         	^$" "$WORK/err"; then
  pass "-f error position on a later line of a multi-line statement"
else fail "-f error position on a later line of a multi-line statement"; fi

run -f "$WORK/does-not-exist.sql"
if [ $rc -eq 1 ] && err_has "does-not-exist.sql"; then pass "-f missing file exits 1"; else fail "-f missing file exits 1"; fi

printf "SET 'parallelism.default' = '42';\n" >"$WORK/init.sql"
run -i "$WORK/init.sql" -e "SET;"
if [ $rc -eq 0 ] && grep -q ' 42 |' "$WORK/out"; then pass "-i runs before -e"; else fail "-i runs before -e"; fi

# ---------------------------------------------------------------- piped stdin
printf "SET 'parallelism.default' = '2';\nSELECT *\n  FROM nowhere;\n" >"$WORK/stdin.sql"
timeout "$LIMIT" "$JOINERY" <"$WORK/stdin.sql" >"$WORK/out" 2>"$WORK/err"; rc=$?
if [ $rc -eq 1 ] && grep -q '^<stdin>:3:8: \[ERROR\] Could not execute SQL statement\. Reason:$' "$WORK/err" \
   && err_has "  3 |   FROM nowhere;" && grep -q '^    |        \^$' "$WORK/err"; then
  pass "piped stdin errors say <stdin>:LINE:COL: with the line and a caret"
else fail "piped stdin errors say <stdin>:LINE:COL: with the line and a caret"; fi
run_input "SET 'parallelism.default' = '5';
SET
;
SET;"
if [ $rc -eq 0 ] && [ "$(grep -c ' 5 |' "$WORK/out")" -eq 2 ] && ! out_has "joinery>" && ! grep -q "joinery>" "$WORK/err"; then
  pass "piped stdin runs as a script without prompts"
else fail "piped stdin runs as a script without prompts"; fi

run_input "SELECT * FROM nope;
SET 'parallelism.default' = '1';
"
if [ $rc -eq 1 ] && ! out_has "[INFO]" && err_has "[ERROR] Could not execute SQL statement. Reason:"; then
  pass "piped stdin stops at an error, exit 1"
else fail "piped stdin stops at an error, exit 1"; fi

# a statement set reads the source its INSERTs share once (SHOW JOB METRICS), piped stdin
# keeps EXECUTE STATEMENT SET BEGIN ... END; together
run_input "CREATE TABLE emp (id INT, name STRING) WITH (
  'connector' = 'filesystem', 'path' = '$ROOT/tests/sql/data/emp.json', 'format' = 'json');
CREATE TABLE h1 (id INT, name STRING) WITH ('connector' = 'blackhole');
CREATE TABLE h2 (name STRING) WITH ('connector' = 'blackhole');
EXECUTE STATEMENT SET BEGIN
  INSERT INTO h1 SELECT id, name FROM emp;
  INSERT INTO h2 SELECT name || CAST(id AS STRING) FROM emp;
END;
SHOW JOB METRICS;"
if [ $rc -eq 0 ] && out_has "[INFO] Job finished: 6 rows written to h1, 6 rows written to h2." \
   && [ "$(grep -c ' TableSourceScan ' "$WORK/out")" -eq 1 ] \
   && grep -qE '^[0-9]+ +TableSourceScan +1 +6 +6 ' "$WORK/out" \
   && out_has "6 rows written to h1" && out_has "6 rows written to h2"; then
  pass "a statement set reads its shared source once"
else fail "a statement set reads its shared source once"; fi

# input that ends inside BEGIN STATEMENT SET: its INSERTs did not run, said on stderr, exit 1
run_input "CREATE TABLE h1 (id INT) WITH ('connector' = 'blackhole');
BEGIN STATEMENT SET;
INSERT INTO h1 VALUES (1);
INSERT INTO h1 VALUES (2);"
if [ $rc -eq 1 ] && out_has "[INFO] Add SQL update statement to the statement set." &&
   ! out_has "Job finished" &&
   err_has "[ERROR] The statement set begun with BEGIN STATEMENT SET was never ended with END; its 2 INSERT statements were not submitted."; then
  pass "input that ends inside a statement set says its INSERTs were not submitted, exit 1"
else fail "input that ends inside a statement set says its INSERTs were not submitted, exit 1"; fi

# wait_for TEXT FILE: polls (bounded, about LIMIT seconds) until FILE contains TEXT
wait_for() {
  local tries=$((LIMIT * 20))
  while [ $tries -gt 0 ]; do
    grep -qF -- "$1" "$2" 2>/dev/null && return 0
    sleep 0.05; tries=$((tries - 1))
  done
  return 1
}

mkfifo "$WORK/fifo"
"$JOINERY" <"$WORK/fifo" >"$WORK/out" 2>"$WORK/err" &
pid=$!
exec 3>"$WORK/fifo"
printf "SET 'parallelism.default' =\n '3';\n" >&3
if wait_for "[INFO]" "$WORK/out"; then streamed=1; else streamed=0; fi
printf "SET;\n" >&3
exec 3>&-
wait $pid; rc=$?
if [ $streamed -eq 1 ] && [ $rc -eq 0 ] && grep -q ' 3 |' "$WORK/out"; then
  pass "piped stdin runs each statement as soon as it is complete"
else fail "piped stdin runs each statement as soon as it is complete"; fi

printf "CREATE TABLE endless (x BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '50');\nSELECT * FROM endless;\nSET 'parallelism.default' = '2';\n" >"$WORK/endless.sql"
"$JOINERY" -f "$WORK/endless.sql" >"$WORK/out" 2>"$WORK/err" </dev/null &
pid=$!
if wait_for "| +I |" "$WORK/out"; then
  kill -INT $pid; wait $pid; rc=$?
  if [ $rc -eq 130 ] && out_has "Query terminated, received a total of" \
     && ! out_has "Session property has been set"; then
    pass "SIGINT cancels a script's query, stops the script, exit 130"
  else fail "SIGINT cancels a script's query, stops the script, exit 130 (rc=$rc)"; fi
else
  kill -KILL $pid 2>/dev/null; wait $pid 2>/dev/null
  skip "SIGINT during a script query" "engine: no rows from an unbounded datagen table"
fi

# a Kafka table whose cluster cannot be reached (port 1 of this machine refuses): the wait
# for its metadata is shown after a second (--progress) and SIGINT stops it at once, long
# before the 60 s the look-up would take (bounded by LIMIT, which is shorter)
printf "CREATE TABLE unreachable (id BIGINT) WITH ('connector' = 'kafka', 'topic' = 't', 'properties.bootstrap.servers' = '127.0.0.1:1', 'format' = 'json', 'scan.startup.mode' = 'earliest-offset');\nSELECT * FROM unreachable;\nSET 'parallelism.default' = '2';\n" >"$WORK/unreachable.sql"
"$JOINERY" --progress -f "$WORK/unreachable.sql" >"$WORK/out" 2>"$WORK/err" </dev/null &
pid=$!
if wait_for "Waiting for the Kafka cluster at '127.0.0.1:1'" "$WORK/err"; then
  kill -INT $pid
  timeout "$LIMIT" tail --pid=$pid -f /dev/null; wait $pid; rc=$?
  if [ $rc -eq 130 ] && out_has "Job cancelled while it was starting." \
     && ! out_has "Session property has been set"; then
    pass "SIGINT stops the wait for an unreachable Kafka cluster at once, exit 130"
  else fail "SIGINT stops the wait for an unreachable Kafka cluster at once, exit 130 (rc=$rc)"; fi
else
  kill -KILL $pid 2>/dev/null; wait $pid 2>/dev/null
  fail "a Kafka table with an unreachable cluster shows that it waits"
fi
printf "CREATE TABLE unreachable (id BIGINT) WITH ('connector' = 'kafka', 'topic' = 't', 'properties.bootstrap.servers' = '127.0.0.1:1', 'format' = 'json', 'scan.startup.mode' = 'earliest-offset', 'properties.default.api.timeout.ms' = '1500');\nSELECT * FROM unreachable;\n" >"$WORK/bounded.sql"
run -f "$WORK/bounded.sql"
if [ $rc -eq 1 ] && err_has "Cannot read the metadata of the Kafka cluster at '127.0.0.1:1'"; then
  pass "properties.default.api.timeout.ms bounds the wait for the Kafka cluster"
else fail "properties.default.api.timeout.ms bounds the wait for the Kafka cluster"; fi

# result modes table and changelog: full-screen views in a terminal only; piped output
# keeps the tableau, with --output as with SET
for mode in table changelog; do
  run --output $mode -e "SELECT k, COUNT(*) AS c FROM (VALUES ('a'), ('a')) AS t(k) GROUP BY k;"
  if [ $rc -eq 0 ] && grep -q '^| -U |  *a |  *1 |$' "$WORK/out" && out_has "Received a total of 3 rows" \
     && ! grep -q $'\033' "$WORK/out"; then
    pass "--output $mode piped: the tableau, no screen codes"
  else fail "--output $mode piped: the tableau, no screen codes"; fi
done

# EXPLAIN FORMAT DOT is a graph Graphviz reads (checked when Graphviz is installed)
run -e "CREATE TABLE a (k BIGINT, v INT) WITH ('connector' = 'datagen', 'number-of-rows' = '1'); CREATE TABLE b (k BIGINT, w INT) WITH ('connector' = 'datagen', 'number-of-rows' = '1'); EXPLAIN FORMAT DOT SELECT a.v, b.w FROM a JOIN b ON a.k = b.k;"
if [ $rc -ne 0 ] || ! out_has "digraph plan {"; then
  fail "EXPLAIN FORMAT DOT prints a digraph"
elif command -v dot >/dev/null; then
  if sed -n '/^digraph/,/^}/p' "$WORK/out" | dot -Tsvg >/dev/null 2>"$WORK/err"; then
    pass "EXPLAIN FORMAT DOT: Graphviz draws it"
  else fail "EXPLAIN FORMAT DOT: Graphviz draws it"; fi
else
  skip "EXPLAIN FORMAT DOT: Graphviz draws it" "no dot (graphviz) installed"
fi

# csv output tells NULL (an empty field) from the empty string ("")
run --output csv -e "SELECT CAST(NULL AS STRING) AS n, '' AS e, 'a,b' AS c;"
if [ $rc -eq 0 ] && [ "$(sed -n 2p "$WORK/out")" = '+I,,"","a,b"' ]; then
  pass "csv: NULL is an empty field, the empty string is \"\""
else fail "csv: NULL is an empty field, the empty string is \"\""; fi

# ---------------------------------------------------------------- output formats
run --output csv -e "SET 'parallelism.default' = '9'; SET;"
if [ $rc -eq 0 ] && grep -q '^parallelism\.default,9$' "$WORK/out" && ! out_has "+---" \
   && head -1 "$WORK/out" | grep -q '^key,value$' && ! out_has "[INFO]"; then
  pass "--output csv SET listing (header, RFC 4180 quoting)"
else fail "--output csv SET listing (header, RFC 4180 quoting)"; fi

run --output json -e "SET 'parallelism.default' = '8'; SET;"
if [ $rc -eq 0 ] && [ -s "$WORK/out" ] && python3 - "$WORK/out" <<'PY'
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1], encoding="utf-8")]
assert {"key": "parallelism.default", "value": "8"} in rows, rows
PY
then pass "--output json SET listing (one valid object per line)"
else fail "--output json SET listing (one valid object per line)"; fi

run -e "SET 'sql-client.execution.result-mode' = 'csv'; SET 'parallelism.default' = '6'; SET;"
if [ $rc -eq 0 ] && grep -q '^parallelism\.default,6$' "$WORK/out"; then pass "result-mode csv set in session"; else fail "result-mode csv set in session"; fi

# queries: a SELECT over VALUES in each format
query="SELECT * FROM (VALUES (1, 'alice', CAST(NULL AS STRING)), (2, 'b,ob', 'x')) AS t(id, name, note);"
run -e "$query"
if [ $rc -ne 0 ]; then
  skip "SELECT over VALUES (tableau/csv/json)" "engine: $(head -2 "$WORK/err" | tail -1)"
else
  if out_has "| op |" && grep -q '^| +I |' "$WORK/out" && out_has "<NULL>" \
     && out_has "Received a total of 2 rows"; then
    pass "SELECT tableau (op column, <NULL>, footer)"
  else fail "SELECT tableau (op column, <NULL>, footer)"; fi
  run --output csv -e "$query"
  if [ $rc -eq 0 ] && grep -q '^op,id,name,note$' "$WORK/out" && grep -q '^+I,1,alice,$' "$WORK/out" \
     && grep -q '^+I,2,"b,ob",x$' "$WORK/out"; then
    pass "SELECT csv"
  else fail "SELECT csv"; fi
  run --output json -e "$query"
  if [ $rc -eq 0 ] && grep -qF '{"op":"+I","id":1,"name":"alice","note":null}' "$WORK/out"; then
    pass "SELECT json"
  else fail "SELECT json"; fi
fi

# SHOW JOB METRICS: the watermark under each operator that watermarks reach
# (bounded: +infinity once the input ended; a join whose other input has no
# watermark has none); the existing lines keep their shape
cat >"$WORK/metrics.sql" <<EOF
CREATE TABLE orders (order_id BIGINT, user_id BIGINT, order_time TIMESTAMP(3),
  WATERMARK FOR order_time AS order_time - INTERVAL '5' SECOND)
WITH ('connector' = 'filesystem', 'path' = '$ROOT/sample-data/orders.json', 'format' = 'json');
CREATE TABLE users (user_id BIGINT, user_name STRING)
WITH ('connector' = 'filesystem', 'path' = '$ROOT/sample-data/users.json', 'format' = 'json');
SELECT o.order_id FROM orders AS o JOIN users AS u ON o.user_id = u.user_id WHERE o.order_id <= 3;
SHOW JOB METRICS;
EOF
run --output csv -f "$WORK/metrics.sql"
if [ $rc -eq 0 ] && python3 - "$WORK/out" <<'PY'
import re, sys
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
header = [i for i, line in enumerate(lines) if line.startswith("id   operator")]
assert header, "no metrics header"
below = {}
operator = None
for line in lines[header[0] + 1:]:
    match = re.match(r"^\d+ +(\w+) +\d+ +\d+ +\d+ +\d+ +\d+ +\d+ +[\d.]+ +\S+", line)
    if match:
        operator = match.group(1)
        below.setdefault(operator, [])
    elif operator and line.strip():
        below[operator].append(line.strip())
assert below["WatermarkAssigner"] == ["watermark +infinity (end of input)"], below
assert below["Join"] == ["watermark none"], below
assert below["TableSourceScan"] == [], below  # neither scan generates one
assert below["Collect"] == [], below
PY
then pass "SHOW JOB METRICS: a watermark line under the operators watermarks reach"
else fail "SHOW JOB METRICS watermark lines"; fi

# SHOW JOB METRICS: a window semi join's late rows, counted per side as Flink's
# leftNumLateRecordsDropped / rightNumLateRecordsDropped (tests/sql/semi_anti_window_join.sql
# has the data: 2 late orders, 3 late payments, more than a source batch behind)
cat >"$WORK/late.sql" <<EOF
CREATE TABLE lo (order_id BIGINT, rowtime TIMESTAMP(3),
  WATERMARK FOR rowtime AS rowtime - INTERVAL '5' SECOND)
WITH ('connector' = 'filesystem', 'path' = '$ROOT/tests/sql/data/late_orders.json', 'format' = 'json');
CREATE TABLE lp (pay_id BIGINT, order_id BIGINT, rowtime TIMESTAMP(3),
  WATERMARK FOR rowtime AS rowtime - INTERVAL '5' SECOND)
WITH ('connector' = 'filesystem', 'path' = '$ROOT/tests/sql/data/late_payments.json', 'format' = 'json');
SELECT o.order_id FROM TABLE(TUMBLE(TABLE lo, DESCRIPTOR(rowtime), INTERVAL '5' MINUTES)) o
WHERE EXISTS (SELECT * FROM TABLE(TUMBLE(TABLE lp, DESCRIPTOR(rowtime), INTERVAL '5' MINUTES)) p
  WHERE o.order_id = p.order_id AND o.window_start = p.window_start AND o.window_end = p.window_end);
SHOW JOB METRICS;
EOF
run --output csv -f "$WORK/late.sql"
if [ $rc -eq 0 ] && grep -A2 -E '^[0-9]+ +WindowJoin ' "$WORK/out" | grep -q 'leftNumLateRecordsDropped 2' &&
   grep -A2 -E '^[0-9]+ +WindowJoin ' "$WORK/out" | grep -q 'rightNumLateRecordsDropped 3'
then pass "SHOW JOB METRICS: a window semi join's late rows per side"
else fail "SHOW JOB METRICS: a window semi join's late rows per side"; fi

# SHOW JOB METRICS: the rows a mini-batch Join and MultiJoin folded (rank_prices has three
# rows changed or deleted after their insert, all in one batch: three pairs, 6 rows)
printf 'tea,T\ncoffee,C\n' >"$WORK/categories.csv"
cat >"$WORK/fold.sql" <<EOF
SET 'table.exec.mini-batch.enabled' = 'true';
SET 'table.exec.mini-batch.allow-latency' = '100000 d';
SET 'table.exec.mini-batch.size' = '1000';
CREATE TABLE prices (product STRING, category STRING, price INT)
WITH ('connector' = 'filesystem', 'path' = '$ROOT/tests/sql/data/rank_prices.debezium.json', 'format' = 'debezium-json');
CREATE TABLE labels (category STRING, label STRING)
WITH ('connector' = 'filesystem', 'path' = '$WORK/categories.csv', 'format' = 'csv');
CREATE TABLE notes (category STRING, note STRING)
WITH ('connector' = 'filesystem', 'path' = '$WORK/categories.csv', 'format' = 'csv');
SELECT p.product, l.label FROM prices AS p JOIN labels AS l ON p.category = l.category;
SHOW JOB METRICS;
SET 'table.optimizer.multi-join.enabled' = 'true';
SELECT p.product, l.label, n.note FROM prices AS p
JOIN labels AS l ON p.category = l.category JOIN notes AS n ON p.category = n.category;
SHOW JOB METRICS;
EOF
run --output csv -f "$WORK/fold.sql"
if [ $rc -eq 0 ] &&
   grep -A1 -E '^[0-9]+ +Join ' "$WORK/out" | grep -q 'mini-batch: 6 rows folded (cancelled in pairs before the state), 10 state accesses' &&
   grep -A4 -E '^[0-9]+ +MultiJoin ' "$WORK/out" | grep -q 'mini-batch: 6 rows folded (cancelled in pairs before the state)$'
then pass "SHOW JOB METRICS: the rows a mini-batch Join and MultiJoin folded"
else fail "SHOW JOB METRICS: the rows a mini-batch Join and MultiJoin folded"; fi

# ---------------------------------------------------------------- robustness
timeout "$LIMIT" "$JOINERY" -e "HELP;" >/dev/full 2>"$WORK/err"; rc=$?
if [ $rc -eq 1 ]; then pass "write error on stdout exits 1"; else fail "write error on stdout exits 1 (rc=$rc)"; fi

python3 - "$WORK/junk.sql" <<'PY'
import random, sys
random.seed(7)
pieces = ["'", "''", "`", "--", "/*", "*/", "/*+", ";", "\n", "\t", " ", "SELECT", "SET", "FROM",
          "(", ")", ",", "=", "\x00", "\xff", "\xc3", "\xe2\x80\xa8", "1e999", "NaN", "\\", '"']
with open(sys.argv[1], "wb") as f:
    for _ in range(4000):
        p = random.choice(pieces)
        f.write(p.encode("latin-1") if all(ord(c) < 256 for c in p) else p.encode())
    f.write(bytes(random.randrange(256) for _ in range(4000)))
PY
timeout "$LIMIT" "$JOINERY" --continue-on-error -f "$WORK/junk.sql" >"$WORK/out" 2>"$WORK/err" </dev/null; rc=$?
if [ $rc -le 1 ]; then pass "junk input does not crash (-f)"; else fail "junk input does not crash (-f, rc=$rc)"; fi
timeout "$LIMIT" "$JOINERY" --continue-on-error <"$WORK/junk.sql" >"$WORK/out" 2>"$WORK/err"; rc=$?
if [ $rc -le 1 ]; then pass "junk input does not crash (stdin)"; else fail "junk input does not crash (stdin, rc=$rc)"; fi

# SIGINT stops a query blocked writing its rows to a full pipe (SIGINT has no SA_RESTART:
# the blocked write returns and the cancel is seen)
cat >"$WORK/endless.sql" <<'SQL'
CREATE TABLE g (a BIGINT) WITH ('connector' = 'datagen', 'fields.a.kind' = 'sequence', 'fields.a.start' = '1', 'fields.a.end' = '1000000000');
SELECT a FROM g;
SQL
mkfifo "$WORK/full_pipe"
exec 9<>"$WORK/full_pipe" # a reader that never reads
"$JOINERY" -f "$WORK/endless.sql" >"$WORK/full_pipe" 2>"$WORK/err" &
pid=$!
blocked=0
for _ in $(seq 1 $((LIMIT * 10))); do
  grep -q pipe_write "/proc/$pid/wchan" 2>/dev/null && { blocked=1; break; }
  sleep 0.1
done
kill -INT $pid 2>/dev/null
waited=0
while kill -0 $pid 2>/dev/null && [ $waited -lt $((LIMIT * 10)) ]; do sleep 0.1; waited=$((waited + 1)); done
if kill -0 $pid 2>/dev/null; then
  kill -KILL $pid; wait $pid 2>/dev/null
  fail "SIGINT stops a query blocked on a full pipe"
elif [ $blocked -eq 1 ]; then
  wait $pid
  pass "SIGINT stops a query blocked on a full pipe"
else
  wait $pid
  fail "SIGINT stops a query blocked on a full pipe (it never blocked in pipe_write)"
fi
exec 9<&-

# SIGINT stops a query whose Kafka source retries its metadata look-ups at start (no
# broker at the address: the retries would go on for a minute)
cat >"$WORK/nobroker.sql" <<'SQL'
CREATE TABLE k (a INT) WITH ('connector' = 'kafka', 'topic' = 't', 'properties.bootstrap.servers' = '127.0.0.1:9', 'format' = 'json', 'scan.startup.mode' = 'earliest-offset');
SELECT * FROM k;
SQL
"$JOINERY" -f "$WORK/nobroker.sql" >"$WORK/out" 2>"$WORK/err" </dev/null &
pid=$!
for _ in $(seq 1 $((LIMIT * 10))); do out_has "Execute statement succeeded" && break; sleep 0.1; done
sleep 0.5
kill -INT $pid 2>/dev/null
waited=0
while kill -0 $pid 2>/dev/null && [ $waited -lt $((LIMIT * 10)) ]; do sleep 0.1; waited=$((waited + 1)); done
if kill -0 $pid 2>/dev/null; then
  kill -KILL $pid; wait $pid 2>/dev/null
  fail "SIGINT stops a Kafka source retrying its start look-ups"
else
  wait $pid
  if err_has "Cannot read the metadata"; then
    fail "SIGINT stops a Kafka source retrying its start look-ups (it failed instead)"
  else
    pass "SIGINT stops a Kafka source retrying its start look-ups"
  fi
fi

# an error on a 1 MB line shows a window around the position, not the line
python3 -c "print('SELECT ' + ', '.join(['1'] * 350000) + ', nope;')" >"$WORK/long.sql"
run -f "$WORK/long.sql"
if [ $rc -eq 1 ] && err_has "Column 'nope' not found" && err_has "  1 | ..., 1, 1, 1" &&
  err_has "1, 1, nope;" && [ "$(wc -c <"$WORK/err")" -lt 1000 ] &&
  [ "$(sed -n 3p "$WORK/err" | awk '{ print index($0, "nope") }')" = \
    "$(sed -n 4p "$WORK/err" | awk '{ print index($0, "^") }')" ]; then
  pass "an error on a 1 MB line shows a window around its position"
else
  fail "an error on a 1 MB line shows a window around its position (rc=$rc, $(wc -c <"$WORK/err") bytes)"
fi

if command -v valgrind >/dev/null 2>&1 && [ "${JOINERY_CLI_VALGRIND:-1}" = 1 ]; then
  timeout 120 valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
    "$JOINERY" --output json -e "SET 'parallelism.default' = '2'; SET; HELP; $query SELECT * FROM nowhere;" \
    >"$WORK/out" 2>"$WORK/err" </dev/null; rc=$?
  if [ $rc -eq 1 ]; then pass "valgrind clean (-e, json, error path)"; else fail "valgrind clean (rc=$rc)"; fi
else
  skip "valgrind" "valgrind not installed or JOINERY_CLI_VALGRIND=0"
fi

rm -f "$WORK/out" "$WORK/err"

# ---------------------------------------------------------------- files (tests/cli/files.sh)
. "$ROOT/tests/cli/files.sh"

# ---------------------------------------------------------------- jobs (tests/cli/jobs.sh)
. "$ROOT/tests/cli/jobs.sh"

# ---------------------------------------------------------------- terminal
if command -v python3 >/dev/null 2>&1; then
  python3 "$ROOT/tests/cli/pty_test.py" "$JOINERY" "$WORK/pty" >"$WORK/pty.log" 2>&1
  cat "$WORK/pty.log"
  p=$(sed -n 's/^pty: \([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped$/\1/p' "$WORK/pty.log")
  f=$(sed -n 's/^pty: \([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped$/\2/p' "$WORK/pty.log")
  s=$(sed -n 's/^pty: \([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped$/\3/p' "$WORK/pty.log")
  if [ -z "$p" ]; then
    fail "pseudo-terminal tests did not report"
  else
    passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
  fi
else
  skip "pseudo-terminal tests" "python3 not found"
fi

# ---------------------------------------------------------------- secrets (canaries)
if [ -x "$BUILD/kafka-mock" ] && command -v python3 >/dev/null 2>&1; then
  timeout 240 "$ROOT/tests/cli/secrets.sh" "$BUILD" >"$WORK/secrets.log" 2>&1
  cat "$WORK/secrets.log"
  p=$(sed -n 's/^secrets: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p' "$WORK/secrets.log")
  f=$(sed -n 's/^secrets: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p' "$WORK/secrets.log")
  if [ -z "$p" ]; then
    fail "secrets canary test did not report"
  else
    passed=$((passed + p)); failed=$((failed + f))
  fi
else
  skip "secrets canary test" "build/kafka-mock or python3 not found"
fi

echo "$passed passed, $failed failed ($skipped skipped)"
[ "$failed" -eq 0 ]

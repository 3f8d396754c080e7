#!/usr/bin/env bash
# Lookup joins against a real PostgreSQL server (tests/jdbc/postgres.sh starts
# one), nothing mocked.
#
# Usage: tests/lookup/run.sh [BUILD_DIR]   (default: build)
#        UPDATE=1 tests/lookup/run.sh      rewrites the golden .out files (read them!)
#
# 1. Golden scripts: every tests/lookup/NAME.sql (after NAME.pg.sql set the
#    tables up through psql) with @URL@ / @PASSWORD@ replaced, output (the
#    server's port shown as @PORT@) equal to NAME.out byte for byte.
# 2. Caches, without asserting on time: a job reads its probe rows from a FIFO
#    the test writes one row at a time, waiting for each result in PostgreSQL
#    (the job's jdbc sink) and changing the looked-up row in between: a
#    PARTIAL cache with a long TTL answers the old value, one whose TTL has
#    passed (the test sleeps past it) the new one; FULL without and with a
#    periodic reload likewise; SHOW JOB METRICS' request and hit counts; a
#    slow store (pg_sleep in a view) past an async 'timeout'; the async window's
#    mean in flight between 0 and the capacity.
# 3. Differential: random lookup joins (INNER/LEFT, field / computed /
#    constant keys, residuals, dim-side filters) run by joinery into a
#    PostgreSQL table and compared (EXCEPT ALL both ways) with the same join
#    done by PostgreSQL over the same rows, sync, async ordered and
#    unordered, without a cache, PARTIAL (small: evictions) and FULL, at
#    parallelism 1 and 2 (with shuffle).
# 4. Faults: the server stopped for two seconds mid-job: with enough
#    lookup.max-retries the job recovers and every row comes out once; with
#    lookup.max-retries = 1 the job fails naming the table and the store.
#    Seed 004's async table function at parallelism 1 and 2 (same rows), and
#    the server halted under it: the job fails naming the store.
# Exits 0 with a "skip" line when PostgreSQL cannot be installed. Prints
# "N passed, N failed".
set -u

. "$(dirname "$0")/../jdbc/harness.sh"
harness_init tests/lookup
harness_start_or_skip tests/jdbc/postgres.sh PostgreSQL
harness_cleanup_extra() { [ -n "${WRITER_PID:-}" ] && kill "$WRITER_PID" 2>/dev/null; }
PASSWORD=$PGPASSWORD
PSQL="psql -qAtX -v ON_ERROR_STOP=1"
psql_run() { PGPASSWORD=$PASSWORD $PSQL -h "$PGHOST" -p "$PGPORT" -U "$PGUSER" -d "$PGDATABASE" "$@"; }
unset PGPASSWORD

# substitute SCRIPT > OUT
substitute() { sed -e "s|@URL@|$JOINERY_PG_URL|g" -e "s|@PASSWORD@|$PASSWORD|g" -e "s|@PGPORT@|$PGPORT|g" "$1"; }
run_joinery() { # script -> stdout+stderr, from the repository root
  (cd "$ROOT" && HOME="$WORK" "$JOINERY" --continue-on-error -f "$1" 2>&1)
}

# LOOKUP_SECTIONS (default "1 2 3 4 5") picks the sections to run
SECTIONS=" ${LOOKUP_SECTIONS:-1 2 3 4 5} "
section() { case "$SECTIONS" in *" $1 "*) return 0 ;; esac; return 1; }

# ---------------------------------------------------------------- 1. golden scripts
section 1 && for script in "$ROOT"/tests/lookup/*.sql; do
  name=$(basename "$script" .sql)
  case "$name" in *.pg) continue ;; esac
  if [ -f "$ROOT/tests/lookup/$name.pg.sql" ]; then
    psql_run -f "$ROOT/tests/lookup/$name.pg.sql" >"$WORK/setup.log" 2>&1 || {
      DETAIL="$WORK/setup.log" fail "$name: setup"; continue; }
  fi
  substitute "$script" >"$WORK/$name.sql"
  run_joinery "$WORK/$name.sql" | sed -e "s|$WORK/|WORK/|g" -e "s|$PGPORT|@PORT@|g" \
    -e "s|$PASSWORD|@PASSWORD@|g" >"$WORK/$name.actual"
  if [ "${UPDATE:-}" = 1 ]; then
    cp "$WORK/$name.actual" "$ROOT/tests/lookup/$name.out"
  fi
  if diff -u "$ROOT/tests/lookup/$name.out" "$WORK/$name.actual" >"$WORK/$name.diff"; then
    pass "$name (golden)"
  else
    DETAIL="$WORK/$name.diff" fail "$name (golden)"
  fi
done

# ---------------------------------------------------------------- 2. caches
# wait_rows TABLE N: until TABLE has N rows (30 s at most)
wait_rows() {
  for _ in $(seq 1 300); do
    [ "$(psql_run -c "SELECT count(*) FROM $1")" -ge "$2" ] && return 0
    sleep 0.1
  done
  return 1
}

# cache_case NAME DIM_OPTIONS EXPECTED [SLEEP]: probe rows 1, 2 of key 1, the dim row
# changed from 'v1' to 'v2' between them (and SLEEP seconds waited); EXPECTED is the
# v of both results, "v1 v1" or "v1 v2".
cache_case() {
  local name=$1 options=$2 expected=$3 pause=${4:-0}
  psql_run -c "DROP TABLE IF EXISTS cdim, cout; CREATE TABLE cdim (k int PRIMARY KEY, v text);
    INSERT INTO cdim VALUES (1, 'v1'), (2, 'other'); CREATE TABLE cout (seq int PRIMARY KEY, v text);" >/dev/null
  rm -f "$WORK/probe.fifo"; mkfifo "$WORK/probe.fifo"
  cat >"$WORK/cache.sql" <<SQL
CREATE TABLE probe (seq INT, k INT, pt AS PROCTIME())
WITH ('connector' = 'filesystem', 'path' = '$WORK/probe.fifo', 'format' = 'csv', 'source.fifo.enabled' = 'true');
CREATE TABLE cdim (k INT, v STRING) WITH ('connector' = 'jdbc', 'url' = '$JOINERY_PG_URL',
  'table-name' = 'cdim', 'username' = 'joinery', 'password' = '$PASSWORD'$options);
CREATE TABLE cout (seq INT, v STRING, PRIMARY KEY (seq) NOT ENFORCED) WITH ('connector' = 'jdbc',
  'url' = '$JOINERY_PG_URL', 'table-name' = 'cout', 'username' = 'joinery', 'password' = '$PASSWORD');
INSERT INTO cout SELECT p.seq, d.v FROM probe p JOIN cdim FOR SYSTEM_TIME AS OF p.pt AS d ON p.k = d.k;
SHOW JOB METRICS;
SQL
  run_joinery "$WORK/cache.sql" >"$WORK/cache.out" &
  local job=$!
  exec 3>"$WORK/probe.fifo"
  echo "1,1" >&3
  echo "10,2" >&3
  local ok=true
  wait_rows cout 2 || ok=false
  psql_run -c "UPDATE cdim SET v = 'v2' WHERE k = 1" >/dev/null
  [ "$pause" != 0 ] && sleep "$pause"
  echo "2,1" >&3
  wait_rows cout 3 || ok=false
  exec 3>&-
  wait $job
  local got
  got=$(psql_run -c "SELECT string_agg(v, ' ' ORDER BY seq) FROM cout WHERE seq IN (1, 2)")
  if $ok && [ "$got" = "$expected" ]; then
    pass "cache: $name ($got)"
  else
    echo "got '$got', expected '$expected'" >>"$WORK/cache.out"
    DETAIL="$WORK/cache.out" fail "cache: $name"
  fi
}

if section 2; then
cache_case "no cache sees the update" "" "v1 v2"
cache_case "PARTIAL, TTL not passed: the cached row" \
  ", 'lookup.cache' = 'PARTIAL', 'lookup.partial-cache.expire-after-write' = '1 h'" "v1 v1"
cache_case "PARTIAL, TTL passed: the new row" \
  ", 'lookup.cache' = 'PARTIAL', 'lookup.partial-cache.expire-after-write' = '1 s'" "v1 v2" 2
cache_case "old keys lookup.cache.max-rows / ttl, TTL not passed" \
  ", 'lookup.cache.max-rows' = '10', 'lookup.cache.ttl' = '1 h'" "v1 v1"
cache_case "PARTIAL max-rows 1: key 2 evicted key 1" \
  ", 'lookup.cache' = 'PARTIAL', 'lookup.partial-cache.max-rows' = '1'" "v1 v2"
cache_case "PARTIAL, expire-after-access passed" \
  ", 'lookup.cache' = 'PARTIAL', 'lookup.partial-cache.expire-after-access' = '1 s'" "v1 v2" 2
cache_case "FULL, no reload" ", 'lookup.cache' = 'FULL'" "v1 v1"
cache_case "FULL, reloaded after its interval" \
  ", 'lookup.cache' = 'FULL', 'lookup.full-cache.periodic-reload.interval' = '1 s'" "v1 v2" 2

# a slow store: a view that sleeps 2 s per row; async with 'timeout' = '300 ms' fails the job
# (Flink's default on a timeout), also when the timeout is the session's
# table.exec.async-lookup.timeout under a hint without one; sync has no timeout and waits
psql_run -c "DROP VIEW IF EXISTS slow_dim; DROP TABLE IF EXISTS cdim; CREATE TABLE cdim (k int PRIMARY KEY, v text);
  INSERT INTO cdim VALUES (1, 'a'); CREATE VIEW slow_dim AS SELECT k, v FROM cdim WHERE pg_sleep(2) IS NOT NULL;" >/dev/null
printf '1,1\n' >"$WORK/slow.csv"
for mode in async session sync; do
  hint="" set_timeout=""
  [ $mode = async ] && hint="/*+ LOOKUP('table' = 'd', 'async' = 'true', 'timeout' = '300 ms') */"
  [ $mode = session ] && hint="/*+ LOOKUP('table' = 'd', 'async' = 'true') */" &&
    set_timeout="SET 'table.exec.async-lookup.timeout' = '300 ms';"
  cat >"$WORK/slow.sql" <<SQL
$set_timeout
CREATE TABLE probe (seq INT, k INT, pt AS PROCTIME())
WITH ('connector' = 'filesystem', 'path' = '$WORK/slow.csv', 'format' = 'csv');
CREATE TABLE slow_dim (k INT, v STRING) WITH ('connector' = 'jdbc', 'url' = '$JOINERY_PG_URL',
  'table-name' = 'slow_dim', 'username' = 'joinery', 'password' = '$PASSWORD');
SELECT $hint p.seq, d.v FROM probe p JOIN slow_dim FOR SYSTEM_TIME AS OF p.pt AS d ON p.k = d.k;
SQL
  run_joinery "$WORK/slow.sql" >"$WORK/slow.out"
  if [ $mode != sync ]; then
    if grep -q "LookupJoin(table=\[default_catalog.default_database.slow_dim\]): Async function call has timed out." "$WORK/slow.out"; then
      pass "timeout ($mode): a 2 s lookup past a timeout of 300 ms fails the job (Flink's default)"
    else
      DETAIL="$WORK/slow.out" fail "timeout: $mode"
    fi
  elif grep -q "Received a total of 1 row" "$WORK/slow.out"; then
    pass "timeout: a sync lookup has none and waits for the slow store"
  else
    DETAIL="$WORK/slow.out" fail "timeout: sync"
  fi
done
psql_run -c "DROP VIEW slow_dim" >/dev/null

# hit counts: 6 probe rows over 3 keys (one of them missing), sync, PARTIAL cache
cat >"$WORK/hits.csv" <<'CSV'
1,1
2,2
3,1
4,9
5,9
6,2
CSV
psql_run -c "DROP TABLE IF EXISTS cdim; CREATE TABLE cdim (k int PRIMARY KEY, v text); INSERT INTO cdim VALUES (1, 'a'), (2, 'b');" >/dev/null
for missing in true false; do
  cat >"$WORK/hits.sql" <<SQL
CREATE TABLE probe (seq INT, k INT, pt AS PROCTIME())
WITH ('connector' = 'filesystem', 'path' = '$WORK/hits.csv', 'format' = 'csv');
CREATE TABLE cdim (k INT, v STRING) WITH ('connector' = 'jdbc', 'url' = '$JOINERY_PG_URL',
  'table-name' = 'cdim', 'username' = 'joinery', 'password' = '$PASSWORD', 'lookup.cache' = 'PARTIAL',
  'lookup.partial-cache.max-rows' = '100', 'lookup.partial-cache.cache-missing-key' = '$missing');
CREATE TABLE sink (seq INT, v STRING) WITH ('connector' = 'blackhole');
INSERT INTO sink SELECT p.seq, d.v FROM probe p LEFT JOIN cdim FOR SYSTEM_TIME AS OF p.pt AS d ON p.k = d.k;
SHOW JOB METRICS;
SQL
  run_joinery "$WORK/hits.sql" >"$WORK/hits.out"
  if [ $missing = true ]; then want_requests=3; want_hits=3; else want_requests=4; want_hits=2; fi
  if grep -q "lookups: $want_requests requests to cdim, 0 retries" "$WORK/hits.out" &&
     grep -q "cache PARTIAL: $want_hits hits, $want_requests misses" "$WORK/hits.out"; then
    pass "metrics: cache-missing-key $missing: $want_requests requests, $want_hits hits"
  else
    DETAIL="$WORK/hits.out" fail "metrics: cache-missing-key $missing"
  fi
done

# the async window in SHOW JOB METRICS: 12 rows through capacity 4 over a view sleeping
# 50 ms a row (one connection: the store answers them one after another), so requests wait
# in flight; the mean of in flight is above 0 and never above the capacity
psql_run -c "DROP VIEW IF EXISTS slow_dim; CREATE VIEW slow_dim AS SELECT k, v FROM cdim WHERE pg_sleep(0.05) IS NOT NULL;" >/dev/null
seq 1 12 | sed 's/$/,1/' >"$WORK/window.csv"
cat >"$WORK/window.sql" <<SQL
CREATE TABLE probe (seq INT, k INT, pt AS PROCTIME())
WITH ('connector' = 'filesystem', 'path' = '$WORK/window.csv', 'format' = 'csv');
CREATE TABLE slow_dim (k INT, v STRING) WITH ('connector' = 'jdbc', 'url' = '$JOINERY_PG_URL',
  'table-name' = 'slow_dim', 'username' = 'joinery', 'password' = '$PASSWORD');
CREATE TABLE sink (seq INT, v STRING) WITH ('connector' = 'blackhole');
INSERT INTO sink SELECT /*+ LOOKUP('table' = 'd', 'async' = 'true', 'capacity' = '4') */ p.seq, d.v
FROM probe p JOIN slow_dim FOR SYSTEM_TIME AS OF p.pt AS d ON p.k = d.k;
SHOW JOB METRICS;
SQL
run_joinery "$WORK/window.sql" >"$WORK/window.out"
mean=$(sed -n 's/.*lookups: 12 requests to slow_dim, .*, mean [0-9.]* ms, \([0-9.]*\) in flight on average$/\1/p' "$WORK/window.out")
if [ -n "$mean" ] && awk -v m="$mean" 'BEGIN { exit !(m > 0 && m <= 4) }'; then
  pass "metrics: async window: 12 requests, mean latency shown, $mean in flight on average (0 < mean <= capacity 4)"
else
  DETAIL="$WORK/window.out" fail "metrics: async window (in flight on average)"
fi
psql_run -c "DROP VIEW slow_dim" >/dev/null

# a pool's completions come out of order, the output stays in order: 30 probe rows, key 1
# (the first row) sleeping 300 ms in the store and the 29 others not, over 3 connections
# (key 1's connection is held up, the two others answer the rows after it at once).
# ORDERED: the rows in input order (an emission in completion order would put row 1
# late); allow_unordered: every row once; SHOW JOB METRICS names the 3 connections. Row
# 31's key is missing: LEFT JOIN, retried twice on lookup_miss (the retries may go to
# another connection), then its NULL row in its place.
psql_run -c "DROP VIEW IF EXISTS slow_pdim; DROP TABLE IF EXISTS pdim; CREATE TABLE pdim (k int PRIMARY KEY, v text);
  INSERT INTO pdim SELECT g, 'v' || g FROM generate_series(1, 30) g;
  CREATE VIEW slow_pdim AS SELECT k, v FROM pdim WHERE CASE WHEN k = 1 THEN pg_sleep(0.3) IS NOT NULL ELSE true END;" >/dev/null
seq 1 31 | awk '{ print $1 "," $1 }' >"$WORK/pool.csv"
{ seq 1 30 | awk '{ print $1 ", v" $1 }'; echo "31, null"; } >"$WORK/pool.want"
for mode in ORDERED allow_unordered; do
  cat >"$WORK/pool.sql" <<SQL
CREATE TABLE probe (seq INT, k INT, pt AS PROCTIME())
WITH ('connector' = 'filesystem', 'path' = '$WORK/pool.csv', 'format' = 'csv');
CREATE TABLE slow_pdim (k INT, v STRING) WITH ('connector' = 'jdbc', 'url' = '$JOINERY_PG_URL',
  'table-name' = 'slow_pdim', 'username' = 'joinery', 'password' = '$PASSWORD', 'lookup.async.connections' = '3');
CREATE TABLE pout (seq INT, v STRING) WITH ('connector' = 'print', 'print-identifier' = 'out');
INSERT INTO pout SELECT /*+ LOOKUP('table' = 'd', 'async' = 'true', 'capacity' = '31', 'output-mode' = '$mode',
  'retry-predicate' = 'lookup_miss', 'retry-strategy' = 'fixed_delay', 'fixed-delay' = '10 ms', 'max-attempts' = '2') */ p.seq, d.v
FROM probe p LEFT JOIN slow_pdim FOR SYSTEM_TIME AS OF p.pt AS d ON p.k = d.k;
SHOW JOB METRICS;
SQL
  run_joinery "$WORK/pool.sql" >"$WORK/pool_$mode.out"
  grep '^out' "$WORK/pool_$mode.out" | sed 's/.*+I\[\(.*\)\]$/\1/' >"$WORK/pool_$mode.got"
  [ $mode = allow_unordered ] && sort -n -o "$WORK/pool_$mode.got" "$WORK/pool_$mode.got"
  if cmp -s "$WORK/pool.want" "$WORK/pool_$mode.got" && ! grep -q ERROR "$WORK/pool_$mode.out" &&
     grep -q "lookups: 33 requests to slow_pdim over 3 connections, 2 retries, 0 in flight" "$WORK/pool_$mode.out"; then
    pass "pool: 3 connections, completions out of order, $mode output: 31 rows $([ $mode = ORDERED ] && echo "in input order" || echo "each once"), a miss retried twice"
  else
    DETAIL="$WORK/pool_$mode.out" fail "pool: $mode output over 3 connections"
  fi
done
psql_run -c "DROP VIEW slow_pdim" >/dev/null
fi

# ---------------------------------------------------------------- 3. differential
# The same rows in PostgreSQL (dim_d, probe_d) and in a csv file (the probe side).
if section 3; then
RANDOM=${LOOKUP_DIFF_SEED:-11}
{
  echo "DROP TABLE IF EXISTS dim_d, probe_d, got_d, want_d;"
  echo "CREATE TABLE dim_d (k int, g int, v text);"
  echo "CREATE TABLE probe_d (seq int, k int, g int, amount int);"
  echo "CREATE TABLE got_d (seq int, k int, g int, v text);"
  echo "CREATE TABLE want_d (seq int, k int, g int, v text);"
  for i in $(seq 1 60); do
    v="'v$i'"; [ $((RANDOM % 7)) = 0 ] && v=NULL
    echo "INSERT INTO dim_d VALUES ($((RANDOM % 20)), $((RANDOM % 3)), $v);"
  done
} >"$WORK/diff.pg.sql"
: >"$WORK/probe.csv"
for i in $(seq 1 200); do
  k=$((RANDOM % 24 - 2)); [ $((RANDOM % 13)) = 0 ] && k=""
  g=$((RANDOM % 3)); amount=$((RANDOM % 100))
  echo "$i,$k,$g,$amount" >>"$WORK/probe.csv"
  echo "INSERT INTO probe_d VALUES ($i, ${k:-NULL}, $g, $amount);" >>"$WORK/diff.pg.sql"
done
psql_run -f "$WORK/diff.pg.sql" >/dev/null
KEYS=("p.k = d.k" "p.k + 1 = d.k" "p.k = d.k AND d.g = 1" "p.k = d.k AND p.g = d.g" "d.k = p.amount / 5")
EXTRAS=("" " AND p.amount > d.k * 3" " AND d.v IS NOT NULL" " AND d.g <> p.g")
MODES=("sync" "async" "async_unordered")
CACHES=("" ", 'lookup.cache' = 'PARTIAL', 'lookup.partial-cache.max-rows' = '5'" ", 'lookup.cache' = 'FULL'")
CACHE_NAMES=("none" "partial" "full")
# async lookups over 1 to 4 connections (lookup.async.connections; sync ignores it)
diff_cases=0
diff_failed=0
for parallelism in 1 2; do
  for m in 0 1 2; do
    for c in 0 1 2; do
      for round in 1 2; do
        key=${KEYS[$((RANDOM % ${#KEYS[@]}))]}
        extra=${EXTRAS[$((RANDOM % ${#EXTRAS[@]}))]}
        join=JOIN; [ $((RANDOM % 2)) = 0 ] && join="LEFT JOIN"
        hint=""
        case ${MODES[$m]} in
          async) hint="'async' = 'true', 'capacity' = '$((RANDOM % 20 + 1))'" ;;
          async_unordered) hint="'async' = 'true', 'output-mode' = 'allow_unordered', 'capacity' = '7'" ;;
        esac
        pool=", 'lookup.async.connections' = '$((RANDOM % 4 + 1))'"
        if [ $parallelism = 2 ] && [ $round = 2 ]; then hint="${hint:+$hint, }'shuffle' = 'true'"; fi
        [ -n "$hint" ] && hint="/*+ LOOKUP('table' = 'd', $hint) */"
        condition="$key$extra"
        cat >"$WORK/diff.sql" <<SQL
SET 'parallelism.default' = '$parallelism';
CREATE TABLE probe (seq INT, k INT, g INT, amount INT, pt AS PROCTIME())
WITH ('connector' = 'filesystem', 'path' = '$WORK/probe.csv', 'format' = 'csv');
CREATE TABLE dim_d (k INT, g INT, v STRING) WITH ('connector' = 'jdbc', 'url' = '$JOINERY_PG_URL',
  'table-name' = 'dim_d', 'username' = 'joinery', 'password' = '$PASSWORD'${CACHES[$c]}$pool);
CREATE TABLE got_d (seq INT, k INT, g INT, v STRING) WITH ('connector' = 'jdbc', 'url' = '$JOINERY_PG_URL',
  'table-name' = 'got_d', 'username' = 'joinery', 'password' = '$PASSWORD');
INSERT INTO got_d SELECT $hint p.seq, d.k, d.g, d.v FROM probe p $join dim_d FOR SYSTEM_TIME AS OF p.pt AS d ON $condition;
SQL
        psql_run -c "TRUNCATE got_d, want_d; INSERT INTO want_d SELECT p.seq, d.k, d.g, d.v FROM probe_d p $join dim_d d ON $condition;" >/dev/null
        run_joinery "$WORK/diff.sql" >"$WORK/diff.out"
        differ=$(psql_run -c "SELECT (SELECT count(*) FROM (SELECT * FROM got_d EXCEPT ALL SELECT * FROM want_d) a) + (SELECT count(*) FROM (SELECT * FROM want_d EXCEPT ALL SELECT * FROM got_d) b)")
        rows=$(psql_run -c "SELECT count(*) FROM want_d")
        diff_cases=$((diff_cases + 1))
        if [ "$differ" != 0 ] || grep -q ERROR "$WORK/diff.out"; then
          diff_failed=$((diff_failed + 1))
          { echo "$join ON $condition, ${MODES[$m]}, cache ${CACHE_NAMES[$c]}, parallelism $parallelism: $differ rows differ of $rows"; cat "$WORK/diff.sql" "$WORK/diff.out"; } >"$WORK/diff-failure-$diff_cases.txt"
          DETAIL="$WORK/diff-failure-$diff_cases.txt" fail "differential case $diff_cases"
        fi
      done
    done
  done
done
[ $diff_failed = 0 ] && pass "differential: $diff_cases random lookup joins equal PostgreSQL's own join (sync/async ordered/unordered x no/PARTIAL/FULL cache x parallelism 1/2, async over 1-4 connections)"
fi

# ---------------------------------------------------------------- 4. faults
# fault_case NAME RETRIES: 40 probe rows, the server halted for 2 s after the first 20
fault_case() {
  local name=$1 retries=$2 mode=$3
  psql_run -c "DROP TABLE IF EXISTS fdim; CREATE TABLE fdim (k int PRIMARY KEY, v text);
    INSERT INTO fdim SELECT g, 'v' || g FROM generate_series(1, 40) g;" >/dev/null
  rm -rf "$WORK/fault.fifo" "$WORK/fault_out"; mkfifo "$WORK/fault.fifo"
  local hint="" pool=""
  [ "$mode" = async ] && hint="/*+ LOOKUP('table' = 'd', 'async' = 'true') */" && pool=", 'lookup.async.connections' = '3'"
  cat >"$WORK/fault.sql" <<SQL
CREATE TABLE probe (seq INT, pt AS PROCTIME())
WITH ('connector' = 'filesystem', 'path' = '$WORK/fault.fifo', 'format' = 'csv', 'source.fifo.enabled' = 'true');
CREATE TABLE fdim (k INT, v STRING) WITH ('connector' = 'jdbc', 'url' = '$JOINERY_PG_URL',
  'table-name' = 'fdim', 'username' = 'joinery', 'password' = '$PASSWORD', 'lookup.max-retries' = '$retries'$pool);
CREATE TABLE fout (seq INT, v STRING) WITH ('connector' = 'print', 'print-identifier' = 'out');
INSERT INTO fout SELECT $hint p.seq, d.v FROM probe p JOIN fdim FOR SYSTEM_TIME AS OF p.pt AS d ON p.seq = d.k;
SQL
  run_joinery "$WORK/fault.sql" >"$WORK/fault.out" &
  local job=$!
  exec 3>"$WORK/fault.fifo"
  for i in $(seq 1 20); do echo "$i" >&3; done
  sleep 1 # the first rows looked up (or not yet: either way the server stops mid-job)
  "$ROOT/tests/jdbc/postgres.sh" halt "$JOINERY_PG_DIR"
  for i in $(seq 21 40); do echo "$i" >&3; done
  sleep 2
  "$ROOT/tests/jdbc/postgres.sh" resume "$JOINERY_PG_DIR" 3>&- # the server must not hold the FIFO open
  exec 3>&-
  wait $job
}

if section 4; then
fault_case recover 10 sync
seqs=$(grep '^out' "$WORK/fault.out" | sed 's/.*+I\[\([0-9]*\),.*/\1/' | sort -n | uniq -c | awk '$1 != 1 {bad++} END {print NR, bad + 0}')
if [ "$seqs" = "40 0" ] && ! grep -q ERROR "$WORK/fault.out"; then
  pass "fault: server down 2 s, sync lookups retried: 40 rows, each once"
else
  echo "rows, duplicates: $seqs" >>"$WORK/fault.out"; DETAIL="$WORK/fault.out" fail "fault: sync recovery"
fi
fault_case recover_async 10 async
seqs=$(grep '^out' "$WORK/fault.out" | sed 's/.*+I\[\([0-9]*\),.*/\1/' | sort -n | uniq -c | awk '$1 != 1 {bad++} END {print NR, bad + 0}')
if [ "$seqs" = "40 0" ] && ! grep -q ERROR "$WORK/fault.out"; then
  pass "fault: server down 2 s, async requests over 3 connections re-sent: 40 rows, each once"
else
  echo "rows, duplicates: $seqs" >>"$WORK/fault.out"; DETAIL="$WORK/fault.out" fail "fault: async recovery"
fi
fault_case fail 1 sync
seqs=$(grep '^out' "$WORK/fault.out" | sed 's/.*+I\[\([0-9]*\),.*/\1/' | sort -n | uniq -c | awk '$1 != 1 {bad++} END {print NR, bad + 0}')
if grep -q "ERROR" "$WORK/fault.out" && grep -q "fdim" "$WORK/fault.out" &&
   grep -q "127.0.0.1:$PGPORT" "$WORK/fault.out" && [ "${seqs#* }" = 0 ]; then
  pass "fault: server down past lookup.max-retries = 1: the job fails naming table and store, no row twice"
else
  echo "rows, duplicates: $seqs" >>"$WORK/fault.out"; DETAIL="$WORK/fault.out" fail "fault: error after retries"
fi

# seed 004's table function (sample-data/udf/, async over libpq): at parallelism 2 each
# subtask's instance has its own connection (the rows as at parallelism 1); then the server
# halted under a running job: the job fails naming the store (not the password), no crash
psql_run -f "$ROOT/tests/lookup/seed004_udtf.pg.sql" >/dev/null 2>&1
UDF_SETUP="SET 'pipeline.global-job-parameters' = 'cdn_log.conninfo:host=127.0.0.1 port=$PGPORT dbname=joinery user=joinery password=$PASSWORD';
CREATE TEMPORARY FUNCTION query_ck_awscdn_cf_log_tudf AS 'query_ck_awscdn_cf_log_tudf' LANGUAGE C USING JAR 'build/udf/libjoinery_cdn_log_udf.so';"
for i in $(seq 1 40); do echo "$i,10.0.0.$((i % 7)),2024-05-01 10:0$((i % 3 * 3)):00"; done >"$WORK/udf_probe.csv"
for parallelism in 1 2; do
  cat >"$WORK/udf_par.sql" <<SQL
$UDF_SETUP
SET 'parallelism.default' = '$parallelism';
CREATE TABLE probe (seq INT, ip STRING, t STRING) WITH ('connector' = 'filesystem', 'path' = '$WORK/udf_probe.csv', 'format' = 'csv');
CREATE TABLE uout (seq INT, aws STRING, cf STRING) WITH ('connector' = 'print', 'print-identifier' = 'out');
INSERT INTO uout SELECT p.seq, b.aws, b.cf FROM probe p LEFT JOIN LATERAL TABLE(query_ck_awscdn_cf_log_tudf(p.ip, '', p.t)) AS b(aws, cf) ON TRUE;
SQL
  run_joinery "$WORK/udf_par.sql" | grep '^out' | sed 's/^out[^>]*> //' | sort >"$WORK/udf_par_$parallelism.txt"
done
if [ "$(wc -l <"$WORK/udf_par_1.txt")" = 40 ] && cmp -s "$WORK/udf_par_1.txt" "$WORK/udf_par_2.txt" &&
   grep -q 'ABNORMAL' "$WORK/udf_par_1.txt"; then
  pass "table function: seed 004's async function at parallelism 2 gives parallelism 1's 40 rows"
else
  diff "$WORK/udf_par_1.txt" "$WORK/udf_par_2.txt" >"$WORK/udf_par.diff"
  DETAIL="$WORK/udf_par.diff" fail "table function: parallelism 2"
fi
rm -f "$WORK/udf.fifo"; mkfifo "$WORK/udf.fifo"
cat >"$WORK/udf_fault.sql" <<SQL
$UDF_SETUP
CREATE TABLE probe (seq INT, ip STRING, t STRING) WITH ('connector' = 'filesystem', 'path' = '$WORK/udf.fifo', 'format' = 'csv', 'source.fifo.enabled' = 'true');
CREATE TABLE uout (seq INT, aws STRING, cf STRING) WITH ('connector' = 'print', 'print-identifier' = 'out');
INSERT INTO uout SELECT p.seq, b.aws, b.cf FROM probe p LEFT JOIN LATERAL TABLE(query_ck_awscdn_cf_log_tudf(p.ip, '', p.t)) AS b(aws, cf) ON TRUE;
SQL
run_joinery "$WORK/udf_fault.sql" >"$WORK/udf_fault.out" &
udf_job=$!
exec 3>"$WORK/udf.fifo"
echo "1,10.0.0.2,2024-05-01 10:03:00" >&3
for _ in $(seq 1 100); do grep -q '^out' "$WORK/udf_fault.out" && break; sleep 0.1; done
"$ROOT/tests/jdbc/postgres.sh" halt "$JOINERY_PG_DIR"
echo "2,10.0.0.5,2024-05-01 10:06:00" >&3
wait $udf_job
udf_status=$?
exec 3>&-
"$ROOT/tests/jdbc/postgres.sh" resume "$JOINERY_PG_DIR"
if [ $udf_status -lt 128 ] && grep -q '^out> +I\[1, CDN_ABNORMAL_DATA, CDN_NORMAL_DATA\]' "$WORK/udf_fault.out" &&
   grep -q "Function 'query_ck_awscdn_cf_log_tudf' failed on arguments ('10.0.0.5', '', '2024-05-01 10:06:00'): CDN log store PostgreSQL 127.0.0.1:$PGPORT/joinery" "$WORK/udf_fault.out" &&
   ! grep -q "$PASSWORD" "$WORK/udf_fault.out"; then
  pass "table function: the store halted mid-job: the job fails naming the store, not the password"
else
  echo "exit status $udf_status" >>"$WORK/udf_fault.out"; DETAIL="$WORK/udf_fault.out" fail "table function: store halted"
fi
fi

# ---------------------------------------------------------------- 5. MariaDB and Redis
# the same lookup joins over the jdbc connector's MySQL dialect and over Redis, on a
# MariaDB and a Redis server started here (one each), then each server restarted mid-job
stores_up() {
  harness_start tests/jdbc/mariadb.sh MariaDB || { echo "skip section 5 ($HARNESS_SKIPPED)"; return 1; }
  harness_start tests/redis/redis.sh Redis || { echo "skip section 5 ($HARNESS_SKIPPED)"; return 1; }
}
mysql_sql() { "$ROOT/tests/jdbc/mariadb.sh" sql "$JOINERY_MYSQL_DIR"; }
redis_cli() { "$ROOT/tests/redis/redis.sh" cli "$JOINERY_REDIS_DIR" "$@"; }
mask_stores() {
  sed -e "s|$WORK/|WORK/|g" -e "s|$JOINERY_MYSQL_PORT|@MYSQL_PORT@|g" -e "s|$JOINERY_REDIS_PORT|@REDIS_PORT@|g" \
    -e "s|$PASSWORD|@PASSWORD@|g" -e 's/latency p50 [^,]*, p99 .*$/latency (masked)/' \
    -e 's/ \+[0-9]\+\.[0-9]\( \+[^ ]\+\)$/ (busy ms)\1/'
}

# restart_case NAME DDL RESTART: 40 probe rows, each looked up in table rdim (key k,
# value 'v<k>') by an async and a sync lookup join; the server restarted (RESTART) once
# the first 20 came out, with rows 21..30 written just before (in flight or queued)
restart_case() {
  local name=$1 ddl=$2 restart=$3
  rm -f "$WORK/restart.fifo"; mkfifo "$WORK/restart.fifo"
  cat >"$WORK/restart.sql" <<SQL
CREATE TABLE probe (seq INT, pt AS PROCTIME())
WITH ('connector' = 'filesystem', 'path' = '$WORK/restart.fifo', 'format' = 'csv', 'source.fifo.enabled' = 'true');
$ddl
CREATE TABLE rout (seq INT, a STRING, s STRING) WITH ('connector' = 'print', 'print-identifier' = 'out');
INSERT INTO rout SELECT /*+ LOOKUP('table' = 'a', 'async' = 'true') */ p.seq, a.v, s.v FROM probe p
  JOIN rdim FOR SYSTEM_TIME AS OF p.pt AS a ON p.seq = a.k
  JOIN rdim FOR SYSTEM_TIME AS OF p.pt AS s ON p.seq = s.k;
SHOW JOB METRICS;
SQL
  run_joinery "$WORK/restart.sql" >"$WORK/restart.out" &
  local job=$! i
  exec 3>"$WORK/restart.fifo"
  for i in $(seq 1 20); do echo "$i" >&3; done
  for _ in $(seq 1 300); do [ "$(grep -c '^out' "$WORK/restart.out")" -ge 20 ] && break; sleep 0.1; done
  for i in $(seq 21 30); do echo "$i" >&3; done
  $restart 3>&- >>"$WORK/restart.log" 2>&1 # the server must not hold the FIFO open
  for i in $(seq 31 40); do echo "$i" >&3; done
  exec 3>&-
  wait $job
  for i in $(seq 1 40); do echo "out> +I[$i, v$i, v$i]"; done >"$WORK/restart.want"
  grep '^out' "$WORK/restart.out" | sort -t'[' -k2 -n >"$WORK/restart.got"
  # the async join's pool (3 connections) reconnected
  if cmp -s "$WORK/restart.want" "$WORK/restart.got" && ! grep -q ERROR "$WORK/restart.out" &&
     grep -q "lookups: [0-9]* requests to rdim over 3 connections, 0 retries, [1-9][0-9]* reconnects" "$WORK/restart.out"; then
    pass "restart: $name restarted mid-job, async (3 connections) and sync lookups reconnect: 40 rows, each once"
  else
    diff "$WORK/restart.want" "$WORK/restart.got" >>"$WORK/restart.out"
    DETAIL="$WORK/restart.out" fail "restart: $name mid-job"
  fi
}

if section 5 && stores_up; then
  if ! mysql_sql <"$ROOT/tests/lookup/stores/mysql.sql" >"$WORK/setup.log" 2>&1 ||
     ! redis_cli <"$ROOT/tests/lookup/stores/redis.txt" >>"$WORK/setup.log" 2>&1; then
    DETAIL="$WORK/setup.log" fail "stores: setup"
  else
    sed -e "s|@MYSQL_URL@|$JOINERY_MYSQL_URL|g" -e "s|@REDIS_PORT@|$JOINERY_REDIS_PORT|g" \
      -e "s|@PASSWORD@|$JOINERY_REDIS_PASSWORD|g" "$ROOT/tests/lookup/stores/seeds.sql" >"$WORK/stores.sql"
    run_joinery "$WORK/stores.sql" | mask_stores >"$WORK/stores.actual"
    [ "${UPDATE:-}" = 1 ] && cp "$WORK/stores.actual" "$ROOT/tests/lookup/stores/seeds.out"
    if diff -u "$ROOT/tests/lookup/stores/seeds.out" "$WORK/stores.actual" >"$WORK/stores.diff"; then
      pass "stores: seeds over MariaDB and Redis (golden)"
    else
      DETAIL="$WORK/stores.diff" fail "stores: seeds over MariaDB and Redis (golden)"
    fi
  fi
  mysql_sql <<'SQL' >/dev/null
DROP TABLE IF EXISTS rdim; CREATE TABLE rdim (k INT PRIMARY KEY, v TEXT);
INSERT INTO rdim SELECT seq, CONCAT('v', seq) FROM seq_1_to_40;
SQL
  restart_case MariaDB "CREATE TABLE rdim (k INT, v STRING) WITH ('connector' = 'jdbc', 'url' = '$JOINERY_MYSQL_URL',
  'table-name' = 'rdim', 'username' = 'joinery', 'password' = '$JOINERY_REDIS_PASSWORD', 'lookup.max-retries' = '20',
  'lookup.async.connections' = '3');" \
    "$ROOT/tests/jdbc/mariadb.sh restart $JOINERY_MYSQL_DIR"
  for i in $(seq 1 40); do echo "SET $i v$i"; done | { echo "SELECT 2"; cat; } | redis_cli >/dev/null
  restart_case Redis "CREATE TABLE rdim (k INT, v STRING) WITH ('connector' = 'redis', 'host' = '127.0.0.1',
  'port' = '$JOINERY_REDIS_PORT', 'password' = '$JOINERY_REDIS_PASSWORD', 'command' = 'get', 'database' = '2',
  'lookup.max-retries' = '20', 'lookup.async.connections' = '3');" \
    "$ROOT/tests/redis/redis.sh restart $JOINERY_REDIS_DIR"
fi

harness_finish

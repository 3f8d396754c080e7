#!/usr/bin/env bash
# bench-lookup.sh - lookup joins (issue 11) against a real PostgreSQL server
# (tests/jdbc/postgres.sh, through tests/jdbc/harness.sh) made LATENCY ms
# away by build/tools/latency_proxy (bench/latency_proxy.c: every byte held
# LATENCY / 2 each way, so pipelined or concurrent requests overlap), a
# dimension table of KEYS keys, a blackhole sink. Prints tables; never fails
# on a figure (a non-zero exit means a run failed or the server could not
# start; no PostgreSQL installable: a "skip" line).
#
#   1. sync and async (capacity 10 / 100 / 1000, ORDERED and allow_unordered)
#      on datagen rows with uniform keys, no cache: rows/s next to the bound
#      capacity / latency (1 / latency for sync), the store alone (no proxy)
#      for where it saturates, the lookups' p50 / p99, joinery's CPU seconds
#      (user + sys) and what the proxy saw overlap;
#   2. latency in the store instead (a view calling pg_sleep per row, no
#      proxy): what one connection per subtask gives;
#   3. caches on Zipf keys (s = 1.0, a seeded pre-generated csv file): no
#      cache, PARTIAL at several max-rows, FULL: hit rate and rows/s;
#   4. shuffle off and on at parallelism 2 (PARTIAL cache): hit rate, rows/s.
#
# rows/s = rows / (wall seconds - the same job's wall with one row), so the
# start-up (connections through the proxy, a FULL cache's load) is left out.
#
# Usage: scripts/bench-lookup.sh BUILD_DIR
# Environment: BENCH_LOOKUP_KEYS (dimension rows, default 100000),
# BENCH_LOOKUP_LATENCY_MS (default 10), BENCH_LOOKUP_SECONDS (about how long
# each throughput run takes at its bound, default 2), BENCH_LOOKUP_MAX_ROWS
# (default 60000), BENCH_LOOKUP_ZIPF_ROWS (default 30000).
set -uo pipefail
. "$(dirname "$0")/../tests/jdbc/harness.sh"
harness_init bench-lookup
set -e
keys=${BENCH_LOOKUP_KEYS:-100000}
latency=${BENCH_LOOKUP_LATENCY_MS:-10}
seconds=${BENCH_LOOKUP_SECONDS:-2}
max_rows=${BENCH_LOOKUP_MAX_ROWS:-60000}
zipf_rows=${BENCH_LOOKUP_ZIPF_ROWS:-30000}
PROXY="$BUILD/tools/latency_proxy"
[ -x "$PROXY" ] || { echo "bench-lookup.sh: $PROXY is missing; run make first" >&2; exit 2; }

set +e
harness_start tests/jdbc/postgres.sh PostgreSQL
rc=$?
set -e
if [ $rc = 2 ]; then
  echo "skip bench-lookup ($HARNESS_SKIPPED)"
  exit 0
fi

proxy_pid=""
harness_cleanup_extra() {
  if [ -n "$proxy_pid" ]; then kill "$proxy_pid" 2>/dev/null || true; wait "$proxy_pid" 2>/dev/null || true; fi
}
"$PROXY" "$PGPORT" "$latency" "$WORK/proxy.stats" >"$WORK/proxy.port" &
proxy_pid=$!
for _ in $(seq 50); do [ -s "$WORK/proxy.port" ] && break; sleep 0.1; done
proxy_port=$(cat "$WORK/proxy.port")

psql -qAt -v ON_ERROR_STOP=1 >/dev/null <<SQL
CREATE TABLE dim (k int PRIMARY KEY, name text, score int);
INSERT INTO dim SELECT g, 'name_' || g, g % 1000 FROM generate_series(1, $keys) g;
CREATE VIEW slow_dim AS SELECT k, name, score FROM dim WHERE pg_sleep($latency / 1000.0) IS NOT NULL;
ANALYZE dim;
SQL

# Zipf keys over 1..keys (s = 1.0, seed 11), and a one-row file for the start-up baseline
python3 - "$keys" "$zipf_rows" "$WORK/zipf.csv" <<'EOF'
import bisect, itertools, random, sys
keys, rows, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
cdf = list(itertools.accumulate(1.0 / k for k in range(1, keys + 1)))
draw = random.Random(11)
with open(path, "w") as out:
    for i in range(rows):
        out.write("%d,%d\n" % (i, bisect.bisect_left(cdf, draw.random() * cdf[-1]) + 1))
EOF
head -1 "$WORK/zipf.csv" >"$WORK/one.csv"
distinct=$(cut -d, -f2 "$WORK/zipf.csv" | sort -u | wc -l)

url() { echo "jdbc:postgresql://127.0.0.1:$1/joinery"; }

# job FILE PORT TABLE HINT CACHE PARALLELISM SOURCE: writes the statements of one job
job() {
  local file=$1 port=$2 table=$3 hint=$4 cache=$5 parallelism=$6 source=$7
  cat >"$file" <<SQL
SET 'parallelism.default' = '$parallelism';
CREATE TABLE probe (id BIGINT, k INT, pt AS PROCTIME()) WITH ($source);
CREATE TABLE dim (k INT, name STRING, score INT) WITH ('connector' = 'jdbc', 'url' = '$(url "$port")',
  'table-name' = '$table', 'username' = 'joinery', 'password' = 'joinery-secret'$cache);
CREATE TABLE sink (id BIGINT, name STRING, score INT) WITH ('connector' = 'blackhole');
INSERT INTO sink SELECT $hint p.id, d.name, d.score FROM probe p JOIN dim FOR SYSTEM_TIME AS OF p.pt AS d ON p.k = d.k;
SHOW JOB METRICS;
SQL
}
datagen() { echo "'connector' = 'datagen', 'rows-per-second' = '1000000000', 'number-of-rows' = '$1', 'fields.k.min' = '1', 'fields.k.max' = '$keys'"; }
csv() { echo "'connector' = 'filesystem', 'path' = '$1', 'format' = 'csv'"; }

# timed FILE: runs it; sets wall (s), cpu (user + sys s), lookups / cache lines
timed() {
  local file=$1
  /usr/bin/time -f "%e %U %S" -o "$file.time" "$JOINERY" -f "$file" >"$file.log" 2>&1 || true
  if grep -q ERROR "$file.log" || ! grep -q "Job finished" "$file.log"; then
    echo "bench-lookup.sh: a run failed:" >&2
    cat "$file" "$file.log" >&2
    exit 1
  fi
  read -r wall user sys <"$file.time"
  cpu=$(echo "$user + $sys" | bc -l)
  lookups=$(grep -m1 "lookups:" "$file.log" | sed 's/^ *lookups: //' || true)
  cache_line=$(grep -m1 "cache [A-Z]*:" "$file.log" | sed 's/^ *//' || true)
}

# measure NAME PORT TABLE HINT CACHE PARALLELISM SOURCE ONE_ROW_SOURCE ROWS: sets rate
measure() {
  local name=$1
  job "$WORK/$name.one.sql" "$2" "$3" "$4" "$5" "$6" "$8"
  timed "$WORK/$name.one.sql"
  local start=$wall
  job "$WORK/$name.sql" "$2" "$3" "$4" "$5" "$6" "$7"
  timed "$WORK/$name.sql"
  elapsed=$(echo "$wall - $start" | bc -l)
  rate=$(echo "e = $elapsed; if (e < 0.001) e = 0.001; $9 / e" | bc -l)
}

percentiles() { echo "$lookups" | sed -n 's/.*latency p50 \([^,]*\), p99 \(.*\)$/\1 \/ \2/p'; }
hit_rate() { echo "$cache_line" | sed -n 's/.*hit rate \([0-9.]*%\).*/\1/p'; }

hint_async() { # capacity mode [extra]
  local mode=""
  [ "$2" = unordered ] && mode=", 'output-mode' = 'allow_unordered'"
  echo "/*+ LOOKUP('table' = 'd', 'async' = 'true', 'capacity' = '$1'$mode${3:-}) */"
}

echo "PostgreSQL $(psql -qAt -c 'SHOW server_version'), $keys keys, $latency ms away (latency_proxy), one connection per LookupJoin subtask"
echo "(libpq pipeline mode: each key its own prepared statement and Sync, sent without waiting)"
echo
echo "| lookups | rows | rows/s | bound | of bound | CPU s | lookup p50 / p99 |"
echo "|---|---|---|---|---|---|---|"
rows=$(echo "$seconds * 1000 / $latency" | bc)
measure sync "$proxy_port" dim "" "" 1 "$(datagen "$rows")" "$(datagen 1)" "$rows"
bound=$(echo "1000 / $latency" | bc -l)
sync_rate=$rate
printf '| sync | %d | %.0f | %.0f | %.2f | %.2f | %s |\n' "$rows" "$rate" "$bound" "$(echo "$rate / $bound" | bc -l)" "$cpu" "$(percentiles)"
for capacity in 10 100 1000; do
  bound=$(echo "$capacity * 1000 / $latency" | bc -l)
  rows=$(echo "r = $bound * $seconds; if (r > $max_rows) r = $max_rows; r / 1" | bc)
  for mode in ordered unordered; do
    measure "async$capacity$mode" "$proxy_port" dim "$(hint_async $capacity $mode)" "" 1 "$(datagen "$rows")" "$(datagen 1)" "$rows"
    printf '| async %s, capacity %d | %d | %.0f | %.0f | %.2f | %.2f | %s |\n' "$mode" "$capacity" "$rows" "$rate" \
      "$bound" "$(echo "$rate / $bound" | bc -l)" "$cpu" "$(percentiles)"
  done
done
# where the store saturates: the same with no proxy (loopback, sub-millisecond round trips)
for capacity in 1 100 1000; do
  hint=$(hint_async $capacity ordered)
  label="async ordered, capacity $capacity"
  [ $capacity = 1 ] && hint="" && label="sync"
  measure "direct$capacity" "$PGPORT" dim "$hint" "" 1 "$(datagen "$max_rows")" "$(datagen 1)" "$max_rows"
  printf '| no proxy: %s | %d | %.0f | - | - | %.2f | %s |\n' "$label" "$max_rows" "$rate" "$cpu" "$(percentiles)"
done
kill -TERM "$proxy_pid"
wait "$proxy_pid" || true
proxy_pid=""
read -r _ proxy_connections _ proxy_chunks _ proxy_overlap <"$WORK/proxy.stats"
echo
echo "The proxy forwarded $proxy_chunks chunks on $proxy_connections connections, at most $proxy_overlap held at once"
echo "(requests overlapped in the delay line); sync lookups took $(echo "1000 / $sync_rate" | bc -l | xargs printf '%.1f') ms each."

echo
echo "latency in the store instead (a view calling pg_sleep($latency ms) per row fetched, no proxy):"
echo
echo "| lookups | rows | rows/s | capacity / latency | CPU s |"
echo "|---|---|---|---|---|"
rows=$(echo "$seconds * 500 / $latency" | bc)
for capacity in 1 10 100; do
  hint=$(hint_async $capacity unordered)
  label="async unordered, capacity $capacity"
  [ $capacity = 1 ] && hint="" && label="sync"
  measure "sleep$capacity" "$PGPORT" slow_dim "$hint" "" 1 "$(datagen "$rows")" "$(datagen 1)" "$rows"
  printf '| %s | %d | %.0f | %.0f | %.2f |\n' "$label" "$rows" "$rate" "$(echo "$capacity * 1000 / $latency" | bc -l)" "$cpu"
done

# a fresh proxy for the cache and shuffle runs
"$PROXY" "$PGPORT" "$latency" "$WORK/proxy2.stats" >"$WORK/proxy2.port" &
proxy_pid=$!
for _ in $(seq 50); do [ -s "$WORK/proxy2.port" ] && break; sleep 0.1; done
proxy_port=$(cat "$WORK/proxy2.port")

echo
echo "caches: $zipf_rows probe rows, Zipf keys (s = 1.0) over $keys keys ($distinct distinct), async ordered capacity 100, $latency ms away:"
echo
echo "| lookup.cache | max-rows | hit rate | store requests | rows/s | CPU s |"
echo "|---|---|---|---|---|---|"
for cache in NONE 100 1000 10000 FULL; do
  case $cache in
    NONE) options="" ;;
    FULL) options=", 'lookup.cache' = 'FULL'" ;;
    *) options=", 'lookup.cache' = 'PARTIAL', 'lookup.partial-cache.max-rows' = '$cache'" ;;
  esac
  measure "cache$cache" "$proxy_port" dim "$(hint_async 100 ordered)" "$options" 1 "$(csv "$WORK/zipf.csv")" "$(csv "$WORK/one.csv")" "$zipf_rows"
  kind=PARTIAL; size=$cache
  [ $cache = NONE ] || [ $cache = FULL ] && kind=$cache && size=-
  requests=$(echo "$lookups" | sed -n 's/^\([0-9]*\) requests.*/\1/p')
  printf '| %s | %s | %s | %s | %.0f | %.2f |\n' "$kind" "$size" "$(hit_rate)" "${requests:-0}" "$rate" "$cpu"
done

echo
echo "shuffle at parallelism 2 (the same rows, PARTIAL max-rows 1000 per subtask, async ordered capacity 100):"
echo
echo "| shuffle | hit rate | store requests | rows/s | CPU s |"
echo "|---|---|---|---|---|"
for shuffle in false true; do
  extra=""
  [ $shuffle = true ] && extra=", 'shuffle' = 'true'"
  measure "shuffle$shuffle" "$proxy_port" dim "$(hint_async 100 ordered "$extra")" \
    ", 'lookup.cache' = 'PARTIAL', 'lookup.partial-cache.max-rows' = '1000'" 2 "$(csv "$WORK/zipf.csv")" "$(csv "$WORK/one.csv")" "$zipf_rows"
  requests=$(echo "$lookups" | sed -n 's/^\([0-9]*\) requests.*/\1/p')
  printf '| %s | %s | %s | %.0f | %.2f |\n' "$shuffle" "$(hit_rate)" "$requests" "$rate" "$cpu"
done

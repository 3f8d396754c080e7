#!/usr/bin/env bash
# bench-lookup.sh - lookup joins (issue 11) against a real PostgreSQL server
# (tests/jdbc/postgres.sh, started through tests/jdbc/harness.sh) made LATENCY ms
# away by build/tools/latency_proxy (bench/latency_proxy.c: every byte held
# LATENCY / 2 each way, so pipelined or concurrent requests overlap), a
# dimension table of KEYS keys, a blackhole sink. Prints tables; never fails
# on a figure (a non-zero exit means a run failed or the server could not
# start; no PostgreSQL installable: a "skip" line).
#
#   1. sync and async (capacity 10 / 100 / 1000, ORDERED and allow_unordered)
#      on datagen rows with uniform keys, no cache: rows/s next to the bound
#      capacity / latency (1 / latency for sync), the store alone (no proxy)
#      for where it saturates, the lookups' mean / p50 / p99 latency and mean
#      requests in flight (SHOW JOB METRICS), joinery's CPU seconds (user +
#      sys) and what the proxy saw overlap;
#   2. latency in the store instead (a view calling pg_sleep per row, no
#      proxy): what one connection per subtask gives;
#   3. caches on Zipf keys (s = 1.0, a seeded pre-generated csv file): no
#      cache, PARTIAL at several max-rows, FULL: hit rate and rows/s;
#   4. shuffle off and on at parallelism 2 (PARTIAL cache): hit rate, rows/s;
#   5. a real Redis (tests/redis/redis.sh) through its own proxy, the same keys
#      (GET): sync and async capacity 10 / 100 / 1000 (skipped when Redis
#      cannot be installed);
#   6. one connection against a pool ('lookup.async.connections', its default
#      for the capacity, and 2 / 4 / 8 at capacity 100 and 1000): PostgreSQL,
#      MariaDB (tests/jdbc/mariadb.sh, skipped when it cannot be installed)
#      and Redis, capacity 10 / 100 / 1000, ORDERED and allow_unordered, as a
#      ratio of capacity / the sync round trip each store has through its
#      proxy; every comparison of a store in one run.
#
# rows/s = rows / (wall seconds - the same job's wall with one row), so the
# start-up (connections through the proxy, a FULL cache's load) is left out.
#
# Usage: scripts/bench-lookup.sh BUILD_DIR
# Environment: BENCH_LOOKUP_KEYS (dimension rows, default 100000),
# BENCH_LOOKUP_LATENCY_MS (default 10), BENCH_LOOKUP_SECONDS (about how long
# each throughput run takes at its bound, default 2), BENCH_LOOKUP_MAX_ROWS
# (default 60000), BENCH_LOOKUP_ZIPF_ROWS (default 30000), BENCH_LOOKUP_SECTIONS
# (the sections to run, default "1 2 3 4 5 6").
set -uo pipefail
. "$(dirname "$0")/../tests/jdbc/harness.sh"
harness_init bench-lookup
set -e
keys=${BENCH_LOOKUP_KEYS:-100000}
latency=${BENCH_LOOKUP_LATENCY_MS:-10}
seconds=${BENCH_LOOKUP_SECONDS:-2}
max_rows=${BENCH_LOOKUP_MAX_ROWS:-60000}
zipf_rows=${BENCH_LOOKUP_ZIPF_ROWS:-30000}
sections=" ${BENCH_LOOKUP_SECTIONS:-1 2 3 4 5 6} "
want() { case "$sections" in *" $1 "*) return 0 ;; esac; return 1; }
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

# the dimension table's columns and WITH options (PostgreSQL here; Redis in its section)
dim_columns="k INT, name STRING, score INT"
pg() { # PORT TABLE [MORE OPTIONS]
  echo "'connector' = 'jdbc', 'url' = 'jdbc:postgresql://127.0.0.1:$1/joinery', 'table-name' = '$2', 'username' = 'joinery', 'password' = 'joinery-secret'${3:-}"
}

# job FILE DIM_OPTIONS HINT PARALLELISM SOURCE: writes the statements of one job
job() {
  local file=$1 options=$2 hint=$3 parallelism=$4 source=$5
  cat >"$file" <<SQL
SET 'parallelism.default' = '$parallelism';
CREATE TABLE probe (id BIGINT, k INT, pt AS PROCTIME()) WITH ($source);
CREATE TABLE dim ($dim_columns, PRIMARY KEY (k) NOT ENFORCED) WITH ($options);
CREATE TABLE sink (id BIGINT, name STRING) WITH ('connector' = 'blackhole');
INSERT INTO sink SELECT $hint p.id, d.name FROM probe p JOIN dim FOR SYSTEM_TIME AS OF p.pt AS d ON p.k = d.k;
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

# measure NAME DIM_OPTIONS HINT PARALLELISM SOURCE ONE_ROW_SOURCE ROWS: sets elapsed, rate
measure() {
  local name=$1
  job "$WORK/$name.one.sql" "$2" "$3" "$4" "$6"
  timed "$WORK/$name.one.sql"
  local start=$wall
  job "$WORK/$name.sql" "$2" "$3" "$4" "$5"
  timed "$WORK/$name.sql"
  elapsed=$(echo "$wall - $start" | bc -l)
  rate=$(echo "e = $elapsed; if (e < 0.001) e = 0.001; $7 / e" | bc -l)
}

percentiles() { echo "$lookups" | sed -n 's/.*latency p50 \([^,]*\), p99 \([^,]*\),.*/\1 \/ \2/p'; }
mean_latency() { echo "$lookups" | sed -n 's/.*, mean \([0-9.]*\) ms.*/\1/p'; }
mean_in_flight() { echo "$lookups" | sed -n 's/.*, \([0-9.]*\) in flight on average.*/\1/p'; }
# rows/s, or "> N" when the run took under 0.1 s beyond its start-up (too short to time)
shown_rate() { if [ "$(echo "$elapsed < 0.1" | bc)" = 1 ]; then echo "> $(echo "$1 / 0.1" | bc)"; else printf '%.0f' "$rate"; fi; }
hit_rate() { echo "$cache_line" | sed -n 's/.*hit rate \([0-9.]*%\).*/\1/p'; }

hint_async() { # capacity mode [extra]
  local mode=""
  [ "$2" = unordered ] && mode=", 'output-mode' = 'allow_unordered'"
  echo "/*+ LOOKUP('table' = 'd', 'async' = 'true', 'capacity' = '$1'$mode${3:-}) */"
}

if want 1; then
echo "PostgreSQL $(psql -qAt -c 'SHOW server_version'), $keys keys, $latency ms away (latency_proxy), one connection per LookupJoin subtask"
echo "(libpq pipeline mode: the keys submitted between two polls go out as one group ended by one Sync)"
echo "bound: capacity / $latency ms; at round trip: capacity / the sync lookups' mean round trip (the"
echo "latency the store really has here); in flight: SHOW JOB METRICS' mean of the requests in flight"
echo
echo "| lookups | rows | rows/s | bound | of bound | at round trip | of it | mean latency ms | in flight | lookup p50 / p99 | CPU s |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
rows=$(echo "$seconds * 1000 / $latency" | bc)
measure sync "$(pg "$proxy_port" dim)" "" 1 "$(datagen "$rows")" "$(datagen 1)" "$rows"
bound=$(echo "1000 / $latency" | bc -l)
round_trip=$(echo "1000 / $rate" | bc -l) # ms, as the sync job saw it
printf '| sync | %d | %.0f | %.0f | %.2f | %.0f | %.2f | %s | 1 | %s | %.2f |\n' "$rows" "$rate" "$bound" \
  "$(echo "$rate / $bound" | bc -l)" "$rate" 1 "$(mean_latency)" "$(percentiles)" "$cpu"
for capacity in 10 100 1000; do
  bound=$(echo "$capacity * 1000 / $latency" | bc -l)
  at_round_trip=$(echo "$capacity * 1000 / $round_trip" | bc -l)
  rows=$(echo "r = $bound * $seconds; if (r > $max_rows) r = $max_rows; r / 1" | bc)
  for mode in ordered unordered; do
    measure "async$capacity$mode" "$(pg "$proxy_port" dim)" "$(hint_async $capacity $mode)" 1 "$(datagen "$rows")" "$(datagen 1)" "$rows"
    printf '| async %s, capacity %d | %d | %.0f | %.0f | %.2f | %.0f | %.2f | %s | %s | %s | %.2f |\n' "$mode" "$capacity" \
      "$rows" "$rate" "$bound" "$(echo "$rate / $bound" | bc -l)" "$at_round_trip" "$(echo "$rate / $at_round_trip" | bc -l)" \
      "$(mean_latency)" "$(mean_in_flight)" "$(percentiles)" "$cpu"
  done
done
# where the store saturates: the same with no proxy (loopback, sub-millisecond round trips)
for capacity in 1 100 1000; do
  hint=$(hint_async $capacity ordered)
  label="async ordered, capacity $capacity"
  [ $capacity = 1 ] && hint="" && label="sync"
  measure "direct$capacity" "$(pg "$PGPORT" dim)" "$hint" 1 "$(datagen "$max_rows")" "$(datagen 1)" "$max_rows"
  flight=$(mean_in_flight); [ $capacity = 1 ] && flight=1
  printf '| no proxy: %s | %d | %.0f | - | - | - | - | %s | %s | %s | %.2f |\n' "$label" "$max_rows" "$rate" \
    "$(mean_latency)" "$flight" "$(percentiles)" "$cpu"
done
kill -TERM "$proxy_pid"
wait "$proxy_pid" || true
proxy_pid=""
read -r _ proxy_connections _ proxy_chunks _ proxy_overlap <"$WORK/proxy.stats"
echo
echo "The proxy forwarded $proxy_chunks chunks on $proxy_connections connections, at most $proxy_overlap held at once"
echo "(requests overlapped in the delay line); a sync lookup's round trip: $(printf '%.2f' "$round_trip") ms."

fi
if want 2; then
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
  measure "sleep$capacity" "$(pg "$PGPORT" slow_dim)" "$hint" 1 "$(datagen "$rows")" "$(datagen 1)" "$rows"
  printf '| %s | %d | %.0f | %.0f | %.2f |\n' "$label" "$rows" "$rate" "$(echo "$capacity * 1000 / $latency" | bc -l)" "$cpu"
done

fi
if [ -n "$proxy_pid" ]; then kill -TERM "$proxy_pid"; wait "$proxy_pid" || true; proxy_pid=""; fi
# a fresh proxy for the cache and shuffle runs
"$PROXY" "$PGPORT" "$latency" "$WORK/proxy2.stats" >"$WORK/proxy2.port" &
proxy_pid=$!
for _ in $(seq 50); do [ -s "$WORK/proxy2.port" ] && break; sleep 0.1; done
proxy_port=$(cat "$WORK/proxy2.port")

if want 3; then
echo
echo "caches: $zipf_rows probe rows, Zipf keys (s = 1.0) over $keys keys ($distinct distinct), async capacity 100, $latency ms away"
echo "(ORDERED: a hit waits in its slot for the misses before it; allow_unordered: it leaves at once):"
echo
echo "| lookup.cache | max-rows | hit rate | store requests | rows/s ordered | rows/s unordered | CPU s (unordered) |"
echo "|---|---|---|---|---|---|---|"
for cache in NONE 100 1000 10000 FULL; do
  case $cache in
    NONE) options="" ;;
    FULL) options=", 'lookup.cache' = 'FULL'" ;;
    *) options=", 'lookup.cache' = 'PARTIAL', 'lookup.partial-cache.max-rows' = '$cache'" ;;
  esac
  measure "cache$cache" "$(pg "$proxy_port" dim "$options")" "$(hint_async 100 ordered)" 1 "$(csv "$WORK/zipf.csv")" "$(csv "$WORK/one.csv")" "$zipf_rows"
  ordered_rate=$(shown_rate "$zipf_rows")
  measure "cache${cache}u" "$(pg "$proxy_port" dim "$options")" "$(hint_async 100 unordered)" 1 "$(csv "$WORK/zipf.csv")" "$(csv "$WORK/one.csv")" "$zipf_rows"
  kind=PARTIAL; size=$cache
  [ $cache = NONE ] || [ $cache = FULL ] && kind=$cache && size=-
  requests=$(echo "$lookups" | sed -n 's/^\([0-9]*\) requests.*/\1/p')
  printf '| %s | %s | %s | %s | %s | %s | %.2f |\n' "$kind" "$size" "$(hit_rate)" "${requests:-0}" "$ordered_rate" \
    "$(shown_rate "$zipf_rows")" "$cpu"
done

fi
if want 4; then
echo
echo "shuffle at parallelism 2 (the same rows, PARTIAL max-rows 1000 per subtask, async unordered capacity 100):"
echo
echo "| shuffle | hit rate | store requests | rows/s | CPU s |"
echo "|---|---|---|---|---|"
for shuffle in false true; do
  extra=""
  [ $shuffle = true ] && extra=", 'shuffle' = 'true'"
  measure "shuffle$shuffle" "$(pg "$proxy_port" dim ", 'lookup.cache' = 'PARTIAL', 'lookup.partial-cache.max-rows' = '1000'")" \
    "$(hint_async 100 unordered "$extra")" 2 "$(csv "$WORK/zipf.csv")" "$(csv "$WORK/one.csv")" "$zipf_rows"
  requests=$(echo "$lookups" | sed -n 's/^\([0-9]*\) requests.*/\1/p')
  printf '| %s | %s | %s | %.0f | %.2f |\n' "$shuffle" "$(hit_rate)" "$requests" "$rate" "$cpu"
done

fi

# pool NAME STORE OPTIONS_FN PORT: section 6's rows for one store (one connection against pools)
pool_section() {
  local name=$1 store=$2 options_fn=$3 port=$4
  measure "${name}sync" "$($options_fn "$port")" "" 1 "$(datagen 200)" "$(datagen 1)" 200
  local trip
  trip=$(echo "1000 / $rate" | bc -l)
  echo
  echo "$store: one connection against a pool, $latency ms away; sync round trip $(printf '%.2f' "$trip") ms"
  echo "(of bound: rows/s / (capacity / $latency ms); of round trip: rows/s / (capacity / the sync round trip)):"
  echo
  echo "| capacity | output | connections | rows/s | of bound | of round trip | mean latency ms | in flight | CPU s |"
  echo "|---|---|---|---|---|---|---|---|---|"
  for capacity in 10 100 1000; do
    local bound at_trip rows choices default_count connections label
    bound=$(echo "$capacity * 1000 / $latency" | bc -l)
    at_trip=$(echo "$capacity * 1000 / $trip" | bc -l)
    rows=$(echo "r = $bound * $seconds; if (r > $max_rows) r = $max_rows; r / 1" | bc)
    choices="1 2"
    [ "$capacity" -ge 100 ] && choices="1 2 4 8"
    for mode in ordered unordered; do
      for connections in default $choices; do
        [ "$connections" = "${default_count:-}" ] && continue # measured as the default
        local extra=""
        [ "$connections" != default ] && extra=", 'lookup.async.connections' = '$connections'"
        measure "${name}c${capacity}${mode}${connections}" "$($options_fn "$port")$extra" "$(hint_async "$capacity" "$mode")" 1 "$(datagen "$rows")" "$(datagen 1)" "$rows"
        label=$connections
        if [ "$connections" = default ]; then
          default_count=$(echo "$lookups" | sed -n 's/.* over \([0-9]*\) connections.*/\1/p')
          default_count=${default_count:-1}
          label="$default_count (default)"
        fi
        printf '| %d | %s | %s | %.0f | %.2f | %.2f | %s | %s | %.2f |\n' "$capacity" "$mode" "$label" "$rate" \
          "$(echo "$rate / $bound" | bc -l)" "$(echo "$rate / $at_trip" | bc -l)" "$(mean_latency)" "$(mean_in_flight)" "$cpu"
      done
      default_count=""
    done
  done
}
pg_pool_options() { pg "$1" dim; }
if want 6; then
  pool_section pgpool PostgreSQL pg_pool_options "$proxy_port"
  set +e
  harness_start tests/jdbc/mariadb.sh MariaDB
  rc=$?
  set -e
  if [ $rc = 2 ]; then
    echo
    echo "MariaDB: skipped ($HARNESS_SKIPPED)"
  else
    "$ROOT/tests/jdbc/mariadb.sh" sql "$JOINERY_MYSQL_DIR" >/dev/null <<SQL
CREATE TABLE dim (k INT PRIMARY KEY, name TEXT, score INT);
INSERT INTO dim SELECT seq, CONCAT('name_', seq), seq % 1000 FROM seq_1_to_$keys;
SQL
    "$PROXY" "$JOINERY_MYSQL_PORT" "$latency" "$WORK/proxy_my.stats" >"$WORK/proxy_my.port" &
    my_proxy_pid=$!
    for _ in $(seq 50); do [ -s "$WORK/proxy_my.port" ] && break; sleep 0.1; done
    my_pool_options() { echo "'connector' = 'jdbc', 'url' = 'jdbc:mysql://127.0.0.1:$1/joinery', 'table-name' = 'dim', 'username' = 'joinery', 'password' = 'joinery-secret'"; }
    pool_section mypool "MariaDB $("$ROOT/tests/jdbc/mariadb.sh" sql "$JOINERY_MYSQL_DIR" <<<'SELECT VERSION();' | tail -1)" my_pool_options "$(cat "$WORK/proxy_my.port")"
    kill -TERM "$my_proxy_pid"; wait "$my_proxy_pid" || true
  fi
fi
# Redis (tests/redis/redis.sh), the same keys as strings (GET), through its own proxy
want 5 || want 6 || exit 0
set +e
harness_start tests/redis/redis.sh Redis
rc=$?
set -e
echo
if [ $rc = 2 ]; then
  echo "Redis: skipped ($HARNESS_SKIPPED)"
  exit 0
fi
awk -v n="$keys" 'BEGIN { for (i = 1; i <= n; i++) { v = "name_" i;
  printf "*3\r\n$3\r\nSET\r\n$%d\r\n%d\r\n$%d\r\n%s\r\n", length(i ""), i, length(v), v } }' |
  "$ROOT/tests/redis/redis.sh" cli "$JOINERY_REDIS_DIR" --pipe >/dev/null
kill -TERM "$proxy_pid"
wait "$proxy_pid" || true
"$PROXY" "$JOINERY_REDIS_PORT" "$latency" "$WORK/proxy3.stats" >"$WORK/proxy3.port" &
proxy_pid=$!
for _ in $(seq 50); do [ -s "$WORK/proxy3.port" ] && break; sleep 0.1; done
proxy_port=$(cat "$WORK/proxy3.port")
dim_columns="k INT, name STRING"
redis() { echo "'connector' = 'redis', 'host' = '127.0.0.1', 'port' = '$1', 'password' = '$JOINERY_REDIS_PASSWORD', 'command' = 'get'"; }
if want 5; then
echo "Redis $(redis-server --version | sed 's/.*v=\([^ ]*\).*/\1/'), the same $keys keys (GET), $latency ms away, one connection per subtask (hiredis, pipelined):"
echo
echo "| lookups | rows | rows/s | bound | of bound | mean latency ms | in flight | CPU s |"
echo "|---|---|---|---|---|---|---|---|"
for capacity in 1 10 100 1000; do
  hint=$(hint_async $capacity ordered)
  label="async ordered, capacity $capacity"
  [ $capacity = 1 ] && hint="" && label="sync"
  bound=$(echo "$capacity * 1000 / $latency" | bc -l)
  rows=$(echo "r = $bound * $seconds; if (r > $max_rows) r = $max_rows; r / 1" | bc)
  measure "redis$capacity" "$(redis "$proxy_port")" "$hint" 1 "$(datagen "$rows")" "$(datagen 1)" "$rows"
  flight=$(mean_in_flight); [ $capacity = 1 ] && flight=1
  printf '| %s | %d | %.0f | %.0f | %.2f | %s | %s | %.2f |\n' "$label" "$rows" "$rate" "$bound" "$(echo "$rate / $bound" | bc -l)" \
    "$(mean_latency)" "$flight" "$cpu"
done
measure "redisdirect" "$(redis "$JOINERY_REDIS_PORT")" "$(hint_async 1000 ordered)" 1 "$(datagen "$max_rows")" "$(datagen 1)" "$max_rows"
printf '| no proxy: async ordered, capacity 1000 | %d | %.0f | - | - | %s | %s | %.2f |\n' "$max_rows" "$rate" "$(mean_latency)" "$(mean_in_flight)" "$cpu"
fi
redis_pool_options() { redis "$1"; }
if want 6; then
  pool_section redispool "Redis $(redis-server --version | sed 's/.*v=\([^ ]*\).*/\1/') (GET)" redis_pool_options "$proxy_port"
fi

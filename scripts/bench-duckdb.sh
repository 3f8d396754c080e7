#!/usr/bin/env bash
# bench-duckdb.sh - issue 13's target for the two-table streaming join: at
# least as fast as DuckDB's single-threaded batch join of the same files.
# Both engines join bench_join's JSON-lines files (orders JOIN users ON
# user_id; 5% of the orders have no user), in the same run, back to back:
#   joinery  build/joinery -f: two filesystem json tables, INSERT INTO a
#            blackhole sink of (order_id, amount, user_name), parallelism 1,
#            a streaming join keeping both inputs in state;
#   DuckDB   @duckdb/node-api (scripts/bench-duckdb.mjs), SET threads = 1,
#            read_ndjson with the same columns declared, counting the rows
#            of the join's order_id, amount and user_name (so it reads the
#            columns joinery outputs).
# Each is measured by its CPU seconds (user + system, all threads: GNU time
# for joinery's process, process.cpuUsage around the query for DuckDB) and
# its wall seconds; rows/s is input rows (orders + users) per second. Rounds
# alternate joinery and DuckDB; the ratio is joinery's rows/s over DuckDB's
# (>= 1 meets the target), per round and the median of the rounds. The row
# counts must agree (an inner join of insert-only inputs writes exactly its
# final rows): exit 1 if not.
#
# DuckDB is installed with npm into BUILD_DIR/duckdb-node on first use; when
# node or npm is missing or the registry cannot be reached, the DuckDB side
# is skipped with a message and the script exits 0 (make bench runs offline).
#
# Usage: scripts/bench-duckdb.sh BUILD_DIR [ORDERS [USERS]]
#   (default 2000000 orders, 200000 users, the issue's sizes)
# Environment: BENCH_DUCKDB_ROUNDS (default 3), BENCH_DUCKDB_VERSION (the
# @duckdb/node-api version npm installs, default 1.5.6-r.1).
set -euo pipefail
build=${1:-build}
orders=${2:-2000000}
users=${3:-200000}
rounds=${BENCH_DUCKDB_ROUNDS:-3}
duckdb_version=${BENCH_DUCKDB_VERSION:-1.5.6-r.1}
cd "$(dirname "$0")/.."
if [ ! -d "$build" ]; then
  echo "bench-duckdb.sh: no build folder $build (run make)" >&2
  exit 2
fi
build=$(cd "$build" && pwd)
data="$build/bench-data-$orders-$users"
modules="$build/duckdb-node"
work="$build/bench-duckdb"
mkdir -p "$work"

for tool in "$build/joinery" "$build/tools/bench_join" /usr/bin/time; do
  if [ ! -x "$tool" ]; then
    echo "bench-duckdb.sh: $tool is missing (run make; GNU time is Debian's 'time')" >&2
    exit 2
  fi
done
"$build/tools/bench_join" --data "$data" --orders "$orders" --users "$users" \
  --products "$((users / 2))" --generate-only | grep -v '^bench_join:' || true

# duckdb_install: 0 when @duckdb/node-api is there or was installed
duckdb_install() {
  [ -f "$modules/node_modules/@duckdb/node-api/package.json" ] && return 0
  if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    echo "DuckDB: skipped (node or npm is not installed)"
    return 1
  fi
  mkdir -p "$modules"
  if ! timeout 300 npm install --prefix "$modules" --no-audit --no-fund --no-save \
    "@duckdb/node-api@$duckdb_version" >"$work/npm-install.log" 2>&1; then
    echo "DuckDB: skipped (npm could not install @duckdb/node-api@$duckdb_version;" \
      "offline? see $work/npm-install.log)"
    return 1
  fi
}
duckdb=true
duckdb_install || duckdb=false

cat >"$work/join.sql" <<SQL
SET 'parallelism.default' = '1';
CREATE TABLE orders (order_id BIGINT, user_id BIGINT, product_id BIGINT, amount DECIMAL(10, 2))
  WITH ('connector' = 'filesystem', 'path' = '$data/orders.json', 'format' = 'json');
CREATE TABLE users (user_id BIGINT, user_name STRING, region_id BIGINT)
  WITH ('connector' = 'filesystem', 'path' = '$data/users.json', 'format' = 'json');
CREATE TABLE sink (order_id BIGINT, amount DECIMAL(10, 2), user_name STRING)
  WITH ('connector' = 'blackhole');
INSERT INTO sink SELECT o.order_id, o.amount, u.user_name
  FROM orders AS o JOIN users AS u ON o.user_id = u.user_id;
SQL

input=$((orders + users))
echo "two-table join of $orders orders x $users users (JSON lines, $input input rows), parallelism 1 / one thread"
echo
echo "| round | engine | output rows | wall s | CPU s | input rows / CPU-s | input rows / wall-s | peak RSS MB |"
echo "|---|---|---|---|---|---|---|---|"
ratios_cpu=()
ratios_wall=()
for round in $(seq "$rounds"); do
  /usr/bin/time -f '%e %U %S %M' -o "$work/joinery.time" \
    "$build/joinery" -f "$work/join.sql" >"$work/joinery.out" 2>&1 ||
    { cat "$work/joinery.out" >&2; exit 1; }
  read -r j_wall j_user j_sys j_rss < <(tail -n 1 "$work/joinery.time")
  j_rows=$(sed -n 's/^\[INFO\] Job finished: \([0-9]*\) rows written.*/\1/p' "$work/joinery.out")
  j_cpu=$(awk -v u="$j_user" -v s="$j_sys" 'BEGIN { printf "%.2f", u + s }')
  awk -v r="$round" -v rows="$j_rows" -v w="$j_wall" -v c="$j_cpu" -v n="$input" -v m="$j_rss" \
    'BEGIN { printf "| %s | joinery | %s | %.2f | %.2f | %.0f | %.0f | %.0f |\n", r, rows, w, c, (c > 0 ? n / c : 0), (w > 0 ? n / w : 0), m / 1024 }'
  [ "$duckdb" = true ] || continue
  /usr/bin/time -f '%M' -o "$work/duckdb.time" node scripts/bench-duckdb.mjs "$modules" \
    "$data/orders.json" "$data/users.json" >"$work/duckdb.out" 2>&1 ||
    { cat "$work/duckdb.out" >&2; exit 1; }
  read -r _ d_rows _ d_wall _ d_cpu _ d_version <"$work/duckdb.out"
  d_rss=$(tail -n 1 "$work/duckdb.time")
  awk -v r="$round" -v rows="$d_rows" -v w="$d_wall" -v c="$d_cpu" -v n="$input" -v m="$d_rss" -v v="$d_version" \
    'BEGIN { printf "| %s | DuckDB %s | %s | %.2f | %.2f | %.0f | %.0f | %.0f |\n", r, v, rows, w, c, (c > 0 ? n / c : 0), (w > 0 ? n / w : 0), m / 1024 }'
  if [ "$d_rows" != "$j_rows" ]; then
    echo "bench-duckdb.sh: joinery wrote $j_rows rows, DuckDB counted $d_rows" >&2
    exit 1
  fi
  ratios_cpu+=("$(awk -v j="$j_cpu" -v d="$d_cpu" 'BEGIN { printf "%.3f", (j > 0 ? d / j : 0) }')")
  ratios_wall+=("$(awk -v j="$j_wall" -v d="$d_wall" 'BEGIN { printf "%.3f", (j > 0 ? d / j : 0) }')")
done
echo
if [ "$duckdb" = true ]; then
  median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
  echo "joinery / DuckDB input rows per CPU-second, each round: ${ratios_cpu[*]}; median $(median "${ratios_cpu[@]}")x (target: >= 1)"
  echo "joinery / DuckDB input rows per wall-second, each round: ${ratios_wall[*]}; median $(median "${ratios_wall[@]}")x"
  echo "(DuckDB's figures are its query alone, node's start-up excluded; joinery's are the whole process: start, DDL, the INSERT)"
fi

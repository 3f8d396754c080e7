#!/usr/bin/env bash
# run-bench.sh - `make bench`: join throughput and memory next to SQLite, and
# the shell's start-up time. Prints figures; never fails on a time threshold
# (a non-zero exit means the benchmark itself could not run).
#
# Usage: scripts/run-bench.sh BUILD_DIR
# Environment: BENCH_ORDERS, BENCH_USERS, BENCH_PRODUCTS (row counts; default
# 9M, 1M, 500k: over 10 million input rows per join), BENCH_ARGS (more
# bench_join options, e.g. --skip-datagen or --metrics), BENCH_STATE_ROWS,
# BENCH_STATE_LMDB_ROWS (bench_state's rows; default 5M, and 1M for the
# side-by-side run of both backends), BENCH_INTERVAL_HOURS (bench_interval's
# simulated hours of event time; default 4), BENCH_LATENCY_ROWS / BENCH_LATENCY_RATE
# (bench-latency.sh: rows and rows per second, default 100000 at 20000),
# BENCH_LOOKUP_* (bench-lookup.sh: keys, latency, seconds per run, rows),
# BENCH_DUCKDB_ORDERS / BENCH_DUCKDB_USERS (bench-duckdb.sh's join, default
# 2M x 200K; DuckDB is installed with npm on first use, skipped offline).
set -euo pipefail
build=${1:-build}
cd "$(dirname "$0")/.."

if [ ! -x "$build/tools/bench_join" ] || [ ! -x "$build/joinery" ]; then
  echo "run-bench.sh: $build/tools/bench_join or $build/joinery is missing; run make first" >&2
  exit 2
fi

echo "== joins: joinery (in-process, blackhole sink) and SQLite (in-memory, indexed) =="
# shellcheck disable=SC2086
"$build/tools/bench_join" --data "$build/bench-data" --joinery "$build/joinery" \
  --orders "${BENCH_ORDERS:-9000000}" --users "${BENCH_USERS:-1000000}" \
  --products "${BENCH_PRODUCTS:-500000}" ${BENCH_ARGS:-}

echo
echo "== two-table join from JSON files beside DuckDB (one thread, same files, same run; target >= 1x) =="
scripts/bench-duckdb.sh "$build" "${BENCH_DUCKDB_ORDERS:-2000000}" "${BENCH_DUCKDB_USERS:-200000}"

echo
echo "== shell start-up: build/joinery -e 'SET;' (start, one statement, exit); target 20 ms =="
if command -v hyperfine >/dev/null 2>&1; then
  hyperfine --style basic --shell=none --warmup 5 --runs 50 "$build/joinery -e 'SET;'" 2>&1 |
    sed -n '/Time (mean/,/Range/p'
else
  runs=30
  start=$(date +%s%N)
  for _ in $(seq $runs); do "$build/joinery" -e 'SET;' >/dev/null; done
  end=$(date +%s%N)
  echo "mean over $runs runs: $(( (end - start) / runs / 1000 )) us"
fi

echo
echo "== keyed state and join operator alone (bench_state: M input rows/s, bytes per stored row) =="
"$build/tools/bench_state" --case all --rows "${BENCH_STATE_ROWS:-5000000}" --keys 100000

echo
echo "== the same on both state backends, side by side (hashmap, LMDB; LMDB is 8-16x slower per access) =="
"$build/tools/bench_state" --case all --backend both --rows "${BENCH_STATE_LMDB_ROWS:-1000000}" --keys 100000

echo
echo "== MultiJoin vs binary join chain on one changelog (bench_multi_join: 4-way and 10-way LEFT chains) =="
# The ratio grows with the rows per key (Flink's tuning guide: 3x to 1000x+ smaller state).
# The targets (state 3x smaller on 4 inputs, 10x on 10; throughput at least equal and
# 2x) are read on the first shape: a driving input with 8 rows per key (a user's orders)
# LEFT JOINed to per-key tables, the binary chain repeating each of their rows in every
# intermediate result ...
"$build/tools/bench_multi_join" --inputs 4,10 --rows 100000 --keys 100000 --fanout 8
# ... one row per key and input, the least favourable case: by row bytes alone a binary
# chain of N inputs holds (N^2 + 3N - 4)/2 input rows' worth per key against N fused
# (2.25x for 4 inputs, 5.4x for 10); the fused state also stores each key once ...
"$build/tools/bench_multi_join" --inputs 4,10 --rows 100000 --keys 100000
# ... and two rows per key in every input, where intermediate results multiply
# (10 such inputs would need tens of GiB for the binary chain: not run)
"$build/tools/bench_multi_join" --inputs 4,6 --rows 20000 --keys 10000

echo
echo "== interval join vs regular join over hours of event time (bench_interval: state stays flat vs grows) =="
"$build/tools/bench_interval" --hours "${BENCH_INTERVAL_HOURS:-4}" --rate 50 --every 30

echo
echo "== mini-batch on and off (bench_mini_batch: state accesses and output rows per input row) =="
"$build/tools/bench_mini_batch" --keys 10000 --size 100,1000,10000
"$build/tools/bench_mini_batch" --keys 100 --size 100,1000 | sed -n '1,6p;/^multi-join/,$p'
echo "== one vs two phases on a hot key (bench_mini_batch --phases 2: Local/GlobalGroupAggregate) =="
"$build/tools/bench_mini_batch" --phases 2 --rows 1000000 --keys 10000 --hot 50 --size 100,1000,10000

echo
echo "== Kafka: kafka -> two-table join -> kafka on kafka-mock, next to kcat's consume rate =="
scripts/bench-kafka.sh "$build" "${BENCH_KAFKA_ORDERS:-200000}"

echo
echo "== star join, binary vs MultiJoin (keys differ) =="
scripts/bench-star.sh "$build" "${BENCH_STAR_ORDERS:-1000000}"

echo
echo "== checkpoints: a join with and without them, each backend; recovery after kill -9 (bench-checkpoint.sh) =="
scripts/bench-checkpoint.sh "$build" "${BENCH_CHECKPOINT_ORDERS:-3000000}" "${BENCH_CHECKPOINT_INTERVAL:-10 s}"

echo
echo "== mini-batch latency: p50 / p99 of a GroupAggregate's updates, mini-batch off and on (bench-latency.sh) =="
scripts/bench-latency.sh "$build" "${BENCH_LATENCY_ROWS:-100000}" "${BENCH_LATENCY_RATE:-20000}"

echo
echo "== lookup joins: PostgreSQL and Redis 10 ms away, sync / async vs capacity / latency, caches, shuffle (bench-lookup.sh) =="
scripts/bench-lookup.sh "$build"

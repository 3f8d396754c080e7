#!/usr/bin/env bash
# bench-checkpoint.sh - `make bench`: the cost of checkpoints (engine/exec/README.md
# "Checkpoints"). A datagen join (ORDERS orders, 100k users, blackhole sink) on each
# state backend, without checkpoints and with one every INTERVAL: CPU seconds (user +
# sys: the figure that a shared machine does not distort), wall seconds, the
# checkpoints taken with their duration and size (SHOW JOB METRICS), and the recovery:
# the same job killed with SIGKILL after its first complete checkpoint and restored from
# it (the bytes read back and how long restoring them into the operators took).
#
# Usage: scripts/bench-checkpoint.sh BUILD_DIR [ORDERS] [INTERVAL]
# (defaults 3000000 orders, '10 s'; the issue's 1 GiB of state is about 8M orders on
# the hashmap backend). BENCH_CHECKPOINT_BACKENDS: the backends, default "hashmap lmdb";
# BENCH_CHECKPOINT_LMDB_MODES: LMDB's state.backend.lmdb.checkpoint-mode values to run,
# default "copy records"; BENCH_CHECKPOINT_NONE=0 leaves out the run without checkpoints.
# On LMDB the lines also give the join's busy time (the task's
# CPU inside the operator) and the largest size the task's data.mdb reached (sampled every
# 0.2 s: the pages a copy's read transaction keeps from being reused).
set -euo pipefail
build=${1:-build}
orders=${2:-3000000}
interval=${3:-10 s}
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export TMPDIR="$work"

job() { # job BACKEND CHECKPOINTS(0/1) [RESTORE] [LMDB MODE]
  echo "SET 'state.backend.type' = '$1';"
  if [ "$1" = lmdb ]; then
    echo "SET 'state.backend.lmdb.path' = '$work/lmdb';"
    [ -n "${4:-}" ] && echo "SET 'state.backend.lmdb.checkpoint-mode' = '$4';"
  fi
  if [ "$2" = 1 ]; then
    echo "SET 'execution.checkpointing.interval' = '$interval';"
    echo "SET 'execution.checkpointing.dir' = '$work/chk';"
  fi
  [ -n "${3:-}" ] && echo "SET 'execution.state-recovery.path' = '$3';"
  cat <<SQL
CREATE TABLE orders (order_id BIGINT, user_id BIGINT, amount INT) WITH (
  'connector' = 'datagen', 'number-of-rows' = '$orders', 'rows-per-second' = '1000000000',
  'fields.order_id.kind' = 'sequence', 'fields.order_id.start' = '1', 'fields.order_id.end' = '1000000000',
  'fields.user_id.min' = '1', 'fields.user_id.max' = '100000');
CREATE TABLE users (user_id BIGINT, name STRING) WITH (
  'connector' = 'datagen', 'number-of-rows' = '100000', 'rows-per-second' = '1000000000',
  'fields.user_id.kind' = 'sequence', 'fields.user_id.start' = '1', 'fields.user_id.end' = '100000',
  'fields.name.length' = '16');
CREATE TABLE sink (order_id BIGINT, name STRING) WITH ('connector' = 'blackhole');
INSERT INTO sink SELECT o.order_id, u.name FROM orders o JOIN users u ON o.user_id = u.user_id;
SHOW JOB METRICS;
SQL
}

run() { # run NAME SQLFILE: prints CPU and wall seconds and the checkpoint lines
  local out="$work/$1.out"
  /usr/bin/time -f "%U %S %e" -o "$work/$1.time" "$build/joinery" -f "$2" >"$out" 2>&1 &
  local pid=$! largest=0 size
  while kill -0 "$pid" 2>/dev/null; do
    size=$({ find "$work/lmdb" -name data.mdb -printf '%s\n' 2>/dev/null || true; } | awk '{s += $1} END {print s + 0}')
    [ "$size" -gt "$largest" ] && largest=$size
    sleep 0.2
  done
  wait "$pid" || true
  read -r user sys wall <"$work/$1.time"
  local checkpoints busy
  checkpoints=$(sed -n 's/^checkpoints: \([0-9]*\) completed.*/\1/p' "$out")
  busy=$(awk '$2 == "Join" {print $(NF - 1)}' "$out" | head -n 1)
  printf '%-32s cpu %6.2f s  wall %6.2f s  checkpoints %s  join busy %s ms' "$1" "$(echo "$user + $sys" | bc)" "$wall" "${checkpoints:-0}" "${busy:--}"
  [ "$largest" -gt 0 ] && printf '  data.mdb at most %d MB' $((largest / 1000000))
  printf '\n'
  grep -E '^  (chk-|restored|lmdb)' "$out" | sed 's/^/    /' || true # the last 8 checkpoints
}

for backend in ${BENCH_CHECKPOINT_BACKENDS:-hashmap lmdb}; do
  job "$backend" 0 >"$work/plain.sql"
  [ "${BENCH_CHECKPOINT_NONE:-1}" != 0 ] && run "$backend, none" "$work/plain.sql"
  modes="-"
  [ "$backend" = lmdb ] && modes=${BENCH_CHECKPOINT_LMDB_MODES:-copy records}
  for mode in $modes; do
    label=$backend
    [ "$mode" != - ] && label="$backend ($mode)"
    [ "$mode" = - ] && mode=""
    rm -rf "$work/chk"
    job "$backend" 1 "" "$mode" >"$work/checkpointed.sql"
    run "$label, every $interval" "$work/checkpointed.sql"
    # recovery: kill after the first complete checkpoint, restore from it
    rm -rf "$work/chk"
    "$build/joinery" -f "$work/checkpointed.sql" >/dev/null 2>&1 &
    pid=$!
    for _ in $(seq 1200); do
      ls "$work"/chk/*/chk-*/_metadata >/dev/null 2>&1 && break
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -9 "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    rm -rf "$work/lmdb"
    latest=$(ls -d "$work"/chk/*/chk-*/_metadata 2>/dev/null | head -n 1 | xargs -r dirname || true)
    if [ -n "$latest" ]; then
      job "$backend" 1 "$latest" "$mode" >"$work/restore.sql"
      run "$label, kill + restore" "$work/restore.sql"
    else
      echo "$label, kill + restore: the job ended before its first checkpoint"
    fi
  done
done

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
# the hashmap backend). BENCH_CHECKPOINT_BACKENDS: the backends, default "hashmap lmdb".
set -euo pipefail
build=${1:-build}
orders=${2:-3000000}
interval=${3:-10 s}
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export TMPDIR="$work"

job() { # job BACKEND CHECKPOINTS(0/1) [RESTORE]
  echo "SET 'state.backend.type' = '$1';"
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
  /usr/bin/time -f "%U %S %e" -o "$work/$1.time" "$build/joinery" -f "$2" >"$out" 2>&1 || true
  read -r user sys wall <"$work/$1.time"
  local checkpoints
  checkpoints=$(sed -n 's/^checkpoints: \([0-9]*\) completed.*/\1/p' "$out")
  printf '%-24s cpu %6.2f s  wall %6.2f s  checkpoints %s\n' "$1" "$(echo "$user + $sys" | bc)" "$wall" "${checkpoints:-0}"
  grep -E '^  (chk-|restored)' "$out" | sed 's/^/    /' || true # the last 8 checkpoints
}

for backend in ${BENCH_CHECKPOINT_BACKENDS:-hashmap lmdb}; do
  job "$backend" 0 >"$work/plain.sql"
  job "$backend" 1 >"$work/checkpointed.sql"
  run "$backend, none" "$work/plain.sql"
  run "$backend, every $interval" "$work/checkpointed.sql"
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
  latest=$(ls -d "$work"/chk/*/chk-*/_metadata 2>/dev/null | head -n 1 | xargs -r dirname || true)
  if [ -n "$latest" ]; then
    job "$backend" 1 "$latest" >"$work/restore.sql"
    run "$backend, kill + restore" "$work/restore.sql"
  else
    echo "$backend, kill + restore: the job ended before its first checkpoint"
  fi
done

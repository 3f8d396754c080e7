#!/usr/bin/env bash
# Savepoints: STOP JOB ... WITH SAVEPOINT, then a later INSERT resumed from it
# (SET 'execution.state-recovery.path'), must write together exactly what a
# job never stopped writes (engine/stmt/jobs.c, engine/exec/job_checkpoint.c).
#
# Usage: tests/checkpoint/savepoint.sh [BUILD_DIR]
# Env:   SAVEPOINT_SEED (the stop moments, default 7).
#
# For each job of jobs.sql (a GROUP BY, a LEFT JOIN, a MultiJoin over an
# aggregate - updates and deletes -, an event-time LEFT interval join), on
# the hashmap backend at one parallelism and on LMDB at the other (1 and 2
# alternate over the jobs, so each backend runs at both): the job is
# submitted in the background (table.dml-sync = false, a known job id through
# $internal.pipeline.job-id) by a shell reading its statements from a pipe,
# stopped with STOP JOB '<id>' WITH SAVEPOINT at a random moment, and the
# printed savepoint folder (savepoint-<id prefix>-<random>/ with _metadata) is
# passed to a second run of the same INSERT. The visible part files of both
# runs must give the same materialized table as the uninterrupted run, with no
# retraction of a missing row (materialize.py), and the same changelog lines
# for the jobs whose output does not depend on thread timing (the GROUP BY at
# parallelism 1, the interval join).
#
# WITH DRAIN: the interval join (an hour of watermark delay, so its LEFT rows
# without a payment wait for the watermark) stopped WITH SAVEPOINT WITH DRAIN
# must have written a row for every order it read (the MAX watermark fired
# every timer), and stopped without drain must not have (so the check can
# fail). Then the refusals: a savepoint without a savepoint folder, of a
# finished job, of an unknown id.
# Prints "N passed, N failed"; exits non-zero when anything failed.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-build}
case "$BUILD" in /*) ;; *) BUILD="$ROOT/$BUILD" ;; esac
JOINERY="$BUILD/joinery"
HERE="$ROOT/tests/checkpoint"
RANDOM=${SAVEPOINT_SEED:-7}
# the jobs run about 3 s (orders at 800 rows/s); the stop comes 0.3-1.5 s after the start
ORDERS_ROWS=2400
PAYMENTS_ROWS=600
JOB_ID=5a7e0000000000000000000000000001
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export TMPDIR="$WORK/tmp"
mkdir -p "$TMPDIR"
passed=0
failed=0

pass() { echo "ok: $*"; passed=$((passed + 1)); }
fail() { echo "FAILED: $*"; failed=$((failed + 1)); }

# job_sql NAME PARALLELISM BACKEND OUT RESTORE: the tables and the INSERT of job NAME
job_sql() {
  local name=$1 parallelism=$2 backend=$3 out=$4 restore=$5
  echo "SET 'parallelism.default' = '$parallelism';"
  echo "SET 'state.backend.type' = '$backend';"
  echo "SET 'table.optimizer.multi-join.enabled' = 'true';"
  [ -n "$restore" ] && echo "SET 'execution.state-recovery.path' = '$restore';"
  sed -e "s/@ORDERS_ROWS@/$ORDERS_ROWS/" -e "s/@PAYMENTS_ROWS@/$PAYMENTS_ROWS/" "$HERE/tables.sql"
  local columns
  columns=$(sed -n "s/^-- $name: \(.*\);\$/\1/p" "$HERE/jobs.sql" | head -n 1)
  echo "CREATE TABLE sink $columns WITH ('connector' = 'filesystem', 'path' = '$out/', 'format' = 'debezium-json');"
  sed -n "/^-- $name\$/,/;/p" "$HERE/jobs.sql" | sed 1d
}

# stop_with_savepoint NAME PARALLELISM BACKEND OUT LOG [DRAIN]: runs job NAME in the
# background and stops it with a savepoint after a random delay; prints the savepoint path
stop_with_savepoint() {
  local name=$1 parallelism=$2 backend=$3 out=$4 log=$5 drain=${6:-}
  local delay=$((300 + RANDOM % 1200))
  {
    echo "SET 'table.dml-sync' = 'false';"
    echo "SET 'execution.checkpointing.savepoint-dir' = '$WORK/savepoints';"
    echo "SET '\$internal.pipeline.job-id' = '$JOB_ID';"
    job_sql "$name" "$parallelism" "$backend" "$out" ""
    sleep "$(printf '%d.%03d' $((delay / 1000)) $((delay % 1000)))"
    echo "STOP JOB '$JOB_ID' WITH SAVEPOINT${drain:+ WITH DRAIN};"
  } | timeout 120 "$JOINERY" >"$log" 2>&1
  sed -n 's/^| *\(\/[^ ]*savepoint-[0-9a-f]*-[0-9a-f]*\) *|$/\1/p' "$log" | head -n 1
}

# compare NAME LABEL EXPECTED_OUT ACTUAL_OUT: materialized tables (and lines where stable)
compare() {
  local name=$1 label=$2 expected_dir=$3 actual_dir=$4 parallelism=$5
  local expected actual lines=""
  expected=$(python3 "$HERE/materialize.py" "$expected_dir")
  if ! actual=$(python3 "$HERE/materialize.py" "$actual_dir" 2>&1); then
    fail "$label: $actual"
    return
  fi
  if [ "$expected" != "$actual" ]; then
    fail "$label: the materialized output differs from the uninterrupted run's" \
      "($(printf '%s\n' "$expected" | wc -l) rows expected, $(printf '%s\n' "$actual" | wc -l) rows)"
    return
  fi
  if { [ "$name" = aggregate ] && [ "$parallelism" = 1 ]; } || [ "$name" = interval ]; then
    if [ "$(python3 "$HERE/materialize.py" --lines "$expected_dir")" != \
      "$(python3 "$HERE/materialize.py" --lines "$actual_dir")" ]; then
      fail "$label: the changelog lines differ from the uninterrupted run's"
      return
    fi
    lines=", the same $(python3 "$HERE/materialize.py" --lines "$actual_dir" | wc -l) changelog lines"
  fi
  pass "$label: stopped with a savepoint and resumed; $(printf '%s\n' "$actual" | wc -l) rows as uninterrupted$lines"
}

if [ ! -x "$JOINERY" ]; then
  echo "tests/checkpoint/savepoint.sh: $JOINERY not found (run make first)"
  echo "0 passed, 1 failed"
  exit 1
fi

job_index=0
for name in aggregate join multijoin interval; do
  # each backend at each parallelism, over the jobs, not every job on all four:
  # even jobs run hashmap p1 and lmdb p2, odd ones hashmap p2 and lmdb p1
  if [ $((job_index % 2)) -eq 0 ]; then combinations="hashmap:1 lmdb:2"; else combinations="hashmap:2 lmdb:1"; fi
  job_index=$((job_index + 1))
  clean="$WORK/$name-clean"
  mkdir -p "$clean"
  job_sql "$name" 1 hashmap "$clean/out" "" >"$clean/job.sql"
  if ! timeout 120 "$JOINERY" -f "$clean/job.sql" >"$clean/log" 2>&1; then
    fail "$name: the uninterrupted run failed: $(tail -n 3 "$clean/log")"
    continue
  fi
  for combination in $combinations; do
    backend=${combination%:*}
    parallelism=${combination#*:}
    label="$name $backend p$parallelism"
    dir="$WORK/$name-$backend-p$parallelism"
    mkdir -p "$dir"
    savepoint=$(stop_with_savepoint "$name" "$parallelism" "$backend" "$dir/out" "$dir/stop.log")
    if [ -z "$savepoint" ] || [ ! -f "$savepoint/_metadata" ]; then
      fail "$label: no savepoint: $(tail -n 3 "$dir/stop.log")"
      continue
    fi
    job_sql "$name" "$parallelism" "$backend" "$dir/out" "$savepoint" >"$dir/resume.sql"
    if ! timeout 120 "$JOINERY" -f "$dir/resume.sql" >"$dir/resume.log" 2>&1 ||
      ! grep -q "Job finished" "$dir/resume.log"; then
      fail "$label: the resumed run failed: $(tail -n 3 "$dir/resume.log")"
      continue
    fi
    compare "$name" "$label" "$clean/out" "$dir/out" "$parallelism"
  done
done

# WITH DRAIN: every order read has its row (the MAX watermark fired the LEFT join's timers)
# orders_read OUT: the highest order_id in the visible files, and the count of distinct ones
orders_seen() {
  python3 "$HERE/materialize.py" --lines "$1" | python3 -c '
import json, sys
ids = set()
for line in sys.stdin:
    line = line.strip()
    if not line:
        continue
    start = line.find("{")
    record = json.loads(line[start:]) if start >= 0 else None
    after = (record or {}).get("after") or {}
    if "order_id" in after:
        ids.add(after["order_id"])
print(max(ids) if ids else 0, len(ids))'
}
for drain in drain none; do
  dir="$WORK/drain-$drain"
  mkdir -p "$dir"
  savepoint=$(stop_with_savepoint interval 1 hashmap "$dir/out" "$dir/stop.log" \
    "$([ "$drain" = drain ] && echo yes)")
  if [ -z "$savepoint" ]; then
    fail "WITH DRAIN ($drain): no savepoint: $(tail -n 3 "$dir/stop.log")"
    continue
  fi
  read -r highest distinct <<<"$(orders_seen "$dir/out")"
  if [ "$drain" = drain ]; then
    if [ "$highest" -gt 0 ] && [ "$highest" = "$distinct" ]; then
      pass "STOP JOB WITH SAVEPOINT WITH DRAIN: a row for each of the $highest orders read"
    else
      fail "WITH DRAIN: $distinct distinct orders written, the highest $highest"
    fi
  else
    if [ "$highest" != "$distinct" ]; then
      pass "without drain the rows of orders still waiting for the watermark are not written ($distinct of $highest)"
    else
      fail "without drain: every order read has a row ($distinct of $highest): the drain check cannot fail"
    fi
  fi
done

# refusals
dir="$WORK/refusals"
mkdir -p "$dir"
{
  echo "SET 'table.dml-sync' = 'false';"
  echo "SET '\$internal.pipeline.job-id' = '$JOB_ID';"
  job_sql aggregate 1 hashmap "$dir/out" ""
  echo "STOP JOB '$JOB_ID' WITH SAVEPOINT;"
  echo "STOP JOB '5a7e0000000000000000000000000999' WITH SAVEPOINT;"
  echo "STOP JOB '$JOB_ID';"
  echo "DESCRIBE JOB '$JOB_ID';"
} | timeout 120 "$JOINERY" --continue-on-error >"$dir/log" 2>&1
if grep -q "No savepoint directory configured" "$dir/log"; then pass "a savepoint without a folder is refused"
else fail "a savepoint without a folder: $(cat "$dir/log")"; fi
if grep -q "Could not find Flink job (5a7e0000000000000000000000000999)" "$dir/log"; then
  pass "a savepoint of an unknown job is refused"
else fail "a savepoint of an unknown job: $(tail -n 4 "$dir/log")"; fi
if grep -q "| $JOB_ID | insert-into_default_catalog.default_database.sink | CANCELED |" "$dir/log"; then
  pass "STOP JOB without savepoint cancels (DESCRIBE JOB says CANCELED)"
else fail "STOP JOB: $(tail -n 6 "$dir/log")"; fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

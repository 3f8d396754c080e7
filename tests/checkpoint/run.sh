#!/usr/bin/env bash
# Kill -9 equivalence of checkpointed jobs (engine/exec/job_checkpoint.c).
#
# Usage: tests/checkpoint/run.sh [BUILD_DIR]
# Env:   CHECKPOINT_KILLS (kills per job and parallelism, default 2; the issue's
#        bar is 30), CHECKPOINT_SEED (the kill moments, default 12),
#        CHECKPOINT_KAFKA=0 leaves out kafka.sh (Kafka source, upsert-kafka sink),
#        CHECKPOINT_LMDB_MODE=records|copy sets state.backend.lmdb.checkpoint-mode
#        (default: the option's default, copy).
#
# Each job (jobs.sql: a GROUP BY, a LEFT JOIN, a MultiJoin of three inputs one
# of which is an aggregate - so updates and deletes -, and an event-time LEFT
# interval join, whose state and timers are checkpointed; a statement set of a GROUP BY and
# a projection sharing their source, two sinks) reads rate-limited datagen
# tables and writes debezium-json part files to a filesystem sink, checkpointed
# every 150 ms, for about 0.7 s per kill. It runs once uninterrupted, then at parallelism 1 and 2 it is
# SIGKILLed at CHECKPOINT_KILLS random moments (150-1250 ms after each start)
# and restarted each time from the latest complete checkpoint (the highest
# chk-<n> with a _metadata), until it finishes. The visible part files must then
# give the same materialized table as the uninterrupted run, with no retraction
# of a missing row (materialize.py); the GROUP BY at parallelism 1 and the
# interval join (an hour of watermark delay: no row is late), whose output
# does not depend on timing, must give the same lines. Then: a
# corrupt and a truncated checkpoint file and a changed query are refused with
# their messages, and the previous retained checkpoint still restores. A kill
# leaves a chk-<n> folder without _metadata when it lands inside a checkpoint;
# their count is printed (evidence that some kills did).
# Prints "N passed, N failed"; exits non-zero when anything failed.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-build}
case "$BUILD" in /*) ;; *) BUILD="$ROOT/$BUILD" ;; esac
JOINERY="$BUILD/joinery"
HERE="$ROOT/tests/checkpoint"
KILLS=${CHECKPOINT_KILLS:-2}
RANDOM=${CHECKPOINT_SEED:-12}
# each start runs 0.7 s on average before its kill: the jobs last about that times the kills
# plus a second (orders at 800 rows/s, payments at 200 rows/s; users end after 2 s)
TENTHS=$((KILLS * 7 + 10))
ORDERS_ROWS=$((TENTHS * 80))
PAYMENTS_ROWS=$((TENTHS * 20))
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
# a killed job leaves its temporary LMDB folder behind: here, removed with the rest
export TMPDIR="$WORK/tmp"
mkdir -p "$TMPDIR"
passed=0
failed=0
total_kills=0
total_restores=0
total_incomplete=0

pass() { echo "ok: $*"; passed=$((passed + 1)); }
fail() { echo "FAILED: $*"; failed=$((failed + 1)); }

# latest_checkpoint DIR: the complete checkpoint with the highest id under DIR/<job>/
latest_checkpoint() {
  ls -d "$1"/*/chk-*/_metadata 2>/dev/null |
    sed -E 's|.*/chk-([0-9]+)/_metadata$|\1 &|' | sort -n | tail -n 1 | cut -d' ' -f2 |
    xargs -r dirname
}

# job_sql NAME PARALLELISM OUT CHK RESTORE: the script of job NAME (jobs.sql)
job_sql() {
  local name=$1 parallelism=$2 out=$3 chk=$4 restore=$5
  echo "SET 'parallelism.default' = '$parallelism';"
  echo "SET 'execution.checkpointing.interval' = '150 ms';"
  echo "SET 'execution.checkpointing.dir' = '$chk';"
  echo "SET 'execution.checkpointing.num-retained' = '2';"
  echo "SET 'table.optimizer.multi-join.enabled' = 'true';"
  [ -n "${CHECKPOINT_LMDB_MODE:-}" ] &&
    echo "SET 'state.backend.lmdb.checkpoint-mode' = '$CHECKPOINT_LMDB_MODE';"
  [ -n "$restore" ] && echo "SET 'execution.state-recovery.path' = '$restore';"
  sed -e "s/@ORDERS_ROWS@/$ORDERS_ROWS/" -e "s/@PAYMENTS_ROWS@/$PAYMENTS_ROWS/" "$HERE/tables.sql"
  local columns
  columns=$(sed -n "s/^-- $name: \(.*\);\$/\1/p" "$HERE/jobs.sql" | head -n 1)
  echo "CREATE TABLE sink $columns WITH ('connector' = 'filesystem', 'path' = '$out/', 'format' = 'debezium-json');"
  columns=$(sed -n "s/^-- ${name}2: \(.*\);\$/\1/p" "$HERE/jobs.sql" | head -n 1)
  [ -n "$columns" ] &&
    echo "CREATE TABLE sink2 $columns WITH ('connector' = 'filesystem', 'path' = '${out}2/', 'format' = 'debezium-json');"
  sed -n "/^-- $name\$/,/;/p" "$HERE/jobs.sql" | sed 1d
}

# run_uninterrupted NAME: the reference output of job NAME in $WORK/NAME-clean/out
run_uninterrupted() {
  local dir="$WORK/$1-clean"
  mkdir -p "$dir"
  job_sql "$1" 1 "$dir/out" "$dir/chk" "" >"$dir/job.sql"
  if timeout 120 "$JOINERY" -f "$dir/job.sql" >"$dir/log" 2>&1; then
    return 0
  fi
  fail "$1: the uninterrupted run failed: $(tail -n 3 "$dir/log")"
  return 1
}

# run_killed NAME PARALLELISM: kills and restores job NAME until it finishes; compares
run_killed() {
  local name=$1 parallelism=$2
  local dir="$WORK/$name-p$parallelism"
  local kills=0 restores=0 rounds=0 latest status pid delay
  mkdir -p "$dir"
  while :; do
    rounds=$((rounds + 1))
    if [ "$rounds" -gt $((KILLS + 20)) ]; then
      fail "$name p$parallelism: did not finish after $rounds starts"
      return
    fi
    latest=$(latest_checkpoint "$dir/chk")
    [ -n "$latest" ] && restores=$((restores + 1))
    job_sql "$name" "$parallelism" "$dir/out" "$dir/chk" "$latest" >"$dir/job.sql"
    "$JOINERY" -f "$dir/job.sql" >"$dir/log.$rounds" 2>&1 &
    pid=$!
    if [ "$kills" -lt "$KILLS" ]; then
      delay=$((150 + RANDOM % 1100))
      sleep "$(printf '%d.%03d' $((delay / 1000)) $((delay % 1000)))"
      if kill -9 "$pid" 2>/dev/null; then
        wait "$pid" 2>/dev/null
        kills=$((kills + 1))
        continue
      fi
    fi
    wait "$pid"
    status=$?
    if [ "$status" -ne 0 ] || ! grep -q "Job finished" "$dir/log.$rounds"; then
      fail "$name p$parallelism: start $rounds ended with $status: $(tail -n 3 "$dir/log.$rounds")"
      return
    fi
    break
  done
  local incomplete
  incomplete=$(find "$dir/chk" -mindepth 2 -maxdepth 2 -name 'chk-*' -type d \
    '!' -exec test -e '{}/_metadata' ';' -print | wc -l)
  total_kills=$((total_kills + kills))
  total_restores=$((total_restores + restores))
  total_incomplete=$((total_incomplete + incomplete))
  local expected actual
  expected=$(python3 "$HERE/materialize.py" "$WORK/$name-clean/out")
  if ! actual=$(python3 "$HERE/materialize.py" "$dir/out" 2>&1); then
    fail "$name p$parallelism: $actual"
    return
  fi
  if [ "$expected" != "$actual" ]; then
    fail "$name p$parallelism: the materialized output differs from the uninterrupted run's" \
      "($(printf '%s\n' "$expected" | wc -l) rows expected, $(printf '%s\n' "$actual" | wc -l) rows)"
    return
  fi
  local lines="" rows
  rows=$(printf '%s\n' "$actual" | wc -l)
  if [ -d "$WORK/$name-clean/out2" ]; then
    # a statement set's second sink: the same table as the uninterrupted run's too
    local expected2 actual2
    expected2=$(python3 "$HERE/materialize.py" "$WORK/$name-clean/out2")
    if ! actual2=$(python3 "$HERE/materialize.py" "$dir/out2" 2>&1) || [ "$expected2" != "$actual2" ]; then
      fail "$name p$parallelism: the second sink's output differs from the uninterrupted run's"
      return
    fi
    rows="$rows + $(printf '%s\n' "$actual2" | wc -l)"
  fi
  if { [ "$name" = aggregate ] && [ "$parallelism" = 1 ]; } || [ "$name" = interval ]; then
    if [ "$(python3 "$HERE/materialize.py" --lines "$WORK/$name-clean/out")" != \
      "$(python3 "$HERE/materialize.py" --lines "$dir/out")" ]; then
      fail "$name p$parallelism: the changelog lines differ from the uninterrupted run's"
      return
    fi
    lines=", the same $(python3 "$HERE/materialize.py" --lines "$dir/out" | wc -l) changelog lines"
  fi
  pass "$name p$parallelism: $kills kills, $restores restores, $incomplete incomplete checkpoints left by kills; $rows rows as uninterrupted$lines"
}

if [ ! -x "$JOINERY" ]; then
  echo "tests/checkpoint: $JOINERY not found (run make first)"
  echo "0 passed, 1 failed"
  exit 1
fi

for name in aggregate join multijoin interval set; do
  run_uninterrupted "$name" || continue
  for parallelism in 1 2; do
    run_killed "$name" "$parallelism"
  done
done
echo "kills: $total_kills, restores from a checkpoint: $total_restores, incomplete checkpoint folders (kills inside a checkpoint): $total_incomplete"

# refusals: a corrupt file, a truncated file, a changed query; the older retained one restores
dir="$WORK/refusals"
mkdir -p "$dir"
job_sql aggregate 1 "$dir/out" "$dir/chk" "" >"$dir/job.sql"
"$JOINERY" -f "$dir/job.sql" >"$dir/log" 2>&1 &
pid=$!
sleep 1
kill -9 "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
latest=$(latest_checkpoint "$dir/chk")
previous=$(ls -d "$dir"/chk/*/chk-*/_metadata 2>/dev/null | sed -E 's|.*/chk-([0-9]+)/_metadata$|\1 &|' |
  sort -n | tail -n 2 | head -n 1 | cut -d' ' -f2 | xargs -r dirname)
if [ -z "$latest" ] || [ "$latest" = "$previous" ]; then
  fail "refusals: no two retained checkpoints after 1 s"
else
  cp -r "$latest" "$dir/corrupt"
  state=$(grep -l . "$dir"/corrupt/op-* | while read -r f; do [ "$(stat -c %s "$f")" -gt 100 ] && echo "$f"; done | head -n 1)
  printf 'X' | dd of="$state" bs=1 seek=40 conv=notrunc status=none
  job_sql aggregate 1 "$dir/out2" "$dir/chk2" "$dir/corrupt" >"$dir/corrupt.sql"
  "$JOINERY" -f "$dir/corrupt.sql" >"$dir/corrupt.log" 2>&1
  if grep -q "is corrupt (checksum)" "$dir/corrupt.log"; then pass "a corrupt checkpoint file is refused"
  else fail "a corrupt checkpoint file: $(tail -n 2 "$dir/corrupt.log")"; fi
  cp -r "$latest" "$dir/truncated"
  state="$dir/truncated/$(basename "$state")"
  truncate -s -7 "$state"
  job_sql aggregate 1 "$dir/out3" "$dir/chk3" "$dir/truncated" >"$dir/truncated.sql"
  "$JOINERY" -f "$dir/truncated.sql" >"$dir/truncated.log" 2>&1
  if grep -q "is truncated or extended" "$dir/truncated.log"; then pass "a truncated checkpoint file is refused"
  else fail "a truncated checkpoint file: $(tail -n 2 "$dir/truncated.log")"; fi
  # on LMDB in copy mode: the task's environment copy, damaged and cut short, is refused
  copy=$(ls "$latest"/lmdb-* 2>/dev/null | head -n 1)
  if [ -n "$copy" ]; then
    cp -r "$latest" "$dir/copy-corrupt"
    printf 'X' | dd of="$dir/copy-corrupt/$(basename "$copy")" bs=1 seek=5000 conv=notrunc status=none
    job_sql aggregate 1 "$dir/out7" "$dir/chk7" "$dir/copy-corrupt" >"$dir/copy-corrupt.sql"
    "$JOINERY" -f "$dir/copy-corrupt.sql" >"$dir/copy-corrupt.log" 2>&1
    if grep -q "its state copy '$(basename "$copy")' is corrupt (checksum mismatch)" "$dir/copy-corrupt.log"; then
      pass "a corrupt LMDB environment copy is refused"
    else fail "a corrupt LMDB environment copy: $(tail -n 2 "$dir/copy-corrupt.log")"; fi
    cp -r "$latest" "$dir/copy-truncated"
    truncate -s -4096 "$dir/copy-truncated/$(basename "$copy")"
    job_sql aggregate 1 "$dir/out8" "$dir/chk8" "$dir/copy-truncated" >"$dir/copy-truncated.sql"
    "$JOINERY" -f "$dir/copy-truncated.sql" >"$dir/copy-truncated.log" 2>&1
    if grep -q "its state copy '$(basename "$copy")' is truncated or damaged" "$dir/copy-truncated.log"; then
      pass "a truncated LMDB environment copy is refused"
    else fail "a truncated LMDB environment copy: $(tail -n 2 "$dir/copy-truncated.log")"; fi
  fi
  sed 's/COUNT(\*) AS orders/COUNT(DISTINCT amount) AS orders/' "$dir/job.sql" |
    sed "s|^SET 'execution.checkpointing.interval'|SET 'execution.state-recovery.path' = '$latest';\n&|" >"$dir/changed.sql"
  "$JOINERY" -f "$dir/changed.sql" >"$dir/changed.log" 2>&1
  if grep -q "the query does not match its state" "$dir/changed.log"; then pass "a changed query is refused"
  else fail "a changed query: $(tail -n 2 "$dir/changed.log")"; fi
  # damaged in place, the newest names the file and the previous retained one, which restores
  state_in_place="$latest/$(basename "$state")"
  printf 'X' | dd of="$state_in_place" bs=1 seek=40 conv=notrunc status=none
  job_sql aggregate 1 "$dir/out5" "$dir/chk5" "$latest" >"$dir/in-place.sql"
  "$JOINERY" -f "$dir/in-place.sql" >"$dir/in-place.log" 2>&1
  if grep -q "its file '$(basename "$state")' is corrupt (checksum); the previous retained checkpoint '$previous' is complete" "$dir/in-place.log"; then
    pass "a corrupt file of the newest checkpoint is refused, naming the file and the previous retained checkpoint"
  else fail "a corrupt file in place: $(tail -n 2 "$dir/in-place.log")"; fi
  truncate -s 0 "$latest/_metadata"
  "$JOINERY" -f "$dir/in-place.sql" >"$dir/in-place2.log" 2>&1
  if grep -q "its file '_metadata' is corrupt (checksum or syntax); the previous retained checkpoint '$previous' is complete" "$dir/in-place2.log"; then
    pass "a truncated _metadata is refused, naming the previous retained checkpoint"
  else fail "a truncated _metadata in place: $(tail -n 2 "$dir/in-place2.log")"; fi
  # the older one restores (its output from there on is written again: what the newer one
  # committed is duplicated, as in Flink when a job goes back to an older checkpoint)
  job_sql aggregate 1 "$dir/out4" "$dir/chk4" "$previous" >"$dir/previous.sql"
  if timeout 120 "$JOINERY" -f "$dir/previous.sql" >"$dir/previous.log" 2>&1 &&
    grep -q "Job finished" "$dir/previous.log"; then
    pass "the previous retained checkpoint restores"
  else fail "the previous retained checkpoint: $(tail -n 2 "$dir/previous.log")"; fi
  # and into the other backend (an LMDB copy read into hashmap state, records into LMDB): the
  # same changelog lines (the GROUP BY at parallelism 1; a partial changelog, since it starts
  # at the checkpoint: compared as lines, not materialized)
  case "${JOINERY_STATE_BACKEND:-hashmap}" in lmdb) other=hashmap ;; *) other=lmdb ;; esac
  job_sql aggregate 1 "$dir/out6" "$dir/chk6" "$previous" >"$dir/across.sql"
  changelog() { find "$1" -type f ! -name '.*' -print0 | sort -z | xargs -0 cat | sort; }
  if JOINERY_STATE_BACKEND=$other timeout 120 "$JOINERY" -f "$dir/across.sql" >"$dir/across.log" 2>&1 &&
    grep -q "Job finished" "$dir/across.log" && [ -n "$(changelog "$dir/out6")" ] &&
    [ "$(changelog "$dir/out4")" = "$(changelog "$dir/out6")" ]; then
    pass "the previous retained checkpoint restores on $other too, with the same output"
  else fail "restoring on $other: $(tail -n 2 "$dir/across.log")"; fi
fi

if [ "${CHECKPOINT_KAFKA:-1}" != 0 ]; then
  kafka_output=$("$HERE/kafka.sh" "$BUILD" "$KILLS" 2>&1)
  kafka_failures=$?
  printf '%s\n' "$kafka_output"
  passed=$((passed + $(printf '%s\n' "$kafka_output" | grep -c '^ok:')))
  failed=$((failed + kafka_failures))
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

#!/usr/bin/env bash
# run-tests.sh - every test of `make test`: the include layer rules
# (scripts/check-layers.sh), the Check unit suites, the golden SQL scripts,
# the sample scripts of sample-data/ (each runs without an error), the
# shell's end-to-end tests, kill -9 and restore of checkpointed jobs
# (tests/checkpoint), the jdbc connector against real PostgreSQL and
# MariaDB servers and the redis sink against a real Redis (tests/jdbc,
# tests/redis), Kafka end to end, the differential test
# against SQLite (parallelism 1 and 2), the fuzz regressions replayed and
# (with clang) every fuzz target run a few seconds, state larger than memory
# (tests/state), and then the unit suites, golden scripts and differential
# test once more with LMDB as the default state backend
# (JOINERY_STATE_BACKEND=lmdb: same output, byte for byte). With
# JOINERY_STATE_BACKEND=lmdb set by the caller, everything runs on LMDB
# once. Temporary files go to a folder of the run's own, which must hold no
# job state folder at the end (stores remove what they create). Prints a
# summary line "N passed, N failed" and exits non-zero when anything failed.
#
# Usage: scripts/run-tests.sh BUILD_DIR
set -u
build=${1:-build}
cd "$(dirname "$0")/.."
passed=0
failed=0
failures=""
run_tmp=$(mktemp -d)
trap 'rm -rf "$run_tmp"' EXIT
export TMPDIR="$run_tmp"

group_started=$SECONDS
record() { # name status
  echo "-- $1: $((SECONDS - group_started)) s"
  group_started=$SECONDS
  if [ "$2" -eq 0 ]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    failures="$failures $1"
  fi
}

echo "== include layer rules (scripts/check-layers.sh)"
scripts/check-layers.sh
record "check-layers" $?

# unit_suites LABEL: every Check suite (with a LABEL, the second pass: all but
# check_state_backends and the stores' lookup suites)
# Check's per-test timeouts are hang guards, not speed checks: a loaded
# machine (several builds at once) must not fail them, hence the multiplier.
unit_suites() {
  export CK_TIMEOUT_MULTIPLIER="${CK_TIMEOUT_MULTIPLIER:-5}"
  for suite in "$build"/tests/check_*; do
    [ -x "$suite" ] || continue
    name=$(basename "$suite")
    # check_state_backends runs every case on both backends itself; the stores' lookup
    # suites drive lookup functions against real servers and keep no state
    if [ -n "$1" ]; then
      case $name in
      check_state_backends | check_jdbc_lookup | check_mysql_lookup | check_redis_lookup) continue ;;
      esac
    fi
    output=$(timeout 300 "$suite" 2>&1)
    status=$?
    echo "$name: $(printf '%s\n' "$output" | tail -n 1)"
    [ $status -eq 0 ] || printf '%s\n' "$output" | grep -v "^100%" | tail -n 20
    record "$1$name" $status
  done
}

# golden_scripts LABEL: every tests/sql script against its .out, byte for byte
golden_scripts() {
  for script in tests/sql/*.sql; do
    [ -e "$script" ] || continue
    expected="${script%.sql}.out"
    actual=$(mktemp)
    # filesystem sinks add part files to their folders: every script starts from none
    rm -rf tests/sql/data/out
    timeout 120 "$build/joinery" --continue-on-error -f "$script" >"$actual" 2>&1
    if diff -u "$expected" "$actual" >"$actual.diff"; then
      echo "$(basename "$script"): ok"
      record "$1$script" 0
    else
      echo "$(basename "$script"): DIFFERS"
      head -n 40 "$actual.diff"
      record "$1$script" 1
    fi
    rm -f "$actual" "$actual.diff"
  done
}

share_of() { echo $(($1 * share / 100)); }

# differential LABEL [SHARE]: 600 random join queries (row by row,
# with mini-batch, with the distinct split), 300 in batch mode (ORDER BY and LIMIT, compared in order), 600 random interval joins (plus the
# late-row cases at parallelism 1), 40 random window joins, 40 window aggregates, 6000 temporal join
# queries and 480 Top-N queries against SQLite at
# parallelism 1 and 2. SHARE (percent, default 100) scales every count: the
# LMDB pass runs a third of them (the same first cases, on the other backend).
# diff_tool GROUP SECONDS TOOL ARGS...: tools/TOOL with ARGS at $parallelism under a time limit,
# its last lines shown, recorded as ${label}GROUP-p$parallelism
diff_tool() {
  local group=$1 seconds=$2 tool=$3
  shift 3
  timeout "$seconds" "$build/tools/$tool" "$@" --parallelism "$parallelism" 2>&1 | tail -n 25
  record "${label}$group-p$parallelism" "${PIPESTATUS[0]}"
}

differential() {
  label=$1
  share=${2:-100}
  for parallelism in 1 2; do
    diff_tool diff_join 600 diff_join --queries "$(share_of 600)"
    # the same with mini-batch on (batches of 3 rows: the mini-batch aggregate and join;
    # half the rounds two-phase, LocalGroupAggregate / GlobalGroupAggregate)
    diff_tool diff_join-mini-batch 600 diff_join --queries "$(share_of 600)" --mini-batch 3
    # COUNT(DISTINCT) split over 4 buckets (table.optimizer.distinct-agg.split.enabled)
    diff_tool diff_join-distinct-split 300 diff_join --queries "$(share_of 600)" --distinct-split 4
    # batch runtime mode: the queries ordered by every column and limited, compared in order
    diff_tool diff_join-batch 600 diff_join --queries "$(share_of 300)" --batch
    diff_tool diff_interval 300 diff_interval --cases "$(share_of 600)" --late 6
    diff_tool diff_window 600 diff_window --cases "$(share_of 40)"
    # window aggregates only: COUNT / SUM / MIN / MAX / AVG and COUNT / SUM (DISTINCT)
    diff_tool diff_window-aggregates 120 diff_window --cases "$(share_of 40)" --aggregates
    diff_tool diff_temporal 600 diff_temporal --rounds "$(share_of 1000)"
    diff_tool diff_rank 600 diff_rank --rounds "$(share_of 60)"
  done
}

# Lanes: the groups that mostly wait (servers starting, rate-limited jobs killed
# and restored at chosen moments, the shell's pty, pages read back from disk
# under a memory limit) run in two lanes beside the CPU-bound groups, each
# lane's output kept in a file and printed when every lane is done, its
# results added to the counts. start_lane NAME FUNCTION runs FUNCTION in the
# background; finish_lane NAME TITLE waits for it and adds its counts.
start_lane() {
  (
    passed=0
    failed=0
    failures=""
    "$2"
    echo "$passed $failed$failures" >"$run_tmp/$1.result"
  ) >"$run_tmp/$1.log" 2>&1 &
  eval "lane_pid_$1=\$!"
}
finish_lane() {
  local pid_name="lane_pid_$1"
  wait "${!pid_name}"
  echo "== ($2)"
  cat "$run_tmp/$1.log"
  if read -r lane_passed lane_failed lane_failures <"$run_tmp/$1.result" 2>/dev/null; then
    passed=$((passed + lane_passed))
    failed=$((failed + lane_failed))
    [ -n "$lane_failures" ] && failures="$failures $lane_failures"
  else
    record "$1 lane (no result)" 1
  fi
}

# servers_and_jobs: the shell, checkpoints, jdbc, redis, lookup joins, Kafka.
servers_and_jobs() {
  echo "== shell end to end (tests/cli)"
  timeout 300 tests/cli/run.sh "$build"
  record "tests/cli" $?

  echo "== checkpoints: kill -9 and restore equals an uninterrupted run (tests/checkpoint)"
  timeout 300 tests/checkpoint/run.sh "$build"
  record "tests/checkpoint" $?

  echo "== jdbc end to end against a real PostgreSQL server (tests/jdbc)"
  timeout 300 tests/jdbc/run.sh "$build"
  record "tests/jdbc" $?

  echo "== jdbc end to end against a real MariaDB server (tests/jdbc/mysql.sh)"
  timeout 300 tests/jdbc/mysql.sh "$build"
  record "tests/jdbc/mysql" $?

  echo "== redis sink end to end against a real Redis server (tests/redis)"
  timeout 300 tests/redis/run.sh "$build"
  record "tests/redis" $?
  echo "== lookup joins against real PostgreSQL, MariaDB and Redis servers: seeds, caches, differential, faults, restarts (tests/lookup)"
  timeout 600 tests/lookup/run.sh "$build"
  record "tests/lookup" $?

  echo "== Kafka end to end through kafka-mock and kcat (tests/kafka)"
  timeout 600 tests/kafka/run.sh "$build"
  record "tests/kafka" $?

}

# disk_and_savepoints: state larger than memory (I/O-bound under its memory
# limit), the checkpoints on LMDB and the savepoints (rate-limited jobs stopped
# and resumed).
disk_and_savepoints() {
  echo "== state larger than memory, LMDB and hashmap (tests/state)"
  timeout 600 tests/state/run.sh "$build"
  record "tests/state" $?
  # here rather than beside the other checkpoints: this lane is the shorter (no Kafka, its
  # own folders, so it runs beside tests/checkpoint)
  if [ "${JOINERY_STATE_BACKEND:-}" != lmdb ]; then
    echo "== checkpoints on LMDB state (JOINERY_STATE_BACKEND=lmdb, one kill per job)"
    JOINERY_STATE_BACKEND=lmdb CHECKPOINT_KILLS=1 CHECKPOINT_KAFKA=0 \
      timeout 300 tests/checkpoint/run.sh "$build"
    record "lmdb:tests/checkpoint" $?
  fi
  echo "== savepoints: STOP JOB WITH SAVEPOINT and a resumed run equal an uninterrupted run, both backends (tests/checkpoint/savepoint.sh)"
  timeout 400 tests/checkpoint/savepoint.sh "$build"
  record "tests/checkpoint/savepoint.sh" $?
}

# The lanes start here (before the LMDB pass exports JOINERY_STATE_BACKEND)
# and run while the unit suites, golden scripts and differential tests do.
start_lane servers servers_and_jobs
start_lane disk disk_and_savepoints

echo "== unit suites (Check)"
unit_suites ""

echo "== golden SQL scripts (tests/sql)"
golden_scripts ""

echo "== the sample scripts run without an error (sample-data/*.sql, what README and make demo show)"
for script in sample-data/*.sql; do
  output=$(timeout 120 "$build/joinery" -f "$script" 2>&1)
  status=$?
  if [ $status -eq 0 ] && ! printf '%s\n' "$output" | grep -q '\[ERROR\]'; then
    echo "$(basename "$script"): ok"
  else
    echo "$(basename "$script"): FAILED (exit $status)"
    printf '%s\n' "$output" | grep -A 5 '\[ERROR\]' | head -n 20
    status=1
  fi
  record "$script" $status
done

echo "== differential test against SQLite (tests/diff)"
differential ""

echo "== fuzz regressions and harnesses (tests/fuzz)"
# every saved finding replayed through its harness (any compiler) ...
for replay in "$build"/fuzz/replay_*; do
  [ -x "$replay" ] || continue
  name=${replay##*/replay_}
  inputs=tests/fuzz/regressions/$name
  [ -d "$inputs" ] || inputs=
  output=$(timeout 300 "$replay" $inputs 2>&1)
  status=$?
  echo "replay_$name: $(printf '%s\n' "$output" | tail -n 1)"
  [ $status -eq 0 ] || printf '%s\n' "$output" | tail -n 20
  record "fuzz-replay-$name" $status
done
# ... and, when clang built them (make test does), each libFuzzer target and the
# statement generator for a few seconds, so a broken harness shows here first
fuzz_build=${FUZZ_BUILD:-build-fuzz}
if [ -x "$fuzz_build/fuzz/fuzz_statement" ]; then
  FUZZ_SECONDS=${FUZZ_SMOKE_SECONDS:-1} FUZZ_GENERATOR_SECONDS=5 FUZZ_PLAN_LIMIT_MS=0 \
    timeout 600 scripts/run-fuzz.sh "$fuzz_build"
  record "fuzz-smoke" $?
else
  echo "fuzz targets not built (no clang): replay only"
fi

if [ "${JOINERY_STATE_BACKEND:-}" != lmdb ]; then
  echo "== unit suites, golden scripts and differential test on LMDB state (JOINERY_STATE_BACKEND=lmdb)"
  export JOINERY_STATE_BACKEND=lmdb
  unit_suites "lmdb:"
  golden_scripts "lmdb:"
  differential "lmdb:" 34
  unset JOINERY_STATE_BACKEND
fi

finish_lane servers "second lane: the shell, checkpoints, jdbc, redis, lookup joins, Kafka"
finish_lane disk "third lane: state larger than memory, savepoints"

echo "== job state folders left behind"
left=$(find "$run_tmp" -maxdepth 2 -name 'joinery-state-*' -o -maxdepth 2 -name 'joinery-job-*' | head -n 5)
if [ -z "$left" ]; then
  echo "none"
  record "state folders removed" 0
else
  echo "left behind: $left"
  record "state folders removed" 1
fi

echo
[ -n "$failures" ] && echo "failed:$failures"
echo "test groups: $passed passed, $failed failed"
[ "$failed" -eq 0 ]

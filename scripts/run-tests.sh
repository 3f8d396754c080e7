#!/usr/bin/env bash
# run-tests.sh - every test of `make test`: the include layer rules
# (scripts/check-layers.sh), the Check unit suites, the golden SQL scripts,
# the shell's end-to-end tests, Kafka end to end and the differential test
# against SQLite (parallelism 1 and 2). Prints a summary line
# "N passed, N failed" and exits non-zero when anything failed.
#
# Usage: scripts/run-tests.sh BUILD_DIR
set -u
build=${1:-build}
cd "$(dirname "$0")/.."
passed=0
failed=0
failures=""

record() { # name status
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

echo "== unit suites (Check)"
for suite in "$build"/tests/check_*; do
  [ -x "$suite" ] || continue
  name=$(basename "$suite")
  output=$(timeout 300 "$suite" 2>&1)
  status=$?
  echo "$name: $(printf '%s\n' "$output" | tail -n 1)"
  [ $status -eq 0 ] || printf '%s\n' "$output" | grep -v "^100%" | tail -n 20
  record "$name" $status
done

echo "== golden SQL scripts (tests/sql)"
for script in tests/sql/*.sql; do
  [ -e "$script" ] || continue
  expected="${script%.sql}.out"
  actual=$(mktemp)
  timeout 120 "$build/joinery" --continue-on-error -f "$script" >"$actual" 2>&1
  if diff -u "$expected" "$actual" >"$actual.diff"; then
    echo "$(basename "$script"): ok"
    record "$script" 0
  else
    echo "$(basename "$script"): DIFFERS"
    head -n 40 "$actual.diff"
    record "$script" 1
  fi
  rm -f "$actual" "$actual.diff"
done

echo "== shell end to end (tests/cli)"
timeout 300 tests/cli/run.sh "$build"
record "tests/cli" $?

echo "== Kafka end to end through kafka-mock and kcat (tests/kafka)"
timeout 600 tests/kafka/run.sh "$build"
record "tests/kafka" $?

echo "== differential test against SQLite (tests/diff)"
for parallelism in 1 2; do
  timeout 600 "$build/tools/diff_join" --queries 600 --parallelism "$parallelism" 2>&1 | tail -n 25
  record "diff_join-p$parallelism" "${PIPESTATUS[0]}"
done

echo
[ -n "$failures" ] && echo "failed:$failures"
echo "test groups: $passed passed, $failed failed"
[ "$failed" -eq 0 ]

#!/usr/bin/env bash
# State larger than memory: a join whose state is several times the process's
# memory limit completes with the right answer on the LMDB backend, and on the
# hashmap backend stops with an error that names the state size and
# 'state.backend.type' = 'lmdb' (instead of being killed).
#
# Usage: tests/state/run.sh [BUILD_DIR]
# Environment: STATE_TEST_ORDERS (default 200000: about 55 MiB of join state),
# STATE_TEST_LIMIT_MIB (default 16). Larger runs take minutes: under a
# cgroup the LMDB pages the join reads back come from disk once evicted
# (4000000 orders, 951 MiB of state under a 160 MiB limit: 10 minutes).
#
# The limit: a memory cgroup of its own when this process may create one
# (cgroup v2 memory.max, or v1 memory.limit_in_bytes: the kernel then counts
# the LMDB file's page cache too and reclaims it), else `prlimit --data`
# (private memory only: LMDB's read-only map is not counted). The test says
# which it used. The answer is checked exactly: every order joins its one
# user, so the output has one row per order, the sum of order ids is
# n(n+1)/2, both user ids agree in every row, and the text lengths are the
# generated ones. Prints "N passed, N failed"; nothing depends on wall-clock
# speed.
#
# Also: many states in one task. A chain of 600 binary joins keeps 1,198
# states in one task, each an LMDB database of the task's environment
# (LMDB's named-database limit once stopped it at 1,024): it runs on LMDB
# and gives the exact count.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-build}
case "$BUILD" in /*) ;; *) BUILD="$ROOT/$BUILD" ;; esac
JOINERY="$BUILD/joinery"
ORDERS=${STATE_TEST_ORDERS:-200000}
USERS=100000
LIMIT_MIB=${STATE_TEST_LIMIT_MIB:-16}
NOTE=60
NAME=40

WORK=$(mktemp -d)
CGROUP=""
cleanup() {
  [ -n "$CGROUP" ] && rmdir "$CGROUP" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT
passed=0
failed=0
pass() { passed=$((passed + 1)); echo "ok   $1"; }
fail() {
  failed=$((failed + 1)); echo "FAIL $1"
  [ -f "$WORK/err" ] && sed 's/^/  | /' "$WORK/err" | tail -n 20
}

# ---- many states in one task ------------------------------------------------
python3 - "$WORK/chain.sql" <<'PY'
import sys
tables = 600
lines = ["SET 'state.backend.type' = 'lmdb';", "SET 'table.optimizer.multi-join.enabled' = 'false';"]
for i in range(tables):
    lines.append("CREATE TABLE t%d (k INT) WITH ('connector' = 'datagen', 'number-of-rows' = '3', "
                 "'fields.k.kind' = 'sequence', 'fields.k.start' = '1', 'fields.k.end' = '3');" % i)
lines.append("SELECT COUNT(*) AS c FROM t0 " +
             " ".join("JOIN t%d ON t%d.k = t%d.k" % (i, i, i - 1) for i in range(1, tables)) + ";")
open(sys.argv[1], "w").write("\n".join(lines) + "\n")
PY
timeout 300 "$JOINERY" -f "$WORK/chain.sql" >"$WORK/out" 2>"$WORK/err"
rc=$?
final=$(grep -E '^\| \+(I|U) ' "$WORK/out" | tail -n 1 | awk '{print $4}')
if [ $rc -eq 0 ] && [ "$final" = 3 ]; then
  pass "lmdb: a chain of 600 binary joins (1,198 states in one task) runs, count exact"
else
  fail "lmdb: a chain of 600 binary joins (1,198 states in one task) runs, count exact (exit $rc, last count '$final')"
fi

# A sanitizer build (make asan sets ASAN_OPTIONS) needs several times the memory this test
# limits, for its shadow memory and quarantine: the limit would measure the sanitizer.
if [ -n "${ASAN_OPTIONS:-}" ]; then
  echo "skip: a sanitizer build's memory is not the engine's (ASAN_OPTIONS is set)"
  echo "0 passed, 0 failed, 1 skipped"
  exit 0
fi

# ---- the memory limit -------------------------------------------------------
limit_bytes=$((LIMIT_MIB * 1024 * 1024))
make_cgroup() {
  local name="joinery-state-test-$$"
  local v2 v1
  v2=$(awk -F: '$1 == "0" {print $3}' /proc/self/cgroup 2>/dev/null)
  v1=$(awk -F: '$2 ~ /(^|,)memory(,|$)/ {print $3}' /proc/self/cgroup 2>/dev/null)
  for base in "/sys/fs/cgroup$v2" "/sys/fs/cgroup/unified$v2"; do
    if [ -n "$v2" ] && [ -f "$base/cgroup.controllers" ] && grep -qw memory "$base/cgroup.controllers" 2>/dev/null &&
       mkdir "$base/$name" 2>/dev/null; then
      if echo "$limit_bytes" >"$base/$name/memory.max" 2>/dev/null; then
        echo 0 >"$base/$name/memory.swap.max" 2>/dev/null
        CGROUP="$base/$name"; LIMIT_KIND="cgroup v2 memory.max"; return 0
      fi
      rmdir "$base/$name"
    fi
  done
  local base1="/sys/fs/cgroup/memory$v1"
  if [ -n "$v1" ] && mkdir "$base1/$name" 2>/dev/null; then
    if echo "$limit_bytes" >"$base1/$name/memory.limit_in_bytes" 2>/dev/null; then
      CGROUP="$base1/$name"; LIMIT_KIND="cgroup v1 memory.limit_in_bytes"; return 0
    fi
    rmdir "$base1/$name"
  fi
  return 1
}
if make_cgroup; then
  limited() { (echo "$BASHPID" >"$CGROUP/cgroup.procs" && exec "$@"); }
elif command -v prlimit >/dev/null 2>&1; then
  LIMIT_KIND="prlimit --data"
  limited() { prlimit --data="$limit_bytes" -- "$@"; }
else
  echo "skip: neither a memory cgroup nor prlimit is available"
  echo "0 passed, 0 failed, 1 skipped"
  exit 0
fi
echo "memory limit: $LIMIT_MIB MiB ($LIMIT_KIND); $ORDERS orders joined to $USERS users"

# ---- the job ----------------------------------------------------------------
script() { # BACKEND OUTPUT
  cat <<EOF
SET 'state.backend.type' = '$1';
CREATE TABLE users (user_id BIGINT, name STRING) WITH (
  'connector' = 'datagen', 'fields.user_id.kind' = 'sequence',
  'fields.user_id.start' = '1', 'fields.user_id.end' = '$USERS',
  'fields.name.length' = '$NAME', 'rows-per-second' = '1000000000');
CREATE TABLE orders (order_id BIGINT, user_id BIGINT, note STRING) WITH (
  'connector' = 'datagen', 'fields.order_id.kind' = 'sequence',
  'fields.order_id.start' = '1', 'fields.order_id.end' = '$ORDERS',
  'fields.user_id.min' = '1', 'fields.user_id.max' = '$USERS',
  'fields.note.length' = '$NOTE', 'rows-per-second' = '1000000000');
CREATE TABLE joined (order_id BIGINT, order_user BIGINT, user_id BIGINT, text_length INT) WITH (
  'connector' = 'filesystem', 'path' = '$2', 'format' = 'csv');
INSERT INTO joined
SELECT o.order_id, o.user_id, u.user_id, CHAR_LENGTH(o.note) + CHAR_LENGTH(u.name)
FROM orders o JOIN users u ON o.user_id = u.user_id;
SHOW JOB METRICS;
EOF
}

# LMDB: completes, exactly right
# the sink's path is a folder of part files (as Flink's filesystem sink)
script lmdb "$WORK/lmdb_out" >"$WORK/lmdb.sql"
limited timeout 600 "$JOINERY" -f "$WORK/lmdb.sql" >"$WORK/out" 2>"$WORK/err"
rc=$?
check=$(awk -F, -v n="$ORDERS" -v len=$((NOTE + NAME)) '
  { rows++; sum += $1; if ($2 != $3 || $2 < 1) bad++; if ($4 != len) bad_length++ }
  END { expected = n * (n + 1) / 2;
        printf "%s", (rows == n && sum == expected && !bad && !bad_length) ? "ok" : "wrong";
        printf " rows=%d sum=%.0f expected=%.0f mismatched=%d lengths=%d\n", rows, sum, expected, bad, bad_length }' \
  "$WORK"/lmdb_out/part-* 2>/dev/null)
state_line=$(grep -E '^[0-9]+ +Join' "$WORK/out" | head -n 1)
state_bytes=$(echo "$state_line" | awk 'NF >= 3 {print $(NF-2)}')
echo "  lmdb: exit $rc, $check; join state $((${state_bytes:-0} / 1048576)) MiB"
if [ $rc -eq 0 ] && [ "${check%% *}" = ok ] && [ "${state_bytes:-0}" -gt $((3 * limit_bytes)) ]; then
  pass "lmdb: a join with state several times the memory limit completes, output exact"
else
  fail "lmdb: a join with state several times the memory limit completes, output exact"
fi
rm -rf "$WORK/lmdb_out"

# hashmap: a clear error naming the state size and the cure, not a kill
script hashmap "$WORK/hashmap_out" >"$WORK/hashmap.sql"
limited timeout 600 "$JOINERY" -f "$WORK/hashmap.sql" >"$WORK/out" 2>"$WORK/err"
rc=$?
if [ $rc -ne 0 ] && [ $rc -lt 128 ] && grep -q "MiB" "$WORK/err" &&
   grep -q "'state.backend.type' = 'lmdb'" "$WORK/err"; then
  pass "hashmap: the same job stops with an error naming the state size and 'lmdb' (exit $rc)"
else
  fail "hashmap: the same job stops with an error naming the state size and 'lmdb' (exit $rc)"
fi

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]

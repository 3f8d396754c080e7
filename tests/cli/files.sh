# files.sh - the filesystem connector on odd paths, and its crash-safe
# single-file sink, end to end through the shell. Sourced by run.sh (uses
# its JOINERY, WORK, LIMIT, run, pass, fail, out_has, err_has); every
# command runs under `timeout`, so a hang is a failure, never a stuck run.
#
# - a source directory with a symbolic link back to an ancestor (one link,
#   and two links into each other) is an error naming the link;
# - a dangling link and a FIFO in a source directory are [WARNING]s, and
#   the files beside them are read once;
# - /proc/self/fd as a path finishes; /dev/zero is refused (not a regular
#   file) instead of being read into memory;
# - a FIFO is read only with 'source.fifo.enabled' = 'true'; with no writer
#   the job waits without blocking in open(2) and SIGINT stops it;
# - INSERT into a file: a failed job leaves the old file and says so; a
#   joinery killed with SIGKILL in the middle of writing leaves the old
#   file byte for byte (the new rows were going to a hidden temporary file).

FILES="$WORK/files"
mkdir -p "$FILES/tree/sub"
printf '{"a":1}\n{"a":2}\n' >"$FILES/tree/one.json"
printf '{"a":3}\n' >"$FILES/tree/sub/two.json"

# source_sql PATH [OPTIONS]: a table t over PATH and a COUNT and SUM of it
source_sql() {
  printf "CREATE TABLE t (a INT) WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'json'%s);\nSELECT COUNT(*), SUM(a) FROM t;\n" "$1" "${2:-}"
}

# one link back to the root: an error naming the link, no file read 41 times
ln -s .. "$FILES/tree/sub/up"
source_sql "$FILES/tree" >"$FILES/q.sql"
run -f "$FILES/q.sql"
if [ $rc -eq 1 ] && err_has "the symbolic link '$FILES/tree/sub/up' points back to '$FILES/tree'"; then
  pass "symlink cycle (one link) is an error naming the link"
else
  fail "symlink cycle (one link) is an error naming the link (rc=$rc)"
fi
rm "$FILES/tree/sub/up"

# two links into each other
mkdir -p "$FILES/loop/a" "$FILES/loop/b"
ln -s ../b "$FILES/loop/a/to_b"
ln -s ../a "$FILES/loop/b/to_a"
source_sql "$FILES/loop" >"$FILES/q.sql"
run -f "$FILES/q.sql"
if [ $rc -eq 1 ] && err_has "(a cycle)" && err_has "/loop/a/to_b/to_a' points back to"; then
  pass "symlink cycle (two links) is an error naming the link"
else
  fail "symlink cycle (two links) is an error naming the link (rc=$rc)"
fi

# dangling link, a FIFO and a second path to a file: warned, each file read once
ln -s nowhere "$FILES/tree/dangling"
mkfifo "$FILES/tree/pipe"
ln -s ../one.json "$FILES/tree/sub/again.json"
source_sql "$FILES/tree" >"$FILES/q.sql"
run -f "$FILES/q.sql"
if [ $rc -eq 0 ] && out_has "|                    3 |           6 |" &&
  out_has "[WARNING] Table 't': skipped the dangling symbolic link '$FILES/tree/dangling' (to 'nowhere': No such file or directory)" &&
  out_has "[WARNING] Table 't': skipped '$FILES/tree/pipe': a FIFO (read FIFOs with 'source.fifo.enabled' = 'true')" &&
  out_has "[WARNING] Table 't': skipped '$FILES/tree/sub/again.json': the same file as '$FILES/tree/one.json', read once"; then
  pass "dangling link, FIFO and a second path to a file are warnings; 3 rows read"
else
  fail "dangling link, FIFO and a second path to a file are warnings; 3 rows read (rc=$rc)"
fi
rm "$FILES/tree/dangling" "$FILES/tree/pipe" "$FILES/tree/sub/again.json"

# /proc/self/fd finishes (stdout is a regular file here, read as JSON: an error or rows)
source_sql /proc/self/fd >"$FILES/q.sql"
run -f "$FILES/q.sql"
if [ $rc -le 1 ]; then pass "/proc/self/fd as a path finishes"; else fail "/proc/self/fd as a path finishes (rc=$rc)"; fi

# /dev/zero is not read into memory
printf "CREATE TABLE z (s STRING) WITH ('connector' = 'filesystem', 'path' = '/dev/zero', 'format' = 'raw');\nSELECT COUNT(*) FROM z;\n" >"$FILES/q.sql"
run -f "$FILES/q.sql"
if [ $rc -eq 1 ] && err_has "'/dev/zero' is a character device; the filesystem connector reads regular files"; then
  pass "/dev/zero is refused"
else
  fail "/dev/zero is refused (rc=$rc)"
fi

# a FIFO without the option, with it and no writer (SIGINT stops the wait), with a writer
mkfifo "$FILES/fifo"
source_sql "$FILES/fifo" >"$FILES/q.sql"
run -f "$FILES/q.sql"
if [ $rc -eq 1 ] && err_has "is a FIFO; set 'source.fifo.enabled' = 'true' to read it"; then
  pass "a FIFO needs 'source.fifo.enabled'"
else
  fail "a FIFO needs 'source.fifo.enabled' (rc=$rc)"
fi
source_sql "$FILES/fifo" ", 'source.fifo.enabled' = 'true'" >"$FILES/q.sql"
"$JOINERY" -f "$FILES/q.sql" >"$WORK/out" 2>"$WORK/err" </dev/null &
pid=$!
for _ in $(seq 1 100); do out_has "EXPR\$0" && break; sleep 0.1; done
kill -INT $pid
waited=0
while kill -0 $pid 2>/dev/null && [ $waited -lt $((LIMIT * 10)) ]; do sleep 0.1; waited=$((waited + 1)); done
if kill -0 $pid 2>/dev/null; then
  kill -KILL $pid; wait $pid 2>/dev/null
  fail "SIGINT stops a job waiting for a FIFO's writer"
else
  wait $pid; rc=$?
  if out_has "Query terminated, received a total of 0 row"; then
    pass "SIGINT stops a job waiting for a FIFO's writer (rc=$rc)"
  else
    fail "SIGINT stops a job waiting for a FIFO's writer (rc=$rc)"
  fi
fi
(sleep 0.5; printf '{"a":4}\n{"a":5}\n' >"$FILES/fifo") &
run -f "$FILES/q.sql"
wait
if [ $rc -eq 0 ] && out_has "|                    2 |           9 |"; then
  pass "a FIFO with 'source.fifo.enabled' is read until its writer closes it"
else
  fail "a FIFO with 'source.fifo.enabled' is read until its writer closes it (rc=$rc)"
fi

# INSERT into a file: a failed job keeps the old file and says so
printf 'old,1\nold,2\n' >"$FILES/result.csv"
cp "$FILES/result.csv" "$FILES/result.before"
printf '{"a":1}\n{"a":"x"}\n' >"$FILES/bad.json"
cat >"$FILES/q.sql" <<EOF
CREATE TABLE src (a INT) WITH ('connector' = 'filesystem', 'path' = '$FILES/bad.json', 'format' = 'json');
CREATE TABLE dst (a INT) WITH ('connector' = 'filesystem', 'path' = '$FILES/result.csv', 'format' = 'csv');
INSERT INTO dst SELECT a FROM src;
EOF
run -f "$FILES/q.sql"
if [ $rc -eq 1 ] && cmp -s "$FILES/result.csv" "$FILES/result.before" &&
  err_has "'$FILES/result.csv' keeps its previous contents; the partial output was removed (1 rows)." &&
  [ -z "$(ls -A "$FILES" | grep inprogress)" ]; then
  pass "a failed INSERT keeps the old file and says so"
else
  fail "a failed INSERT keeps the old file and says so (rc=$rc)"
fi

# INSERT into a file, joinery killed with SIGKILL while it writes: the old file is intact
rm -f "$FILES/fifo"
mkfifo "$FILES/fifo"
cat >"$FILES/q.sql" <<EOF
CREATE TABLE src (a INT) WITH ('connector' = 'filesystem', 'path' = '$FILES/fifo', 'format' = 'json', 'source.fifo.enabled' = 'true');
CREATE TABLE dst (a INT) WITH ('connector' = 'filesystem', 'path' = '$FILES/result.csv', 'format' = 'csv');
INSERT INTO dst SELECT a FROM src;
EOF
"$JOINERY" -f "$FILES/q.sql" >"$WORK/out" 2>"$WORK/err" </dev/null &
pid=$!
exec 7<>"$FILES/fifo" # a writer that stays open (read-write: the open never waits)
timeout "$LIMIT" sh -c 'seq 1 300000 | sed "s/.*/{\"a\":&}/" >&7'

written=0
for _ in $(seq 1 $((LIMIT * 10))); do
  temporary=$(ls -A "$FILES" | grep '^\.result\.csv\.inprogress-' | head -n 1)
  if [ -n "$temporary" ] && [ -s "$FILES/$temporary" ]; then written=1; break; fi
  sleep 0.1
done
exec 8>&2 2>/dev/null # no "Killed" notice from the shell
kill -KILL $pid
wait $pid
exec 2>&8 8>&- 7>&-
if [ $written -eq 1 ] && cmp -s "$FILES/result.csv" "$FILES/result.before"; then
  pass "SIGKILL while INSERT writes leaves the old file intact"
else
  fail "SIGKILL while INSERT writes leaves the old file intact (temporary written: $written)"
fi
# the old file reads as before
printf "CREATE TABLE r (s STRING) WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'raw');\nSELECT COUNT(*) FROM r;\n" "$FILES/result.csv" >"$FILES/q.sql"
run -f "$FILES/q.sql"
if [ $rc -eq 0 ] && out_has "|                    2 |"; then
  pass "the old file reads as before after the kill"
else
  fail "the old file reads as before after the kill (rc=$rc)"
fi
rm -f "$WORK/out" "$WORK/err"

# SHOW JOB METRICS says where skipped records were: file and line of the first ones
cat >"$FILES/q.sql" <<EOF
CREATE TABLE q (id INT, name STRING) WITH ('connector' = 'filesystem', 'path' = '$ROOT/tests/sql/data/unterminated_quote.csv', 'format' = 'csv', 'csv.ignore-parse-errors' = 'true');
CREATE TABLE b (id INT, name STRING) WITH ('connector' = 'blackhole');
INSERT INTO b SELECT * FROM q;
SHOW JOB METRICS;
EOF
run -f "$FILES/q.sql"
if [ $rc -eq 0 ] && out_has "Job finished: 997 rows written to b." &&
  out_has "2 bad records skipped in q" &&
  out_has "unterminated_quote.csv:2: malformed CSV at byte 3: unterminated quoted field" &&
  out_has "unterminated_quote.csv:900: field 'id': not a valid INT: \"x\""; then
  pass "SHOW JOB METRICS lists the file and line of skipped records"
else
  fail "SHOW JOB METRICS lists the file and line of skipped records (rc=$rc)"
fi
rm -f "$WORK/out" "$WORK/err"

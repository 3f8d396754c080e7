#!/usr/bin/env bash
# Sourced by tests/cli/run.sh: runs tests/cli/jobs.sql in a temporary folder
# (its savepoints go to ./savepoints) and compares the output with jobs.out,
# the start times of SHOW JOBS / DESCRIBE JOB and the random digits of the
# savepoint folders masked; then checks the savepoint folder it printed has a
# _metadata, and that --no-wait cancels a background job at the end.
# Uses pass/fail/WORK/JOINERY/LIMIT of run.sh; nothing depends on speed (the
# background job of slow never ends by itself; the script's end waits for
# the bounded one).
jobs_mask() {
  sed -E -e 's/[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}/yyyy-mm-dd hh:mm:ss.sss/g' \
    -e 's/savepoint-([0-9a-f]{6})-[0-9a-f]{12}/savepoint-\1-<random>/g'
}
mkdir -p "$WORK/jobs"
(cd "$WORK/jobs" && timeout 60 "$JOINERY" --continue-on-error -f "$ROOT/tests/cli/jobs.sql" \
  >"$WORK/jobs/raw" 2>&1 </dev/null)
jobs_mask <"$WORK/jobs/raw" | sed "s|$ROOT/tests/cli/|tests/cli/|g" >"$WORK/jobs/out"
if diff -u "$ROOT/tests/cli/jobs.out" "$WORK/jobs/out" >"$WORK/jobs/diff"; then
  pass "jobs.sql: background jobs, SHOW JOBS, DESCRIBE JOB, STOP JOB as jobs.out"
else
  fail "jobs.sql differs from jobs.out: $(head -n 30 "$WORK/jobs/diff")"
fi
if ls "$WORK"/jobs/savepoints/savepoint-a00000-*/_metadata >/dev/null 2>&1; then
  pass "STOP JOB ... WITH SAVEPOINT wrote savepoints/savepoint-a00000-<random>/_metadata"
else
  fail "no savepoint folder with _metadata under $WORK/jobs/savepoints"
fi
# SHOW JOB METRICS of a running background job (its published figures) and of an ended one
printf "%s\n" "SET 'table.dml-sync' = 'false';" \
  "SET '\$internal.pipeline.job-id' = 'b0000000000000000000000000000001';" \
  "CREATE TABLE s (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '1');" \
  "CREATE TABLE b (id BIGINT) WITH ('connector' = 'blackhole');" \
  "INSERT INTO b SELECT id FROM s;" \
  "SHOW JOB METRICS 'b0000000000000000000000000000001';" \
  "STOP JOB 'b0000000000000000000000000000001';" \
  "SHOW JOB METRICS 'b0000000000000000000000000000001';" >"$WORK/jobs/metrics.sql"
timeout 30 "$JOINERY" -f "$WORK/jobs/metrics.sql" >"$WORK/jobs/metrics" 2>&1 </dev/null
if grep -qF "Job: insert-into_default_catalog.default_database.b (b0000000000000000000000000000001, RUNNING)" "$WORK/jobs/metrics" &&
  grep -q "^running: [0-9]* rows read, state " "$WORK/jobs/metrics" &&
  grep -qF "Job: insert-into_default_catalog.default_database.b (b0000000000000000000000000000001, CANCELED)" "$WORK/jobs/metrics" &&
  grep -q "TableSourceScan" "$WORK/jobs/metrics"; then
  pass "SHOW JOB METRICS '<id>' of a running and of a cancelled background job"
else
  fail "SHOW JOB METRICS '<id>': $(cat "$WORK/jobs/metrics")"
fi
printf "%s\n" "SET 'table.dml-sync' = 'false';" \
  "CREATE TABLE s (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '1');" \
  "CREATE TABLE b (id BIGINT) WITH ('connector' = 'blackhole');" \
  "INSERT INTO b SELECT id FROM s;" >"$WORK/jobs/forever.sql"
timeout 30 "$JOINERY" --no-wait -f "$WORK/jobs/forever.sql" >"$WORK/jobs/no-wait" 2>&1 </dev/null
rc=$?
if [ $rc -eq 0 ] && grep -qF "[INFO] Cancelling 1 running job." "$WORK/jobs/no-wait"; then
  pass "--no-wait cancels the background jobs at the end of the script"
else
  fail "--no-wait: exit $rc: $(tail -n 3 "$WORK/jobs/no-wait")"
fi

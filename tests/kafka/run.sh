#!/usr/bin/env bash
# End-to-end tests of the kafka and upsert-kafka connectors against
# build/kafka-mock (librdkafka's mock cluster on 127.0.0.1), with kcat as an
# independent client that produces the input and reads the output back.
#
# Usage: tests/kafka/run.sh [BUILD_DIR]   (default: build)
#
# Covered: the headers metadata column (kcat -H in, MAP<STRING, BYTES> out;
# written back with the timestamp from a sink's persisted metadata columns);
# bounded three-table join (sample data in partitioned topics) to a
# kafka topic; debezium-json changelog source joined and written to an
# upsert-kafka topic; an unbounded job stopped by SIGINT once its output is
# complete; seed 000's DDL verbatim (but the bootstrap address) and its
# query; faults injected through the mock (fetch and produce request
# errors, a broker down for a few seconds): nothing lost, nothing
# duplicated; bad records (malformed JSON, wrong type, missing field, too
# large) named by topic, partition and offset, and skipped with
# json.ignore-parse-errors; watermarks per partition, and an idle table
# that holds a join's watermark back until table.exec.source.idle-timeout
# marks it idle (CURRENT_WATERMARK after the join; SHOW JOB METRICS shows
# each operator's watermark); an event-time temporal join against an
# upsert-kafka versioned table, and a tombstone there failing the job with its
# hint. Every wait has a timeout and checks for a
# result, never for a duration; only 127.0.0.1 is used. Prints
# "N passed, N failed" and exits non-zero when anything failed.
set -u

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-build}
case "$BUILD" in /*) ;; *) BUILD="$ROOT/$BUILD" ;; esac
JOINERY="$BUILD/joinery"
MOCK="$BUILD/kafka-mock"
DATA="$ROOT/tests/kafka/kafka_data.py"
SAMPLE="$ROOT/sample-data"
passed=0
failed=0
skipped=0

pass() { passed=$((passed + 1)); echo "ok   $1"; }
fail() {
  failed=$((failed + 1)); echo "FAIL $1"
  [ -n "${DETAIL:-}" ] && [ -f "$DETAIL" ] && sed 's/^/  | /' "$DETAIL" | head -30
  DETAIL=
}
skip() { skipped=$((skipped + 1)); echo "skip $1 ($2)"; }

for tool in "$JOINERY" "$MOCK"; do
  if [ ! -x "$tool" ]; then
    echo "tests/kafka: $tool not found (run make first)"
    echo "0 passed, 1 failed"
    exit 1
  fi
done
if ! command -v kcat >/dev/null || ! command -v python3 >/dev/null; then
  echo "tests/kafka: kcat and python3 are needed"
  echo "0 passed, 1 failed"
  exit 1
fi

WORK=$(mktemp -d)
MOCK_PID=
JOB_PID=
cleanup() {
  [ -n "$JOB_PID" ] && kill "$JOB_PID" 2>/dev/null
  [ -n "$MOCK_PID" ] && kill "$MOCK_PID" 2>/dev/null && wait "$MOCK_PID" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT
export HOME="$WORK/home"
mkdir -p "$HOME"

# wait_for SECONDS COMMAND...: retries COMMAND every 0.2 s until it succeeds or time is up
wait_for() {
  local limit=$(($1 * 5)); shift
  for _ in $(seq "$limit"); do
    "$@" && return 0
    sleep 0.2
  done
  return 1
}

# ---------------------------------------------------------------- the cluster
CONTROL="$WORK/control"
"$MOCK" --brokers 3 --control "$CONTROL" \
  --topic orders:4 --topic users:3 --topic products:2 --topic users_cdc:3 \
  --topic joined:3 --topic cdc_joined:3 --topic live_orders:4 --topic live_out:2 --topic live_out_p2:2 \
  --topic faults_fetch:3 --topic faults_produce:3 --topic faults_down:3 --topic seed_orders:4 --topic seed_users:3 --topic seed_products:2 \
  --topic bad_json:1 --topic bad_type:1 --topic bad_missing:1 --topic bad_large:1 \
  --topic wm_held:2 --topic wm_idle:2 --topic hdrs:1 --topic hdrs_out:1 \
  --topic wmj_held_a:1 --topic wmj_held_b:2 --topic wmj_idle_a:1 --topic wmj_idle_b:2 \
  --topic wmj_p2_a:1 --topic wmj_p2_b:2 --topic wmj_show_a:1 --topic wmj_show_b:2 \
  --topic tj_orders:2 --topic tj_rates:2 --topic tj_rates_deleted:2 --topic uj_users:2 --topic uj_orders:2 \
  >"$WORK/mock.out" 2>"$WORK/mock.err" &
MOCK_PID=$!
mock_ready() { [ -s "$WORK/mock.out" ]; }
if ! wait_for 20 mock_ready; then
  echo "FAIL kafka-mock did not start"; cat "$WORK/mock.err"
  echo "0 passed, 1 failed"; exit 1
fi
BOOTSTRAP=$(head -n 1 "$WORK/mock.out")
case "$BOOTSTRAP" in
  127.0.0.1:*) pass "kafka-mock prints its bootstrap servers on 127.0.0.1 ($BOOTSTRAP)" ;;
  *) fail "kafka-mock bootstrap '$BOOTSTRAP' is not on 127.0.0.1" ;;
esac

# control COMMAND: sends a fault-injection command and waits for its acknowledgement
control() {
  local before
  before=$(grep -c "^ok \|^error " "$WORK/mock.out")
  echo "$*" >"$CONTROL"
  acknowledged() { [ "$(grep -c "^ok \|^error " "$WORK/mock.out")" -gt "$before" ]; }
  wait_for 10 acknowledged && grep -q "^ok $*\$" "$WORK/mock.out"
}

# produce TOPIC FILE: 'key<TAB>value' lines into TOPIC (keys spread records over partitions)
produce() {
  timeout 60 kcat -P -b "$BOOTSTRAP" -t "$1" -K $'\t' -l "$2" 2>>"$WORK/kcat.err"
}
# consume TOPIC [FORMAT]: every record of TOPIC up to its current end
consume() {
  timeout 60 kcat -C -b "$BOOTSTRAP" -t "$1" -e -q -Z -f "${2:-%s\n}" 2>>"$WORK/kcat.err"
}
# topic_count TOPIC: number of records in TOPIC
topic_count() { consume "$1" | wc -l; }

# run_joinery NAME SCRIPT [ARGS...]: runs a script to its end (60 s at most)
run_joinery() {
  local name=$1 script=$2; shift 2
  timeout 60 "$JOINERY" "$@" -f "$script" >"$WORK/$name.out" 2>"$WORK/$name.err"
}

python3 "$DATA" keyed "$SAMPLE/orders.json" order_id >"$WORK/orders.keyed"
python3 "$DATA" keyed "$SAMPLE/users.json" user_id >"$WORK/users.keyed"
python3 "$DATA" keyed "$SAMPLE/products.json" product_id >"$WORK/products.keyed"
python3 "$DATA" cdc-events "$SAMPLE" >"$WORK/users_cdc.keyed"
if produce orders "$WORK/orders.keyed" && produce users "$WORK/users.keyed" &&
  produce products "$WORK/products.keyed" && produce users_cdc "$WORK/users_cdc.keyed" &&
  [ "$(topic_count orders)" -eq 3000 ] && [ "$(topic_count users_cdc)" -eq "$(wc -l <"$WORK/users_cdc.keyed")" ]; then
  pass "kcat produced the sample data and debezium events into partitioned topics"
else
  DETAIL="$WORK/kcat.err" fail "kcat could not produce the input"
fi

# tables WITH clause for a topic: json, from the start, bounded at the end
bounded() {
  echo "'connector' = 'kafka', 'topic' = '$1', 'properties.bootstrap.servers' = '$BOOTSTRAP',
  'format' = '${2:-json}', 'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset'"
}

# ---------------------------------------------------------------- bounded join to a topic
cat >"$WORK/join.sql" <<EOF
CREATE TABLE orders (order_id BIGINT, user_id BIGINT, product_id BIGINT, amount DECIMAL(10, 2))
WITH ($(bounded orders));
CREATE TABLE users (user_id BIGINT, user_name STRING, region_id BIGINT) WITH ($(bounded users));
CREATE TABLE products (product_id BIGINT, product_name STRING, category STRING)
WITH ($(bounded products));
CREATE TABLE joined (order_id BIGINT, user_name STRING, product_name STRING, amount DECIMAL(10, 2))
WITH ('connector' = 'kafka', 'topic' = 'joined', 'properties.bootstrap.servers' = '$BOOTSTRAP',
      'format' = 'json', 'key.format' = 'json', 'key.fields' = 'order_id');
INSERT INTO joined
SELECT o.order_id, u.user_name, p.product_name, o.amount
FROM orders AS o JOIN users AS u ON o.user_id = u.user_id
JOIN products AS p ON o.product_id = p.product_id WHERE o.amount > 1000;
EOF
python3 "$DATA" join-expected "$SAMPLE" 1000 >"$WORK/join.expected"
if run_joinery join "$WORK/join.sql" && consume joined >"$WORK/join.raw" &&
  python3 "$DATA" sorted-values "$WORK/join.raw" >"$WORK/join.actual" &&
  diff "$WORK/join.expected" "$WORK/join.actual" >"$WORK/join.diff"; then
  pass "bounded three-table join of partitioned topics to a kafka topic ($(wc -l <"$WORK/join.expected") records, exact)"
else
  cat "$WORK/join.err" "$WORK/join.diff" >"$WORK/detail" 2>/dev/null
  DETAIL="$WORK/detail" fail "bounded join to a kafka topic"
fi
# the keys were written from key.fields
if consume joined '%k\n' | head -n 1 | grep -q '^{"order_id":[0-9]*}$'; then
  pass "record keys from 'key.format' + 'key.fields'"
else
  fail "record keys from 'key.format' + 'key.fields'"
fi

# ---------------------------------------------------------------- debezium-json source
cat >"$WORK/cdc.sql" <<EOF
CREATE TABLE users_cdc (user_id BIGINT, user_name STRING, region_id BIGINT) WITH ($(bounded users_cdc debezium-json));
SELECT * FROM users_cdc;
EOF
python3 "$DATA" cdc-expected "$SAMPLE" >"$WORK/cdc.expected"
if run_joinery cdc "$WORK/cdc.sql" --output csv &&
  python3 "$DATA" materialize-csv "$WORK/cdc.out" >"$WORK/cdc.actual" &&
  diff "$WORK/cdc.expected" "$WORK/cdc.actual" >"$WORK/cdc.diff" &&
  grep -q '^-U,' "$WORK/cdc.out" && grep -q '^-D,' "$WORK/cdc.out"; then
  pass "debezium-json topic read as a changelog (+I, -U/+U, -D; final state exact)"
else
  cat "$WORK/cdc.err" "$WORK/cdc.diff" >"$WORK/detail" 2>/dev/null
  DETAIL="$WORK/detail" fail "debezium-json changelog source"
fi

# ---------------------------------------------------------------- changelog join to upsert-kafka
cat >"$WORK/cdc_join.sql" <<EOF
CREATE TABLE orders (order_id BIGINT, user_id BIGINT, product_id BIGINT, amount DECIMAL(10, 2))
WITH ($(bounded orders));
CREATE TABLE users_cdc (user_id BIGINT, user_name STRING, region_id BIGINT) WITH ($(bounded users_cdc debezium-json));
CREATE TABLE cdc_joined (order_id BIGINT, user_name STRING, amount DECIMAL(10, 2),
  PRIMARY KEY (order_id) NOT ENFORCED)
WITH ('connector' = 'upsert-kafka', 'topic' = 'cdc_joined', 'properties.bootstrap.servers' = '$BOOTSTRAP',
      'key.format' = 'json', 'value.format' = 'csv', 'value.fields-include' = 'EXCEPT_KEY');
INSERT INTO cdc_joined
SELECT o.order_id, u.user_name, o.amount FROM orders AS o JOIN users_cdc AS u ON o.user_id = u.user_id
WHERE o.amount > 1000;
EOF
python3 "$DATA" cdc-join-expected "$SAMPLE" 1000 >"$WORK/cdc_join.expected"
materialized_cdc_join() {
  consume cdc_joined '%k\t%s\n' >"$WORK/cdc_join.raw" &&
    python3 "$DATA" materialize-upsert "$WORK/cdc_join.raw" |
    sed -E 's/^\{"order_id":([0-9]+)\}\t/\1,/' | sort
}
if run_joinery cdc_join "$WORK/cdc_join.sql" && materialized_cdc_join >"$WORK/cdc_join.actual" &&
  diff "$WORK/cdc_join.expected" "$WORK/cdc_join.actual" >"$WORK/cdc_join.diff" &&
  grep -q $'\tNULL$' "$WORK/cdc_join.raw"; then
  pass "changelog join written to upsert-kafka (tombstones for deletes; compacted state exact)"
else
  cat "$WORK/cdc_join.err" "$WORK/cdc_join.diff" >"$WORK/detail" 2>/dev/null
  DETAIL="$WORK/detail" fail "changelog join to upsert-kafka"
fi

# an updating result into a plain kafka sink is refused with a hint
cat >"$WORK/refuse.sql" <<EOF
CREATE TABLE orders (order_id BIGINT, user_id BIGINT, product_id BIGINT, amount DECIMAL(10, 2))
WITH ($(bounded orders));
CREATE TABLE counts (user_id BIGINT, n BIGINT)
WITH ('connector' = 'kafka', 'topic' = 'counts', 'properties.bootstrap.servers' = '$BOOTSTRAP', 'format' = 'json');
INSERT INTO counts SELECT user_id, COUNT(*) FROM orders GROUP BY user_id;
EOF
run_joinery refuse "$WORK/refuse.sql"
if [ $? -ne 0 ] && grep -q "upsert-kafka" "$WORK/refuse.err"; then
  pass "an updating result into a kafka sink is refused, suggesting upsert-kafka"
else
  DETAIL="$WORK/refuse.err" fail "updating result into a kafka sink"
fi

# an updating result into a kafka sink with a changelog value format: one
# debezium-json event per change; kcat reads them back and they are replayed
cat >"$WORK/cdc_sink.sql" <<EOF
CREATE TABLE orders (order_id BIGINT, user_id BIGINT, product_id BIGINT, amount DECIMAL(10, 2))
WITH ($(bounded orders));
CREATE TABLE counts (user_id BIGINT, n BIGINT)
WITH ('connector' = 'kafka', 'topic' = 'counts_cdc', 'properties.bootstrap.servers' = '$BOOTSTRAP',
      'format' = 'debezium-json');
INSERT INTO counts SELECT user_id, COUNT(*) FROM orders GROUP BY user_id;
EOF
python3 "$DATA" user-counts-expected "$SAMPLE" >"$WORK/cdc_sink.expected"
if run_joinery cdc_sink "$WORK/cdc_sink.sql" && consume counts_cdc >"$WORK/cdc_sink.raw" &&
  python3 "$DATA" materialize-debezium "$WORK/cdc_sink.raw" >"$WORK/cdc_sink.actual" &&
  diff "$WORK/cdc_sink.expected" "$WORK/cdc_sink.actual" >"$WORK/cdc_sink.diff" &&
  grep -q '"op":"d"' "$WORK/cdc_sink.raw"; then
  pass "an updating result into a kafka sink with 'debezium-json' (replayed events equal the counts)"
else
  cat "$WORK/cdc_sink.err" "$WORK/cdc_sink.diff" >"$WORK/detail" 2>/dev/null
  DETAIL="$WORK/detail" fail "updating result into a debezium-json kafka sink"
fi

# ---------------------------------------------------------------- unbounded, stopped by SIGINT
head -n 1500 "$WORK/orders.keyed" >"$WORK/live1.keyed"
tail -n +1501 "$WORK/orders.keyed" >"$WORK/live2.keyed"
produce live_orders "$WORK/live1.keyed"
cat >"$WORK/live.sql" <<EOF
CREATE TABLE live_orders (order_id BIGINT, user_id BIGINT, product_id BIGINT, amount DECIMAL(10, 2))
WITH ('connector' = 'kafka', 'topic' = 'live_orders', 'properties.bootstrap.servers' = '$BOOTSTRAP',
      'properties.group.id' = 'live', 'format' = 'json', 'scan.startup.mode' = 'earliest-offset');
CREATE TABLE users (user_id BIGINT, user_name STRING, region_id BIGINT) WITH ($(bounded users));
CREATE TABLE products (product_id BIGINT, product_name STRING, category STRING)
WITH ($(bounded products));
CREATE TABLE live_out (order_id BIGINT, user_name STRING, product_name STRING, amount DECIMAL(10, 2))
WITH ('connector' = 'kafka', 'topic' = 'live_out', 'properties.bootstrap.servers' = '$BOOTSTRAP',
      'format' = 'json', 'sink.partitioner' = 'round-robin');
INSERT INTO live_out
SELECT o.order_id, u.user_name, p.product_name, o.amount
FROM live_orders AS o JOIN users AS u ON o.user_id = u.user_id
JOIN products AS p ON o.product_id = p.product_id WHERE o.amount > 1000;
EOF
total=$(wc -l <"$WORK/join.expected")
mkdir -p "$WORK/half" && head -n 1500 "$SAMPLE/orders.json" >"$WORK/half/orders.json" &&
  cp "$SAMPLE/users.json" "$SAMPLE/products.json" "$WORK/half/"
half=$(python3 "$DATA" join-expected "$WORK/half" 1000 | wc -l)
timeout 120 "$JOINERY" -f "$WORK/live.sql" >"$WORK/live.out" 2>"$WORK/live.err" &
JOB_PID=$!
live_has() { [ "$(topic_count live_out)" -ge "$1" ]; }
live_ok=0
if wait_for 60 live_has "$half"; then
  produce live_orders "$WORK/live2.keyed"
  if wait_for 60 live_has "$total"; then live_ok=1; fi
fi
kill -INT "$JOB_PID" 2>/dev/null
wait_for 20 eval '! kill -0 '"$JOB_PID"' 2>/dev/null'
kill -0 "$JOB_PID" 2>/dev/null && kill -KILL "$JOB_PID" 2>/dev/null
wait "$JOB_PID" 2>/dev/null
job_status=$?
JOB_PID=
consume live_out >"$WORK/live.raw"
python3 "$DATA" sorted-values "$WORK/live.raw" >"$WORK/live.actual"
if [ $live_ok -eq 1 ] && diff "$WORK/join.expected" "$WORK/live.actual" >"$WORK/live.diff"; then
  pass "unbounded join: input arriving while it runs, stopped by SIGINT (exit $job_status), output exact"
else
  cat "$WORK/live.err" "$WORK/live.diff" >"$WORK/detail" 2>/dev/null
  DETAIL="$WORK/detail" fail "unbounded job stopped by SIGINT"
fi
if [ "$(consume live_out '%p\n' | sort -u | wc -l)" -eq 2 ]; then
  pass "sink.partitioner round-robin writes every partition"
else
  fail "sink.partitioner round-robin"
fi

# ---------------------------------------------------------------- offsets committed on Ctrl-C
# the live job above (group 'live', one thread) was stopped by SIGINT: a clean stop, so the
# positions it read are in the group; reading from group offsets sees only newer records
printf '9001\t{"order_id":9001,"user_id":1,"product_id":1,"amount":1.00}\n9002\t{"order_id":9002,"user_id":1,"product_id":1,"amount":2.00}\n' >"$WORK/resume.keyed"
produce live_orders "$WORK/resume.keyed"
cat >"$WORK/resume.sql" <<EOF
CREATE TABLE live_orders (order_id BIGINT, user_id BIGINT, product_id BIGINT, amount DECIMAL(10, 2))
WITH ('connector' = 'kafka', 'topic' = 'live_orders', 'properties.bootstrap.servers' = '$BOOTSTRAP',
      'properties.group.id' = 'live', 'format' = 'json', 'scan.startup.mode' = 'group-offsets',
      'scan.bounded.mode' = 'latest-offset');
SELECT order_id FROM live_orders;
EOF
if run_joinery resume "$WORK/resume.sql" --output csv &&
  [ "$(grep -c '^+I,' "$WORK/resume.out")" -eq 2 ] && grep -q '^+I,9001$' "$WORK/resume.out" &&
  grep -q '^+I,9002$' "$WORK/resume.out"; then
  pass "offsets read before Ctrl-C are committed: group-offsets resumes after them"
else
  cat "$WORK/resume.out" "$WORK/resume.err" >"$WORK/detail" 2>/dev/null
  DETAIL="$WORK/detail" fail "offsets committed on Ctrl-C"
fi

# the same at parallelism 2: on Ctrl-C the sources stop reading, what they read drains
# through the threads' mailboxes to the sink, and only then are the positions committed
cat >"$WORK/live_p2.sql" <<EOF
SET 'parallelism.default' = '2';
CREATE TABLE live_orders (order_id BIGINT, user_id BIGINT, product_id BIGINT, amount DECIMAL(10, 2))
WITH ('connector' = 'kafka', 'topic' = 'live_orders', 'properties.bootstrap.servers' = '$BOOTSTRAP',
      'properties.group.id' = 'live_p2', 'format' = 'json', 'scan.startup.mode' = 'earliest-offset');
CREATE TABLE users (user_id BIGINT, user_name STRING, region_id BIGINT) WITH ($(bounded users));
CREATE TABLE live_out_p2 (order_id BIGINT, user_name STRING, amount DECIMAL(10, 2))
WITH ('connector' = 'kafka', 'topic' = 'live_out_p2', 'properties.bootstrap.servers' = '$BOOTSTRAP',
      'format' = 'json');
INSERT INTO live_out_p2
SELECT o.order_id, u.user_name, o.amount FROM live_orders AS o JOIN users AS u ON o.user_id = u.user_id;
EOF
live_total=$(topic_count live_orders)
timeout 120 "$JOINERY" -f "$WORK/live_p2.sql" >"$WORK/live_p2.out" 2>"$WORK/live_p2.err" &
JOB_PID=$!
p2_has() { [ "$(topic_count live_out_p2)" -ge "$1" ]; }
p2_expected=$(python3 "$DATA" join-count "$SAMPLE" "$WORK/resume.keyed")
wait_for 60 p2_has "$p2_expected"
kill -INT "$JOB_PID" 2>/dev/null
wait_for 20 eval '! kill -0 '"$JOB_PID"' 2>/dev/null'
kill -0 "$JOB_PID" 2>/dev/null && kill -KILL "$JOB_PID" 2>/dev/null
wait "$JOB_PID" 2>/dev/null
JOB_PID=
printf '9003\t{"order_id":9003,"user_id":2,"product_id":1,"amount":3.00}\n' >"$WORK/resume_p2.keyed"
produce live_orders "$WORK/resume_p2.keyed"
sed -e "s/'live'/'live_p2'/" "$WORK/resume.sql" >"$WORK/resume_p2.sql"
if [ "$(topic_count live_out_p2)" -eq "$p2_expected" ] &&
  run_joinery resume_p2 "$WORK/resume_p2.sql" --output csv &&
  [ "$(grep -c '^+I,' "$WORK/resume_p2.out")" -eq 1 ] && grep -q '^+I,9003$' "$WORK/resume_p2.out"; then
  pass "parallelism 2: Ctrl-C drains the pipeline, then commits: group-offsets resumes after the $live_total records read"
else
  cat "$WORK/live_p2.err" "$WORK/resume_p2.out" "$WORK/resume_p2.err" >"$WORK/detail" 2>/dev/null
  DETAIL="$WORK/detail" fail "offsets committed on Ctrl-C at parallelism 2"
fi

# Ctrl-C of a parallel job writing files: the drained rows are written (the part file is
# renamed into place) before the offsets are committed, so the file and a resumed read
# together hold every record exactly once, wherever the Ctrl-C fell
mkdir -p "$WORK/fs_drain"
cat >"$WORK/fs_drain.sql" <<EOF
SET 'parallelism.default' = '2';
CREATE TABLE live_orders (order_id BIGINT, user_id BIGINT, product_id BIGINT, amount DECIMAL(10, 2))
WITH ('connector' = 'kafka', 'topic' = 'live_orders', 'properties.bootstrap.servers' = '$BOOTSTRAP',
      'properties.group.id' = 'live_fs', 'format' = 'json', 'scan.startup.mode' = 'earliest-offset');
CREATE TABLE ids (order_id BIGINT) WITH ('connector' = 'filesystem', 'path' = '$WORK/fs_drain/', 'format' = 'csv');
INSERT INTO ids SELECT order_id FROM live_orders;
EOF
timeout 120 "$JOINERY" -f "$WORK/fs_drain.sql" >"$WORK/fs_drain.out" 2>"$WORK/fs_drain.err" &
JOB_PID=$!
sleep 2
kill -INT "$JOB_PID" 2>/dev/null
wait_for 20 eval '! kill -0 '"$JOB_PID"' 2>/dev/null'
kill -0 "$JOB_PID" 2>/dev/null && kill -KILL "$JOB_PID" 2>/dev/null
wait "$JOB_PID" 2>/dev/null
JOB_PID=
sed -e "s/'live'/'live_fs'/" "$WORK/resume.sql" >"$WORK/fs_resume.sql"
cat "$WORK/fs_drain/"* 2>/dev/null | sort -n >"$WORK/fs_drain.ids"
if run_joinery fs_resume "$WORK/fs_resume.sql" --output csv; then
  sed -n 's/^+I,//p' "$WORK/fs_resume.out" >>"$WORK/fs_drain.ids"
fi
consume live_orders | python3 -c 'import json, sys; [print(json.loads(l)["order_id"]) for l in sys.stdin if l.strip()]' |
  sort -n >"$WORK/fs_drain.expected"
written=$(cat "$WORK/fs_drain/"* 2>/dev/null | wc -l)
if [ "$written" -gt 0 ] && sort -n "$WORK/fs_drain.ids" | diff "$WORK/fs_drain.expected" - >"$WORK/fs_drain.diff"; then
  pass "parallelism 2, Ctrl-C into a file sink: $written rows in the file, the rest after the committed offsets, none lost or twice"
else
  cat "$WORK/fs_drain.err" "$WORK/fs_drain.diff" "$WORK/fs_resume.err" >"$WORK/detail" 2>/dev/null
  DETAIL="$WORK/detail" fail "Ctrl-C of a parallel job writing files (written: $written)"
fi

# ---------------------------------------------------------------- seed 000 verbatim
seed_ddl() {
  sed -n '/^CREATE TABLE orders/,/^);$/p;/^CREATE TABLE users/,/^);$/p;/^CREATE TABLE products/,/^);$/p' \
    "$ROOT/tests/sql/seed000.sql" >/dev/null
  # The article's DDL (seed 000, section 3.2), verbatim but for the bootstrap address and topics
  # prefixed 'seed_' so that this test has its own data.
  cat <<EOF
CREATE TABLE orders ( order_id BIGINT, user_id BIGINT, product_id BIGINT, amount DECIMAL(10, 2), order_time TIMESTAMP(3), WATERMARK FOR order_time AS order_time - INTERVAL '5' SECONDS, PRIMARY KEY (order_id) NOT ENFORCED ) WITH ( 'connector' = 'kafka', 'topic' = 'seed_orders', 'properties.bootstrap.servers' = '$BOOTSTRAP', 'properties.group.id' = 'flink-demo', 'format' = 'json', 'scan.startup.mode' = 'earliest-offset' ); CREATE TABLE users ( user_id BIGINT, user_name STRING, region_id BIGINT, PRIMARY KEY (user_id) NOT ENFORCED ) WITH ( 'connector' = 'kafka', 'topic' = 'seed_users', 'properties.bootstrap.servers' = '$BOOTSTRAP', 'format' = 'json', 'scan.startup.mode' = 'earliest-offset' ); CREATE TABLE products ( product_id BIGINT, product_name STRING, category STRING, PRIMARY KEY (product_id) NOT ENFORCED ) WITH ( 'connector' = 'kafka', 'topic' = 'seed_products', 'properties.bootstrap.servers' = '$BOOTSTRAP', 'format' = 'json', 'scan.startup.mode' = 'earliest-offset' );
EOF
}
produce seed_orders "$WORK/orders.keyed" && produce seed_users "$WORK/users.keyed" &&
  produce seed_products "$WORK/products.keyed"
{
  echo "SET 'table.exec.state.ttl' = '1 h';"
  seed_ddl
  echo "SELECT o.order_id, u.user_name, p.product_name, p.category, o.amount FROM orders AS o LEFT JOIN users AS u ON o.user_id = u.user_id LEFT JOIN products AS p ON o.product_id = p.product_id WHERE o.amount > 10 AND p.category = 'electronics';"
} >"$WORK/seed.sql"
python3 "$DATA" seed-expected "$ROOT/tests/sql/seed000.out" >"$WORK/seed.expected"
timeout 120 "$JOINERY" --output csv -f "$WORK/seed.sql" >"$WORK/seed.out" 2>"$WORK/seed.err" &
JOB_PID=$!
seed_complete() {
  python3 "$DATA" materialize-csv "$WORK/seed.out" >"$WORK/seed.actual" 2>/dev/null &&
    cmp -s "$WORK/seed.expected" "$WORK/seed.actual"
}
seed_ok=0
wait_for 60 seed_complete && seed_ok=1
kill -INT "$JOB_PID" 2>/dev/null
wait_for 20 eval '! kill -0 '"$JOB_PID"' 2>/dev/null'
kill -0 "$JOB_PID" 2>/dev/null && kill -KILL "$JOB_PID" 2>/dev/null
wait "$JOB_PID" 2>/dev/null
JOB_PID=
if [ $seed_ok -eq 1 ] && seed_complete; then
  pass "seed 000 DDL verbatim over Kafka, its LEFT JOIN query: $(wc -l <"$WORK/seed.expected") rows, exact"
else
  diff "$WORK/seed.expected" "$WORK/seed.actual" | head -20 >"$WORK/seed.diff"
  cat "$WORK/seed.err" "$WORK/seed.diff" >"$WORK/detail" 2>/dev/null
  DETAIL="$WORK/detail" fail "seed 000 over Kafka"
fi

# ---------------------------------------------------------------- faults
faults_script() { # OUTPUT_TOPIC
  cat <<EOF
CREATE TABLE orders (order_id BIGINT, user_id BIGINT, product_id BIGINT, amount DECIMAL(10, 2))
WITH ($(bounded orders));
CREATE TABLE users (user_id BIGINT, user_name STRING, region_id BIGINT) WITH ($(bounded users));
CREATE TABLE products (product_id BIGINT, product_name STRING, category STRING)
WITH ($(bounded products));
CREATE TABLE faults_out (order_id BIGINT, user_name STRING, product_name STRING, amount DECIMAL(10, 2))
WITH ('connector' = 'kafka', 'topic' = '$1', 'properties.bootstrap.servers' = '$BOOTSTRAP',
      'format' = 'json');
INSERT INTO faults_out
SELECT o.order_id, u.user_name, p.product_name, o.amount
FROM orders AS o JOIN users AS u ON o.user_id = u.user_id
JOIN products AS p ON o.product_id = p.product_id WHERE o.amount > 1000;
EOF
}
faults_script faults_fetch >"$WORK/fetch_errors.sql"
faults_script faults_produce >"$WORK/produce_errors.sql"
faults_script faults_down >"$WORK/broker_down.sql"
# check_faults NAME TOPIC: the records of TOPIC equal the expected join output (as a multiset)
check_faults() {
  consume "$2" >"$WORK/$1.raw"
  python3 "$DATA" sorted-values "$WORK/$1.raw" >"$WORK/$1.actual"
  diff "$WORK/join.expected" "$WORK/$1.actual" >"$WORK/$1.diff"
}
if control fail fetch 25 && run_joinery fetch_errors "$WORK/fetch_errors.sql" &&
  check_faults fetch_errors faults_fetch; then
  pass "25 fetch request errors: the job carries on, output exact (nothing lost or duplicated)"
else
  cat "$WORK/fetch_errors.err" "$WORK/fetch_errors.diff" >"$WORK/detail" 2>/dev/null
  DETAIL="$WORK/detail" fail "fetch request errors"
fi
if control fail produce 10 && run_joinery produce_errors "$WORK/produce_errors.sql" &&
  check_faults produce_errors faults_produce; then
  pass "10 produce request errors: retried by the idempotent producer, output exact"
else
  cat "$WORK/produce_errors.err" "$WORK/produce_errors.diff" >"$WORK/detail" 2>/dev/null
  DETAIL="$WORK/detail" fail "produce request errors"
fi
# broker 2 down while the job starts and runs, back after a few seconds
control down 2
timeout 120 "$JOINERY" -f "$WORK/broker_down.sql" >"$WORK/broker_down.out" 2>"$WORK/broker_down.err" &
JOB_PID=$!
sleep 3
control up 2
broker_status=1
if wait_for 100 eval '! kill -0 '"$JOB_PID"' 2>/dev/null'; then
  wait "$JOB_PID"; broker_status=$?
else
  kill -KILL "$JOB_PID" 2>/dev/null
fi
JOB_PID=
if [ $broker_status -eq 0 ] && check_faults broker_down faults_down; then
  pass "a broker down for a few seconds and back: the job waits and finishes, output exact"
else
  cat "$WORK/broker_down.err" "$WORK/broker_down.diff" >"$WORK/detail" 2>/dev/null
  DETAIL="$WORK/detail" fail "broker down and back"
fi

# ---------------------------------------------------------------- exactly-once sink
# without checkpoints: the run is one transaction, committed at the end of the bounded
# input (KAFKA.md "Exactly-once"); the output is the join's, once; without a
# transactional-id prefix the table is refused with Flink's message
faults_script faults_eos | sed -e "s/'format' = 'json');/'format' = 'json', 'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = 'run-eos');/" >"$WORK/eos.sql"
echo "SHOW JOB METRICS;" >>"$WORK/eos.sql"
cat >>"$WORK/eos.sql" <<EOF
CREATE TABLE eos_refused (order_id BIGINT) WITH ('connector' = 'kafka', 'topic' = 'faults_eos',
  'properties.bootstrap.servers' = '$BOOTSTRAP', 'format' = 'json', 'sink.delivery-guarantee' = 'exactly-once');
EOF
run_joinery eos "$WORK/eos.sql" --continue-on-error # exits 1: the refused table
if grep -q "Job finished: [0-9]* rows written to faults_out" "$WORK/eos.out" && check_faults eos faults_eos &&
  grep -q "Kafka transactions of faults_out: 1 begun, 1 committed, 0 aborted, 0 open" "$WORK/eos.out" &&
  grep -q "sink.transactional-id-prefix must be specified when using DeliveryGuarantee.EXACTLY_ONCE." "$WORK/eos.out" "$WORK/eos.err"; then
  pass "exactly-once kafka sink without checkpoints: one transaction committed at the end, output exact; refused without a transactional-id prefix"
else
  cat "$WORK/eos.out" "$WORK/eos.err" "$WORK/eos.diff" >"$WORK/detail" 2>/dev/null
  DETAIL="$WORK/detail" fail "exactly-once kafka sink without checkpoints"
fi

# ---------------------------------------------------------------- bad records
good() { echo "$1"$'\t''{"order_id":'"$1"',"user_id":1,"amount":1.50}'; }
{ good 1; echo $'2\t{"order_id":2,"user_id":'; good 3; } >"$WORK/bad_json.keyed"
{ good 1; echo $'2\t{"order_id":"two","user_id":1,"amount":1.50}'; good 3; } >"$WORK/bad_type.keyed"
{ good 1; echo $'2\t{"order_id":2,"amount":1.50}'; good 3; } >"$WORK/bad_missing.keyed"
{ good 1; printf '2\t{"order_id":2,"user_id":1,"amount":1.50,"note":"%s"}\n' "$(head -c 3000 /dev/zero | tr '\0' x)"; good 3; } >"$WORK/bad_large.keyed"
for topic in bad_json bad_type bad_missing bad_large; do produce "$topic" "$WORK/$topic.keyed"; done
bad_table() { # NAME TOPIC EXTRA_OPTIONS
  cat <<EOF
CREATE TABLE $1 (order_id BIGINT, user_id BIGINT, amount DECIMAL(10, 2))
WITH ($(bounded "$2"), 'properties.message.max.bytes' = '2000'$3);
SELECT * FROM $1;
EOF
}
for case in "bad_json:malformed JSON" "bad_type:field 'order_id'" "bad_missing:field 'user_id': missing" "bad_large:more than the 2000"; do
  topic=${case%%:*}
  reason=${case#*:}
  extra=""
  [ "$topic" = bad_missing ] && extra=", 'json.fail-on-missing-field' = 'true'"
  bad_table "t_$topic" "$topic" "$extra" >"$WORK/$topic.sql"
  run_joinery "$topic" "$WORK/$topic.sql"
  status=$?
  if [ $status -ne 0 ] && grep -q "topic '$topic', partition 0, offset 1" "$WORK/$topic.err" &&
    grep -qF "$reason" "$WORK/$topic.err"; then
    pass "bad record ($reason) fails the job naming topic, partition and offset"
  else
    DETAIL="$WORK/$topic.err" fail "bad record in $topic"
  fi
done
cat >"$WORK/skip.sql" <<EOF
CREATE TABLE skipping (order_id BIGINT, user_id BIGINT, amount DECIMAL(10, 2))
WITH ('connector' = 'kafka', 'topic' = 'bad_json;bad_type;bad_large',
      'properties.bootstrap.servers' = '$BOOTSTRAP', 'format' = 'json',
      'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset',
      'properties.message.max.bytes' = '2000', 'json.ignore-parse-errors' = 'true');
SELECT * FROM skipping;
SHOW JOB METRICS;
EOF
if run_joinery skip "$WORK/skip.sql" --output csv &&
  [ "$(grep -c '^+I,' "$WORK/skip.out")" -eq 6 ] && ! grep -q '^+I,2,' "$WORK/skip.out"; then
  pass "json.ignore-parse-errors skips the 3 bad records of 3 topics, keeps the 6 good ones"
else
  cat "$WORK/skip.out" "$WORK/skip.err" >"$WORK/detail" 2>/dev/null
  DETAIL="$WORK/detail" fail "json.ignore-parse-errors"
fi
if grep -q "topic 'bad_json', partition 0, offset 1: malformed JSON" "$WORK/skip.out" &&
  grep -q "topic 'bad_type', partition 0, offset 1: field 'order_id'" "$WORK/skip.out"; then
  pass "SHOW JOB METRICS names the topic, partition and offset of skipped records"
else
  cat "$WORK/skip.out" "$WORK/skip.err" >"$WORK/detail" 2>/dev/null
  DETAIL="$WORK/detail" fail "SHOW JOB METRICS names the skipped records"
fi
if grep -qi "skipped" "$WORK/skip.out" "$WORK/skip.err"; then
  pass "the skipped-record count is shown to the user"
else
  skip "the skipped-record count is shown to the user" "the engine does not report SourceReader.skipped_rows yet"
fi

# ---------------------------------------------------------------- watermarks per partition
# Two partitions, records only in partition 0 (WATERMARK FOR ts AS ts). Each
# record is produced once the previous one is in the output, so every row sees
# the watermark of everything before it. Without an idle timeout the silent
# partition 1 holds the watermark back: CURRENT_WATERMARK stays NULL. With
# table.exec.source.idle-timeout it is released: probes (ts 10 s) are sent
# until one sees 10 s; then a row at 20 s sees exactly 10 s and a late row
# (5 s) sees 20 s and is flagged late (on_time false).
wm_script() { # TOPIC SETTINGS
  cat <<EOF
$2
CREATE TABLE events (id BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
WITH ('connector' = 'kafka', 'topic' = '$1', 'properties.bootstrap.servers' = '$BOOTSTRAP',
      'format' = 'json', 'scan.startup.mode' = 'earliest-offset');
SELECT id, CURRENT_WATERMARK(ts) AS wm,
       ts > CURRENT_WATERMARK(ts) OR CURRENT_WATERMARK(ts) IS NULL AS on_time
FROM events;
EOF
}
wm_send() { # TOPIC ID SECONDS: one record into partition 0
  printf '{"id":%s,"ts":"2024-01-01 00:00:%02d"}\n' "$2" "$3" |
    timeout 30 kcat -P -b "$BOOTSTRAP" -t "$1" -p 0 2>>"$WORK/kcat.err"
}
wm_row() { grep -q "^+I,$2," "$WORK/$1.out"; } # NAME ID: the row is in the output
wm_stop() {
  kill -INT "$JOB_PID" 2>/dev/null
  wait_for 20 eval '! kill -0 '"$JOB_PID"' 2>/dev/null'
  kill -0 "$JOB_PID" 2>/dev/null && kill -KILL "$JOB_PID" 2>/dev/null
  wait "$JOB_PID" 2>/dev/null
  JOB_PID=
}
wm_script wm_held "" >"$WORK/wm_held.sql"
wm_send wm_held 1 10
timeout 120 "$JOINERY" --output csv -f "$WORK/wm_held.sql" >"$WORK/wm_held.out" 2>"$WORK/wm_held.err" &
JOB_PID=$!
held_ok=0
if wait_for 30 wm_row wm_held 1 && wm_send wm_held 2 20 && wait_for 30 wm_row wm_held 2 &&
  wm_send wm_held 3 30 && wait_for 30 wm_row wm_held 3; then held_ok=1; fi
wm_stop
printf '+I,1,,TRUE\n+I,2,,TRUE\n+I,3,,TRUE\n' >"$WORK/wm_held.expected"
if [ $held_ok -eq 1 ] &&
  grep '^+I,' "$WORK/wm_held.out" | diff "$WORK/wm_held.expected" - >"$WORK/wm_held.diff"; then
  pass "a partition without records holds the watermark back (CURRENT_WATERMARK stays NULL)"
else
  cat "$WORK/wm_held.out" "$WORK/wm_held.err" "$WORK/wm_held.diff" >"$WORK/detail" 2>/dev/null
  DETAIL="$WORK/detail" fail "watermark held back by a partition without records"
fi
wm_script wm_idle "SET 'table.exec.source.idle-timeout' = '100 ms';" >"$WORK/wm_idle.sql"
wm_send wm_idle 1 10
timeout 120 "$JOINERY" --output csv -f "$WORK/wm_idle.sql" >"$WORK/wm_idle.out" 2>"$WORK/wm_idle.err" &
JOB_PID=$!
probe=100
wm_released() { # one more probe (ts 10 s); true once a probe saw the watermark at 10 s
  probe=$((probe + 1))
  wm_send wm_idle "$probe" 10 && wait_for 30 wm_row wm_idle "$probe" &&
    grep -q "^+I,$probe,2024-01-01 00:00:10.000,FALSE\$" "$WORK/wm_idle.out"
}
idle_ok=0
if wait_for 30 wm_row wm_idle 1 && wait_for 60 wm_released && wm_send wm_idle 2 20 &&
  wait_for 30 wm_row wm_idle 2 && wm_send wm_idle 3 5 && wait_for 30 wm_row wm_idle 3; then
  idle_ok=1
fi
wm_stop
# probes saw either no watermark (on time) or 10 s (late: ts 10 s is not after it)
if [ $idle_ok -eq 1 ] &&
  grep -qx '+I,2,2024-01-01 00:00:10.000,TRUE' "$WORK/wm_idle.out" &&
  grep -qx '+I,3,2024-01-01 00:00:20.000,FALSE' "$WORK/wm_idle.out" &&
  ! grep '^+I,1[0-9][0-9],' "$WORK/wm_idle.out" | grep -qv ',,TRUE$\|,2024-01-01 00:00:10.000,FALSE$'; then
  pass "table.exec.source.idle-timeout releases an idle partition: the watermark advances, late rows are flagged"
else
  cat "$WORK/wm_idle.out" "$WORK/wm_idle.err" >"$WORK/detail" 2>/dev/null
  DETAIL="$WORK/detail" fail "idle partition released by table.exec.source.idle-timeout"
fi

# ---------------------------------------------------------------- headers metadata
# kcat writes records with headers (none, two, a repeated name, bytes that are not UTF-8);
# joinery reads them as MAP<STRING, BYTES>: item access, CAST to STRING, CARDINALITY.
hdr_send() { # ID HEADER_ARGS...
  local id=$1; shift
  echo "{\"id\":$id}" | timeout 30 kcat -P -b "$BOOTSTRAP" -t hdrs "$@" 2>>"$WORK/kcat.err"
}
hdr_send 1 -H trace=abc123 -H tenant=t1 && hdr_send 2 &&
  hdr_send 3 -H $'bad=a\xff\xfeb' -H trace=x -H trace=y
cat >"$WORK/hdrs.sql" <<EOF
CREATE TABLE h (id INT, headers MAP<STRING, BYTES> METADATA VIRTUAL)
WITH ($(bounded hdrs));
SELECT id, CAST(headers['trace'] AS STRING), headers['tenant'], CARDINALITY(headers),
       CAST(headers['bad'] AS STRING), headers FROM h;
EOF
printf '%s\n' 'op,id,EXPR$1,EXPR$2,EXPR$3,EXPR$4,headers' \
  "+I,1,abc123,x'7431',2,,\"{tenant=x'7431', trace=x'616263313233'}\"" \
  '+I,2,,,0,,{}' \
  $'+I,3,y,,2,a\xef\xbf\xbd\xef\xbf\xbdb,"{bad=x\'61fffe62\', trace=x\'79\'}"' >"$WORK/hdrs.expected"
if run_joinery hdrs "$WORK/hdrs.sql" --output csv &&
  grep -v '^\[INFO\]' "$WORK/hdrs.out" | diff "$WORK/hdrs.expected" - >"$WORK/hdrs.diff"; then
  pass "headers metadata: kcat's record headers read as MAP<STRING, BYTES> (last of a repeated name, ill-formed UTF-8 as U+FFFD)"
else
  cat "$WORK/hdrs.diff" "$WORK/hdrs.err" >"$WORK/detail" 2>/dev/null
  DETAIL="$WORK/detail" fail "headers metadata read from kcat's records"
fi
# joinery writes headers and timestamps: a sink's persisted 'headers' and 'timestamp'
# METADATA columns go into the records (not their values); kcat reads them back
cat >"$WORK/hdrs_sink.sql" <<EOF
CREATE TABLE hs (id INT, headers MAP<STRING, BYTES> METADATA,
                 ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp', part INT METADATA FROM 'partition' VIRTUAL)
WITH ('connector' = 'kafka', 'topic' = 'hdrs_out', 'properties.bootstrap.servers' = '$BOOTSTRAP', 'format' = 'json');
INSERT INTO hs VALUES
  (1, MAP['trace', CAST('abc' AS BYTES), 'none', CAST(NULL AS BYTES)],
   CAST(TIMESTAMP '2024-06-01 00:00:01.500' AS TIMESTAMP_LTZ(3))),
  (2, CAST(NULL AS MAP<STRING, BYTES>), CAST(TIMESTAMP '2024-06-01 00:00:02' AS TIMESTAMP_LTZ(3)));
EOF
printf '%s\n' '1717200001500|none=NULL,trace=abc|{"id":1}' '1717200002000||{"id":2}' >"$WORK/hdrs_sink.expected"
if run_joinery hdrs_sink "$WORK/hdrs_sink.sql" &&
  consume hdrs_out '%T|%h|%s\n' | sort >"$WORK/hdrs_sink.actual" &&
  diff "$WORK/hdrs_sink.expected" "$WORK/hdrs_sink.actual" >"$WORK/hdrs_sink.diff"; then
  pass "a sink writes its 'headers' and 'timestamp' metadata columns into the records (kcat reads them back)"
else
  cat "$WORK/hdrs_sink.err" "$WORK/hdrs_sink.diff" >"$WORK/detail" 2>/dev/null
  DETAIL="$WORK/detail" fail "sink writing headers and timestamp metadata"
fi

# ---------------------------------------------------------------- an idle table in a join
# events LEFT JOIN quiet, where quiet's topic never gets a record. The join's
# watermark is the minimum over its inputs: without an idle timeout the quiet
# table holds it back and CURRENT_WATERMARK after the join stays NULL. With
# table.exec.source.idle-timeout the quiet scan announces itself idle
# (WatermarkStatus IDLE) and the join follows events alone: probes (ts 10 s)
# until one sees 10 s, then a row at 20 s sees exactly 10 s and a late row
# (5 s) sees 20 s. Also at parallelism 2, where the status crosses threads
# and the second reader of events' single partition has no partition at all.
wmj_script() { # NAME SETTINGS
  cat <<EOF
$2
CREATE TABLE events (id BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
WITH ('connector' = 'kafka', 'topic' = '$1_a', 'properties.bootstrap.servers' = '$BOOTSTRAP',
      'format' = 'json', 'scan.startup.mode' = 'earliest-offset');
CREATE TABLE quiet (id BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
WITH ('connector' = 'kafka', 'topic' = '$1_b', 'properties.bootstrap.servers' = '$BOOTSTRAP',
      'format' = 'json', 'scan.startup.mode' = 'earliest-offset');
SELECT e.id, CURRENT_WATERMARK(e.ts) AS wm,
       e.ts > CURRENT_WATERMARK(e.ts) OR CURRENT_WATERMARK(e.ts) IS NULL AS on_time
FROM events AS e LEFT JOIN quiet AS q ON e.id = q.id;
EOF
}
wmj_start() { # NAME SETTINGS: writes the first record, starts the job
  wmj_script "$1" "$2" >"$WORK/$1.sql"
  wm_send "$1_a" 1 10
  timeout 120 "$JOINERY" --output csv -f "$WORK/$1.sql" >"$WORK/$1.out" 2>"$WORK/$1.err" &
  JOB_PID=$!
}
wmj_start wmj_held ""
held_ok=0
if wait_for 30 wm_row wmj_held 1 && wm_send wmj_held_a 2 20 && wait_for 30 wm_row wmj_held 2 &&
  wm_send wmj_held_a 3 30 && wait_for 30 wm_row wmj_held 3; then held_ok=1; fi
wm_stop
printf '+I,1,,TRUE\n+I,2,,TRUE\n+I,3,,TRUE\n' >"$WORK/wmj_held.expected"
if [ $held_ok -eq 1 ] &&
  grep '^+I,' "$WORK/wmj_held.out" | diff "$WORK/wmj_held.expected" - >"$WORK/wmj_held.diff"; then
  pass "a table without records holds a join's watermark back (CURRENT_WATERMARK after the join stays NULL)"
else
  cat "$WORK/wmj_held.out" "$WORK/wmj_held.err" "$WORK/wmj_held.diff" >"$WORK/detail" 2>/dev/null
  DETAIL="$WORK/detail" fail "join watermark held back by a table without records"
fi
wmj_released() { # NAME: one more probe (ts 10 s); true once a probe saw the watermark at 10 s
  probe=$((probe + 1))
  wm_send "$1_a" "$probe" 10 && wait_for 30 wm_row "$1" "$probe" &&
    grep -q "^+I,$probe,2024-01-01 00:00:10.000,FALSE\$" "$WORK/$1.out"
}
wmj_idle_check() { # NAME PARALLELISM
  local name=$1 ok=0
  wmj_start "$name" "SET 'table.exec.source.idle-timeout' = '100 ms';
SET 'parallelism.default' = '$2';"
  probe=100
  if wait_for 30 wm_row "$name" 1 && wait_for 60 wmj_released "$name" &&
    wm_send "${name}_a" 2 20 && wait_for 30 wm_row "$name" 2 &&
    wm_send "${name}_a" 3 5 && wait_for 30 wm_row "$name" 3; then ok=1; fi
  wm_stop
  # rows 1, 2, 3 exactly; probes saw no watermark (on time) or 10 s (late)
  printf '+I,1,,TRUE\n+I,2,2024-01-01 00:00:10.000,TRUE\n+I,3,2024-01-01 00:00:20.000,FALSE\n' \
    >"$WORK/$name.expected"
  if [ $ok -eq 1 ] &&
    grep '^+I,[0-9],' "$WORK/$name.out" | diff "$WORK/$name.expected" - >"$WORK/$name.diff" &&
    ! grep '^+I,1[0-9][0-9],' "$WORK/$name.out" | grep -qv ',,TRUE$\|,2024-01-01 00:00:10.000,FALSE$'; then
    pass "table.exec.source.idle-timeout: the idle table no longer holds the join's watermark back (parallelism $2)"
  else
    cat "$WORK/$name.out" "$WORK/$name.err" "$WORK/$name.diff" >"$WORK/detail" 2>/dev/null
    DETAIL="$WORK/detail" fail "idle table released from the join's watermark (parallelism $2)"
  fi
}
wmj_idle_check wmj_idle 1
wmj_idle_check wmj_p2 2

# SHOW JOB METRICS after such a job (interactive, through a pseudo-terminal:
# a script stops at Ctrl-C): each operator's watermark, the quiet scan none
# and idle, the events scan and the join at 10 s.
cat >"$WORK/wmj_show.py" <<'EOF'
import re, subprocess, sys, time
sys.path.insert(0, sys.argv[1])
from pty_test import PROMPT, Terminal
joinery, home, bootstrap = sys.argv[2], sys.argv[3], sys.argv[4]
def send_record(ident):
    record = '{"id":%d,"ts":"2024-01-01 00:00:10"}\n' % ident
    subprocess.run(["kcat", "-P", "-b", bootstrap, "-t", "wmj_show_a", "-p", "0"],
                   input=record.encode(), timeout=30, check=True)
table = ("WITH ('connector' = 'kafka', 'topic' = '%s', 'properties.bootstrap.servers' = '"
         + bootstrap + "', 'format' = 'json', 'scan.startup.mode' = 'earliest-offset');")
statements = [
    "SET 'table.exec.source.idle-timeout' = '100 ms';",
    "CREATE TABLE events (id BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) " + table % "wmj_show_a",
    "CREATE TABLE quiet (id BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) " + table % "wmj_show_b",
    "SELECT e.id, CURRENT_WATERMARK(e.ts) AS wm FROM events AS e LEFT JOIN quiet AS q ON e.id = q.id;",
]
term = Terminal(joinery, home)
def expect_match(pattern, start):
    deadline = time.monotonic() + 30
    while True:
        match = re.search(pattern, term.output[start:])
        if match or not term.read_some(deadline):
            assert match, "did not see %r:\n%s" % (pattern, term.shown())
            return match
try:
    term.expect(PROMPT)
    for statement in statements[:-1]:
        start = term.mark()
        term.send(statement.encode() + b"\r")
        term.expect(PROMPT, start)
    start = term.mark()
    term.send(statements[-1].encode() + b"\r")
    released = False
    deadline = time.monotonic() + 60
    probe = 100
    while not released and time.monotonic() < deadline:
        probe += 1
        send_record(probe)
        row = expect_match(rb"\| +%d \| +([^|]*?) +\|" % probe, start)
        released = row.group(1) == b"2024-01-01 00:00:10.000"
    assert released, "the join's watermark did not reach 10 s"
    term.send(b"\x03")
    term.expect(b"Query terminated", start)
    term.expect(PROMPT, start)
    start = term.mark()
    term.send(b"SHOW JOB METRICS;\r")
    term.expect(b"Collect", start)
    term.expect(PROMPT, start)
    shown = term.output[start:].decode("utf-8", "replace").replace("\r", "")
    print(shown)
    watermarks = {}
    operator = None
    for line in shown.split("\n"):
        match = re.match(r"^\d+ +(\w+)", line)
        if match:
            operator = match.group(1)
            continue
        match = re.match(r"^ +watermark (.*)$", line)
        if match and operator:
            watermarks.setdefault(operator, []).append(match.group(1))
    print("watermarks:", watermarks)
    scans = watermarks.get("TableSourceScan", [])
    assert len(scans) == 2, "two scans with a watermark line"
    assert re.fullmatch(r"2024-01-01 00:00:10\.000(, idle)?", scans[0]), scans[0]
    assert scans[1] == "none, idle", scans[1]
    assert re.fullmatch(r"2024-01-01 00:00:10\.000(, idle)?", watermarks["Join"][0])
    assert re.fullmatch(r"2024-01-01 00:00:10\.000(, idle)?", watermarks["Calc"][-1])
    term.send(b"QUIT;\r")
    assert term.wait_exit() == 0
finally:
    term.close()
EOF
wm_send wmj_show_a 1 10
mkdir -p "$WORK/pty_home"
if timeout 120 python3 "$WORK/wmj_show.py" "$ROOT/tests/cli" "$JOINERY" "$WORK/pty_home" "$BOOTSTRAP" \
  >"$WORK/wmj_show.log" 2>&1; then
  pass "SHOW JOB METRICS: the watermark of each scan and operator, the idle table marked idle"
else
  DETAIL="$WORK/wmj_show.log" fail "SHOW JOB METRICS shows watermarks and idleness"
fi

# ---------------------------------------------------------------- temporal join on upsert-kafka
# An upsert-kafka versioned table (no ChangelogNormalize under the temporal join: its
# upserts are the versions) joined by kafka orders at their event time, bounded, LEFT;
# then a tombstone, whose row has only its key and no time: the job fails with the hint to
# take the time from the record's metadata.
cat >"$WORK/tj_rates.keyed" <<'EOF'
{"currency":"Euro"}	{"currency":"Euro","rate":114,"currency_time":"2020-08-15 00:00:01"}
{"currency":"US Dollar"}	{"currency":"US Dollar","rate":102,"currency_time":"2020-08-15 00:00:02"}
{"currency":"Yen"}	{"currency":"Yen","rate":1,"currency_time":"2020-08-15 00:00:03"}
{"currency":"RMB"}	{"currency":"RMB","rate":702,"currency_time":"2020-08-15 00:00:04"}
{"currency":"Euro"}	{"currency":"Euro","rate":118,"currency_time":"2020-08-16 00:01:00"}
{"currency":"US Dollar"}	{"currency":"US Dollar","rate":104,"currency_time":"2020-08-16 00:02:00"}
EOF
cat >"$WORK/tj_orders.keyed" <<'EOF'
1	{"order_id":1,"currency":"Euro","amount":12,"order_time":"2020-08-15 00:01:00"}
2	{"order_id":2,"currency":"US Dollar","amount":1,"order_time":"2020-08-15 00:02:00"}
3	{"order_id":3,"currency":"RMB","amount":40,"order_time":"2020-08-15 00:03:00"}
4	{"order_id":4,"currency":"Euro","amount":14,"order_time":"2020-08-16 00:04:00"}
5	{"order_id":5,"currency":"RMB","amount":40,"order_time":"2020-08-16 00:03:00"}
6	{"order_id":6,"currency":"Pound","amount":7,"order_time":"2020-08-16 00:05:00"}
EOF
tj_table() {
  echo "CREATE TABLE $2 (currency STRING, rate BIGINT, currency_time TIMESTAMP(3),
  WATERMARK FOR currency_time AS currency_time, PRIMARY KEY (currency) NOT ENFORCED)
WITH ('connector' = 'upsert-kafka', 'topic' = '$1', 'properties.bootstrap.servers' = '$BOOTSTRAP',
      'key.format' = 'json', 'value.format' = 'json', 'scan.bounded.mode' = 'latest-offset');"
}
cat >"$WORK/tj.sql" <<EOF
CREATE TABLE orders (order_id BIGINT, currency STRING, amount BIGINT, order_time TIMESTAMP(3),
  WATERMARK FOR order_time AS order_time) WITH ($(bounded tj_orders));
$(tj_table tj_rates rates)
SELECT o.order_id, r.rate FROM orders AS o LEFT JOIN rates FOR SYSTEM_TIME AS OF o.order_time AS r
ON o.currency = r.currency;
EOF
printf '%s\n' 'op,order_id,rate' '+I,1,114' '+I,2,102' '+I,3,702' '+I,4,118' '+I,5,702' '+I,6,' \
  >"$WORK/tj.expected"
if produce tj_rates "$WORK/tj_rates.keyed" && produce tj_orders "$WORK/tj_orders.keyed" &&
  run_joinery tj "$WORK/tj.sql" --output csv &&
  (head -n 1 "$WORK/tj.out"; tail -n +2 "$WORK/tj.out" | sort -t, -k2n) >"$WORK/tj.actual" &&
  diff "$WORK/tj.expected" "$WORK/tj.actual" >"$WORK/tj.diff"; then
  pass "temporal join against upsert-kafka: each order joins the rate valid at its time, LEFT pads"
else
  cat "$WORK/tj.err" "$WORK/tj.diff" >"$WORK/detail" 2>/dev/null
  DETAIL="$WORK/detail" fail "temporal join against upsert-kafka"
fi
printf '%s\t\n' '{"currency":"Euro"}' >"$WORK/tj_tombstone.keyed"
cat >"$WORK/tj_deleted.sql" <<EOF
CREATE TABLE orders (order_id BIGINT, currency STRING, amount BIGINT, order_time TIMESTAMP(3),
  WATERMARK FOR order_time AS order_time) WITH ($(bounded tj_orders));
$(tj_table tj_rates_deleted rates)
SELECT o.order_id, r.rate FROM orders AS o JOIN rates FOR SYSTEM_TIME AS OF o.order_time AS r
ON o.currency = r.currency;
EOF
if produce tj_rates_deleted "$WORK/tj_rates.keyed" &&
  timeout 60 kcat -P -b "$BOOTSTRAP" -t tj_rates_deleted -K $'\t' -Z -l "$WORK/tj_tombstone.keyed" \
    2>>"$WORK/kcat.err" &&
  ! run_joinery tj_deleted "$WORK/tj_deleted.sql" &&
  grep -q "METADATA FROM 'timestamp'" "$WORK/tj_deleted.err"; then
  pass "a tombstone on a temporal join's versioned side (no time) fails the job with the hint"
else
  cat "$WORK/tj_deleted.out" "$WORK/tj_deleted.err" >"$WORK/detail" 2>/dev/null
  DETAIL="$WORK/detail" fail "tombstone on the versioned side of a temporal join"
fi

# ---------------------------------------------------------------- upsert-kafka straight into joins
# An upsert-kafka table keyed by the join key feeds the join without a ChangelogNormalize
# (Flink's plan, MultiJoinTest.xml): the join keeps the one row per key and turns each
# upsert into the retraction of the row it replaces and the new row, a tombstone into the
# stored row's retraction. Inner, LEFT, and a three-input MultiJoin over two upsert tables;
# the changelog is materialized (a retraction of a row never emitted fails) and compared.
cat >"$WORK/uj_users.keyed" <<'EOF'
{"user_id":1}	{"user_id":1,"user_name":"alice"}
{"user_id":2}	{"user_id":2,"user_name":"bob"}
{"user_id":3}	{"user_id":3,"user_name":"carol"}
{"user_id":1}	{"user_id":1,"user_name":"alice2"}
{"user_id":4}	{"user_id":4,"user_name":"dave"}
{"user_id":3}	{"user_id":3,"user_name":"carol2"}
EOF
printf '%s\t\n' '{"user_id":2}' >"$WORK/uj_tombstone.keyed"
cat >"$WORK/uj_orders.keyed" <<'EOF'
1	{"order_id":1,"user_id":1}
2	{"order_id":2,"user_id":2}
3	{"order_id":3,"user_id":3}
4	{"order_id":4,"user_id":4}
5	{"order_id":5,"user_id":5}
6	{"order_id":6,"user_id":1}
EOF
uj_tables() {
  echo "CREATE TABLE orders (order_id BIGINT, user_id BIGINT) WITH ($(bounded uj_orders));"
  local table
  for table in users profiles; do
    echo "CREATE TABLE $table (user_id BIGINT, user_name STRING, PRIMARY KEY (user_id) NOT ENFORCED)
WITH ('connector' = 'upsert-kafka', 'topic' = 'uj_users', 'properties.bootstrap.servers' = '$BOOTSTRAP',
      'key.format' = 'json', 'value.format' = 'json', 'scan.bounded.mode' = 'latest-offset');"
  done
}
# uj_materialize FILE: the csv changelog's final rows, sorted; fails on a retraction of a
# row that is not there
uj_materialize() {
  python3 -c '
import collections, csv, sys
rows = collections.Counter()
reader = csv.reader(open(sys.argv[1]))
next(reader)
for record in reader:
    op, values = record[0], tuple(record[1:])
    if op in ("+I", "+U"):
        rows[values] += 1
    elif rows[values] > 0:
        rows[values] -= 1
    else:
        sys.exit("retraction of a row never emitted: %s %s" % (op, values))
for values in sorted(rows.elements(), key=lambda v: int(v[0])):
    print(",".join(values))
' "$1"
}
uj_case() { # NAME QUERY EXPECTED...
  local name=$1 query=$2
  shift 2
  { uj_tables; echo "$query"; } >"$WORK/$name.sql"
  { uj_tables; echo "EXPLAIN $query"; } >"$WORK/$name.explain.sql"
  printf '%s\n' "$@" >"$WORK/$name.expected"
  if run_joinery "$name" "$WORK/$name.sql" --output csv &&
    uj_materialize "$WORK/$name.out" >"$WORK/$name.actual" 2>"$WORK/$name.mat.err" &&
    diff "$WORK/$name.expected" "$WORK/$name.actual" >"$WORK/$name.diff" &&
    run_joinery "$name.explain" "$WORK/$name.explain.sql" &&
    ! grep -q ChangelogNormalize "$WORK/$name.explain.out"; then
    pass "upsert-kafka into a join keyed by its key, no ChangelogNormalize: $name"
  else
    cat "$WORK/$name.err" "$WORK/$name.mat.err" "$WORK/$name.diff" "$WORK/$name.explain.out" \
      >"$WORK/detail" 2>/dev/null
    DETAIL="$WORK/detail" fail "upsert-kafka into a join: $name"
  fi
}
if produce uj_users "$WORK/uj_users.keyed" && produce uj_orders "$WORK/uj_orders.keyed" &&
  timeout 60 kcat -P -b "$BOOTSTRAP" -t uj_users -K $'\t' -Z -l "$WORK/uj_tombstone.keyed" \
    2>>"$WORK/kcat.err"; then
  uj_case uj_inner "SELECT o.order_id, u.user_name FROM orders AS o JOIN users AS u ON o.user_id = u.user_id;" \
    1,alice2 3,carol2 4,dave 6,alice2
  uj_case uj_left "SELECT o.order_id, u.user_name FROM orders AS o LEFT JOIN users AS u ON o.user_id = u.user_id;" \
    1,alice2 2, 3,carol2 4,dave 5, 6,alice2
  uj_case uj_multi "SELECT /*+ MULTI_JOIN(o, u, p) */ o.order_id, u.user_name, p.user_name AS again
FROM orders AS o LEFT JOIN users AS u ON o.user_id = u.user_id LEFT JOIN profiles AS p ON o.user_id = p.user_id;" \
    1,alice2,alice2 2,, 3,carol2,carol2 4,dave,dave 5,, 6,alice2,alice2
  # into a sink without a primary key Flink keeps the ChangelogNormalize (a retract sink
  # needs UPDATE_BEFORE from its input): so does joinery
  { uj_tables; echo "CREATE TABLE uj_out (order_id BIGINT, user_name STRING) WITH ('connector' = 'blackhole');
EXPLAIN INSERT INTO uj_out SELECT o.order_id, u.user_name FROM orders AS o JOIN users AS u ON o.user_id = u.user_id;"; } \
    >"$WORK/uj_retract.sql"
  if run_joinery uj_retract "$WORK/uj_retract.sql" && grep -q ChangelogNormalize "$WORK/uj_retract.out"; then
    pass "into a sink without a primary key the ChangelogNormalize stays"
  else
    DETAIL="$WORK/uj_retract.out" fail "ChangelogNormalize kept for a sink without a primary key"
  fi
  # with mini-batch on, the ChangelogNormalize runs as Flink's mini-batch form (each key's
  # last row of a batch, batches ended by the MiniBatchAssigner's watermarks)
  { echo "SET 'table.exec.mini-batch.enabled' = 'true';
SET 'table.exec.mini-batch.allow-latency' = '50 ms';
SET 'table.exec.mini-batch.size' = '2';"
    uj_tables
    echo "SELECT user_id, user_name FROM users;"; } >"$WORK/uj_mini_batch.sql"
  { head -n 3 "$WORK/uj_mini_batch.sql"; uj_tables; echo "EXPLAIN SELECT user_id, user_name FROM users;"; } \
    >"$WORK/uj_mini_batch.explain.sql"
  printf '%s\n' 1,alice2 3,carol2 4,dave >"$WORK/uj_mini_batch.expected"
  if run_joinery uj_mini_batch "$WORK/uj_mini_batch.sql" --output csv &&
    uj_materialize "$WORK/uj_mini_batch.out" >"$WORK/uj_mini_batch.actual" 2>"$WORK/uj_mini_batch.mat.err" &&
    diff "$WORK/uj_mini_batch.expected" "$WORK/uj_mini_batch.actual" >"$WORK/uj_mini_batch.diff" &&
    run_joinery uj_mini_batch.explain "$WORK/uj_mini_batch.explain.sql" &&
    grep -q "ChangelogNormalize(key=\[user_id\]" "$WORK/uj_mini_batch.explain.out" &&
    grep -q "MiniBatchAssigner(interval=\[50ms\], mode=\[ProcTime\])" "$WORK/uj_mini_batch.explain.out"; then
    pass "mini-batch ChangelogNormalize over upsert-kafka: each key's last row, result exact"
  else
    cat "$WORK/uj_mini_batch.err" "$WORK/uj_mini_batch.mat.err" "$WORK/uj_mini_batch.diff" \
      "$WORK/uj_mini_batch.explain.out" >"$WORK/detail" 2>/dev/null
    DETAIL="$WORK/detail" fail "mini-batch ChangelogNormalize over upsert-kafka"
  fi
else
  fail "producing the upsert-kafka users and orders"
fi

echo
echo "$passed passed, $failed failed${skipped:+, $skipped skipped}"
[ "$failed" -eq 0 ]

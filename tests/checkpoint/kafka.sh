#!/usr/bin/env bash
# Kill -9 equivalence of a checkpointed job reading Kafka (tests/checkpoint/run.sh
# runs it; standalone: tests/checkpoint/kafka.sh BUILD_DIR KILLS).
#
# kafka-mock (build/kafka-mock) holds an orders topic (json, 3 partitions)
# and a users changelog (debezium-json, 2 partitions: creates, updates,
# deletes), written with kcat. The job - orders LEFT JOIN users, bounded at
# the topics' ends - writes to a filesystem sink (exactly-once) and, as a
# second job, to an upsert-kafka topic (at-least-once, by key). Each is run
# uninterrupted and then, at parallelism 1 and 2, killed KILLS times (each
# 15-45 % of the uninterrupted run's length after its start, so the kills
# land however fast the machine reads the topics) and restored from its
# latest checkpoint (so the Kafka offsets per partition
# come from the checkpoint). Compared: the materialized files (no retraction
# of a missing row) and the upsert topic materialized by key. (The upsert
# sink is at-least-once: it flushes its producer at each barrier.) Then the
# files job is submitted in the background, stopped with STOP JOB ... WITH
# SAVEPOINT and resumed from the savepoint (Kafka offsets from there): the
# files must equal the uninterrupted run's too. The exactly-once kafka sink runs
# uninterrupted at parallelism 1 and 2 (its topic materialized equals the files; its
# transactions add up) and killed between a checkpoint's completion and its commit, then
# restored (each change once, on hashmap and LMDB), and one job writing all three sinks runs through the broker down
# for BROKER_DOWN_SECONDS (default 5) while it checkpoints (every output as uninterrupted).
# tests/checkpoint/README.md says what is and is not proven.
# Prints "ok: ..." / "FAILED: ..." / "skip: ..." lines; exit status is the
# number of failures.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$1
KILLS=${2:-3}
JOINERY="$BUILD/joinery"
MOCK="$BUILD/kafka-mock"
HERE="$ROOT/tests/checkpoint"
failures=0
if [ ! -x "$MOCK" ] || ! command -v kcat >/dev/null; then
  echo "skip: kafka (kafka-mock or kcat missing)"
  exit 0
fi
WORK=$(mktemp -d)
MOCK_PID=
cleanup() {
  [ -n "$MOCK_PID" ] && kill "$MOCK_PID" 2>/dev/null && wait "$MOCK_PID" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT
export TMPDIR="$WORK/tmp"
mkdir -p "$TMPDIR"

"$MOCK" --brokers 1 --control "$WORK/control" --topic orders:3 --topic users:2 \
  --topic up_clean:8 --topic up_p1:8 --topic up_p2:8 --topic eos_p1:8 --topic eos_p2:8 --topic eos_kill_hashmap:8 --topic eos_kill_lmdb:8 --topic down_up:8 --topic down_eos:8 >"$WORK/mock.out" 2>"$WORK/mock.err" &
MOCK_PID=$!
for _ in $(seq 100); do [ -s "$WORK/mock.out" ] && break; sleep 0.2; done
BOOTSTRAP=$(head -n 1 "$WORK/mock.out")
case "$BOOTSTRAP" in 127.0.0.1:*) ;; *) echo "FAILED: kafka-mock did not start"; exit 1 ;; esac

# orders: the job runs about 0.7 s per kill on this many, up to 90000: the mock cluster
# keeps at most 100000 records or 5 MB per partition (older ones are deleted, as by
# retention), and the upsert topics take the replays after each restore too
ORDERS=$((40000 + 25000 * KILLS))
[ "$ORDERS" -gt 90000 ] && ORDERS=90000
python3 - "$WORK" "$ORDERS" <<'PY'
import json, random, sys
work = sys.argv[1]
rng = random.Random(42)
with open(work + '/orders.keyed', 'w') as out:
    for order_id in range(1, int(sys.argv[2]) + 1):
        user_id = rng.randint(1, 400)
        out.write('%d\t%s\n' % (order_id, json.dumps(
            {'order_id': order_id, 'user_id': user_id, 'amount': rng.randint(1, 100)})))
users = {}
with open(work + '/users.keyed', 'w') as out:
    def event(key, before, after, op):
        out.write('%d\t%s\n' % (key, json.dumps({'before': before, 'after': after, 'op': op})))
    for user_id in range(1, 301):
        users[user_id] = {'user_id': user_id, 'name': 'u%d' % user_id, 'region': user_id % 7}
        event(user_id, None, users[user_id], 'c')
    for step in range(400):
        user_id = rng.randint(1, 300)
        if user_id not in users:
            continue
        if step % 5 == 4:
            event(user_id, users.pop(user_id), None, 'd')
        else:
            after = dict(users[user_id], name='u%d-%d' % (user_id, step))
            event(user_id, users[user_id], after, 'u')
            users[user_id] = after
PY
kcat -P -b "$BOOTSTRAP" -t orders -K $'\t' -l "$WORK/orders.keyed" 2>>"$WORK/kcat.err" &&
  kcat -P -b "$BOOTSTRAP" -t users -K $'\t' -l "$WORK/users.keyed" 2>>"$WORK/kcat.err" ||
  { echo "FAILED: kcat could not produce the input"; exit 1; }

# job_sql PARALLELISM OUT CHK RESTORE TOPIC
job_sql() {
  echo "SET 'parallelism.default' = '$1';"
  echo "SET 'execution.checkpointing.interval' = '${INTERVAL:-150 ms}';"
  echo "SET 'execution.checkpointing.dir' = '$3';"
  [ -n "$4" ] && echo "SET 'execution.state-recovery.path' = '$4';"
  local source="'connector' = 'kafka', 'properties.bootstrap.servers' = '$BOOTSTRAP', 'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset'${KAFKA_EXTRA:-}"
  cat <<SQL
CREATE TABLE orders (order_id BIGINT, user_id BIGINT, amount INT) WITH ($source, 'topic' = 'orders', 'format' = 'json');
CREATE TABLE users (user_id BIGINT, name STRING, region INT) WITH ($source, 'topic' = 'users', 'format' = 'debezium-json');
CREATE TABLE files (order_id BIGINT, name STRING, amount INT) WITH ('connector' = 'filesystem', 'path' = '$2/', 'format' = 'debezium-json');
CREATE TABLE topic (order_id BIGINT, name STRING, amount INT, PRIMARY KEY (order_id) NOT ENFORCED)
  WITH ('connector' = 'upsert-kafka', 'topic' = '$5', 'properties.bootstrap.servers' = '$BOOTSTRAP', 'key.format' = 'json', 'value.format' = 'json'${KAFKA_EXTRA:-});
CREATE TABLE eos (order_id BIGINT, name STRING, amount INT)
  WITH ('connector' = 'kafka', 'topic' = '${EOS_TOPIC:-$5}', 'properties.bootstrap.servers' = '$BOOTSTRAP', 'format' = 'debezium-json',
        'key.format' = 'json', 'key.fields' = 'order_id', 'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = 'chk-$5'${KAFKA_EXTRA:-});
SQL
  local query="SELECT o.order_id, u.name, o.amount FROM orders o LEFT JOIN users u ON o.user_id = u.user_id"
  if [ "$6" = all ]; then # one job writing the three sinks
    echo "EXECUTE STATEMENT SET BEGIN INSERT INTO files $query; INSERT INTO topic $query; INSERT INTO eos $query; END;"
  else
    echo "INSERT INTO $6 $query;"
  fi
  case "$6" in eos | all) echo "SHOW JOB METRICS;" ;; esac
  return 0
}

# control COMMAND: a fault-injection command to kafka-mock, acknowledged
control() {
  local before tries
  before=$(grep -c "^ok \|^error " "$WORK/mock.out")
  echo "$*" >"$WORK/control"
  for tries in $(seq 50); do
    [ "$(grep -c "^ok \|^error " "$WORK/mock.out")" -gt "$before" ] && break
    sleep 0.1
  done
  grep -q "^ok $*\$" "$WORK/mock.out"
}

latest_checkpoint() {
  ls -d "$1"/*/chk-*/_metadata 2>/dev/null |
    sed -E 's|.*/chk-([0-9]+)/_metadata$|\1 &|' | sort -n | tail -n 1 | cut -d' ' -f2 |
    xargs -r dirname
}

# run DIR PARALLELISM TOPIC SINK KILLS: kill/restore until the job finishes; prints the kills
run() {
  local dir=$1 parallelism=$2 topic=$3 sink=$4 kills_wanted=$5 kills=0 rounds=0 pid delay latest
  mkdir -p "$dir"
  while [ "$rounds" -lt $((kills_wanted + 20)) ]; do
    rounds=$((rounds + 1))
    latest=$(latest_checkpoint "$dir/chk")
    job_sql "$parallelism" "$dir/out" "$dir/chk" "$latest" "$topic" "$sink" >"$dir/job.sql"
    "$JOINERY" -f "$dir/job.sql" >"$dir/log.$rounds" 2>&1 &
    pid=$!
    if [ "$kills" -lt "$kills_wanted" ]; then
      # 15-45 % of the uninterrupted run's length: a job that reads the topics
      # faster than a fixed moment would finish before its kill
      delay=$((KILL_SPAN_MS * (15 + RANDOM % 30) / 100))
      [ "$delay" -lt 100 ] && delay=100
      sleep "$(printf '%d.%03d' $((delay / 1000)) $((delay % 1000)))"
      if kill -9 "$pid" 2>/dev/null; then
        wait "$pid" 2>/dev/null
        kills=$((kills + 1))
        continue
      fi
    fi
    wait "$pid" && grep -q "Job finished" "$dir/log.$rounds" && { echo "$kills"; return 0; }
    tail -n 3 "$dir/log.$rounds" >&2
    return 1
  done
  return 1
}

materialize_topic() {
  timeout 60 kcat -C -b "$BOOTSTRAP" -t "$1" -e -q -Z -f '%k\t%s\n' 2>>"$WORK/kcat.err" |
    python3 "$ROOT/tests/kafka/kafka_data.py" materialize-upsert /dev/stdin
}

KILL_SPAN_MS=1200
clean_started=$(date +%s%N)
run "$WORK/clean-files" 1 up_clean files 0 >/dev/null || { echo "FAILED: kafka: the uninterrupted file job"; exit 1; }
KILL_SPAN_MS=$((($(date +%s%N) - clean_started) / 1000000))
run "$WORK/clean-topic" 1 up_clean topic 0 >/dev/null || { echo "FAILED: kafka: the uninterrupted topic job"; exit 1; }
expected_files=$(python3 "$HERE/materialize.py" "$WORK/clean-files/out")
expected_topic=$(materialize_topic up_clean)
# The exactly-once Kafka sink, uninterrupted, checkpoints every 50 ms: its topic (a
# debezium-json changelog keyed by order_id: each key's changes in order in its partition;
# 8 partitions, as the mock keeps at most 5 MB per partition) materialized equals the files, each change
# once, and the job's transactions add up: all begun were committed, none aborted or left
# open, at most one per completed checkpoint plus the last at the end of input. Not with random kills: librdkafka 2.0.2's mock
# hands the records of aborted transactions to read_committed readers, so a killed run's
# topic holds its aborted attempts too (tests/checkpoint/README.md); eos_kill below kills at
# the one moment where the test can tell them apart.
for parallelism in 1 2; do
  dir="$WORK/eos-p$parallelism"
  if INTERVAL='50 ms' run "$dir" "$parallelism" "eos_p$parallelism" eos 0 >/dev/null; then
    mkdir -p "$dir/topic"
    timeout 60 kcat -C -b "$BOOTSTRAP" -t "eos_p$parallelism" -e -q -X isolation.level=read_committed \
      >"$dir/topic/changes.json" 2>>"$WORK/kcat.err"
    actual=$(python3 "$HERE/materialize.py" "$dir/topic" 2>&1)
    counts=$(sed -n 's/^ *Kafka transactions of eos: \([0-9]*\) begun, \([0-9]*\) committed, \([0-9]*\) aborted, \([0-9]*\) open$/\1 \2 \3 \4/p' "$dir/log.1")
    completed=$(sed -n 's/^checkpoints: \([0-9]*\) completed.*/\1/p' "$dir/log.1")
    read -r begun committed aborted open <<<"${counts:-x x x x}"
    if [ "$actual" = "$expected_files" ] && [ -n "$completed" ] && [ "$begun" = "$committed" ] &&
      [ "$aborted" = 0 ] && [ "$open" = 0 ] && [ "$committed" -ge 1 ] &&
      [ "$committed" -le $((completed + 1)) ] &&
      # SHOW JOB METRICS: each checkpoint's duration, size and alignment time
      { [ "$completed" = 0 ] ||
        grep -qE '^  chk-[0-9]+  [0-9]+ ms  [0-9]+ bytes  alignment [0-9]+ ms$' "$dir/log.1"; }; then
      echo "ok: kafka -> exactly-once kafka p$parallelism: $(wc -l <"$dir/topic/changes.json") changes, $(printf '%s\n' "$actual" | wc -l) rows as the files; $committed transactions committed, $completed checkpoints completed, 0 aborted; $(grep -cE '^  chk-.* alignment [0-9]+ ms$' "$dir/log.1") checkpoints listed with their alignment"
    else
      echo "FAILED: kafka -> exactly-once kafka p$parallelism: transactions '$counts', checkpoints '$completed', ${actual:0:200}"
      failures=$((failures + 1))
    fi
  else
    echo "FAILED: kafka -> exactly-once kafka p$parallelism: the job did not finish"
    failures=$((failures + 1))
  fi
done
# The exactly-once Kafka sink killed at its worst instant, on both state backends (hashmap
# at parallelism 1, LMDB at 2): a GROUP BY over a rate-limited datagen table (4000 orders in
# half a second, so checkpoints every 50 ms always find records in the sink) writes its
# changelog (debezium-json, keyed by user_id) into the topic. JOINERY_TEST_KILL_BEFORE_KAFKA_COMMIT=1
# makes the job SIGKILL itself when a checkpoint is complete (its _metadata synced) and the
# sink has not committed its transaction yet, at the first such commit (so the run committed
# nothing). It is restored from that checkpoint and runs to the end. The killed run's records
# are an aborted transaction (the restart's init_transactions aborts it), which a real
# broker's read_committed reader skips; librdkafka 2.0.2's mock hands them out, so the test
# drops them itself: every record below each partition's end when the job had died. What
# remains, materialized, must equal an uninterrupted run into files, with no retraction of a
# missing row (each change once), and the restored run must say it sent the checkpoint's
# pending records again: as many as the killed run had left in the topic.
eos_kill_sql() { # PARALLELISM TOPIC CHK RESTORE SINK OUT
  echo "SET 'parallelism.default' = '$1';"
  echo "SET 'execution.checkpointing.interval' = '50 ms';"
  echo "SET 'execution.checkpointing.dir' = '$3';"
  [ -n "$4" ] && echo "SET 'execution.state-recovery.path' = '$4';"
  cat <<SQL
CREATE TABLE orders (order_id BIGINT, user_id BIGINT, amount INT) WITH (
  'connector' = 'datagen', 'number-of-rows' = '4000', 'rows-per-second' = '8000',
  'fields.order_id.kind' = 'sequence', 'fields.order_id.start' = '1', 'fields.order_id.end' = '4000',
  'fields.user_id.min' = '1', 'fields.user_id.max' = '48', 'fields.amount.min' = '1', 'fields.amount.max' = '100');
CREATE TABLE files (user_id BIGINT, orders BIGINT, amount INT) WITH ('connector' = 'filesystem', 'path' = '$6/', 'format' = 'debezium-json');
CREATE TABLE eos (user_id BIGINT, orders BIGINT, amount INT)
  WITH ('connector' = 'kafka', 'topic' = '$2', 'properties.bootstrap.servers' = '$BOOTSTRAP', 'format' = 'debezium-json',
        'key.format' = 'json', 'key.fields' = 'user_id', 'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = 'kill-$2');
INSERT INTO $5 SELECT user_id, COUNT(*) AS orders, SUM(amount) FROM orders GROUP BY user_id;
SHOW JOB METRICS;
SQL
}
eos_kill_sql 1 unused "$WORK/eos-kill-clean/chk" "" files "$WORK/eos-kill-clean/out" >"$WORK/eos-kill-clean.sql"
timeout 60 "$JOINERY" -f "$WORK/eos-kill-clean.sql" >"$WORK/eos-kill-clean.log" 2>&1 &&
  grep -q "Job finished" "$WORK/eos-kill-clean.log" &&
  expected_counts=$(python3 "$HERE/materialize.py" "$WORK/eos-kill-clean/out") ||
  { echo "FAILED: the uninterrupted GROUP BY into files: $(tail -n 2 "$WORK/eos-kill-clean.log")"; exit 1; }
eos_kill() { # BACKEND PARALLELISM
  local backend=$1 parallelism=$2 dir="$WORK/eos-kill-$1" topic="eos_kill_$1" status latest left
  mkdir -p "$dir/topic"
  eos_kill_sql "$parallelism" "$topic" "$dir/chk" "" eos "" >"$dir/job.sql"
  JOINERY_STATE_BACKEND=$backend JOINERY_TEST_KILL_BEFORE_KAFKA_COMMIT=1 timeout 60 "$JOINERY" -f "$dir/job.sql" >"$dir/log.1" 2>&1 &
  wait $! 2>/dev/null # (a SIGKILL: no "Killed" line)
  status=$?
  latest=$(latest_checkpoint "$dir/chk")
  if [ "$status" != 137 ] || [ -z "$latest" ]; then
    echo "FAILED: kafka -> exactly-once kafka killed before its commit ($backend): exit $status, checkpoint '$latest'; $(tail -n 2 "$dir/log.1" | tr '\n' ' ')"
    return 1
  fi
  # each partition's end when the job died: the killed run's (uncommitted) records are below
  timeout 60 kcat -C -b "$BOOTSTRAP" -t "$topic" -e -q -f '%p %o\n' 2>>"$WORK/kcat.err" |
    awk '{ if (!($1 in end) || $2 + 1 > end[$1]) end[$1] = $2 + 1 } END { for (p in end) print p "\t" end[p] }' >"$dir/killed.ends"
  left=$(awk '{ n += $2 } END { print n + 0 }' "$dir/killed.ends")
  eos_kill_sql "$parallelism" "$topic" "$dir/chk" "$latest" eos "" >"$dir/restore.sql"
  JOINERY_STATE_BACKEND=$backend timeout 60 "$JOINERY" -f "$dir/restore.sql" >"$dir/log.2" 2>&1
  status=$?
  timeout 60 kcat -C -b "$BOOTSTRAP" -t "$topic" -e -q -f '%p\t%o\t%s\n' 2>>"$WORK/kcat.err" |
    awk -F '\t' 'NR == FNR { end[$1] = $2; next } $2 >= end[$1] + 0 { print $3 }' "$dir/killed.ends" - >"$dir/topic/changes.json"
  local actual resent
  actual=$(python3 "$HERE/materialize.py" "$dir/topic" 2>&1)
  resent=$(sed -n 's/^ *Kafka transaction of eos restored from chk-[0-9]*: \([0-9]*\) records sent again.*/\1/p' "$dir/log.2")
  if [ "$status" = 0 ] && grep -q "Job finished" "$dir/log.2" && [ -n "$expected_counts" ] &&
    [ "$actual" = "$expected_counts" ] && [ "$left" -gt 0 ] && [ "$resent" = "$left" ]; then
    echo "ok: kafka -> exactly-once kafka p$parallelism ($backend) killed between ${latest##*/}'s completion and its commit, restored: the $left records of its transaction sent again, $(printf '%s\n' "$actual" | wc -l) keys as uninterrupted"
    return 0
  fi
  echo "FAILED: kafka -> exactly-once kafka p$parallelism ($backend) killed before its commit: exit $status, $left records left by the killed run, '$resent' sent again, ${actual:0:200}"
  return 1
}
eos_kill hashmap 1 || failures=$((failures + 1))
eos_kill lmdb 2 || failures=$((failures + 1))
for parallelism in 1 2; do
  if kills=$(run "$WORK/files-p$parallelism" "$parallelism" "up_p$parallelism" files "$KILLS"); then
    if actual=$(python3 "$HERE/materialize.py" "$WORK/files-p$parallelism/out" 2>&1) &&
      [ "$actual" = "$expected_files" ]; then
      echo "ok: kafka -> files p$parallelism: $kills kills, $(printf '%s\n' "$actual" | wc -l) rows as uninterrupted"
    else
      echo "FAILED: kafka -> files p$parallelism: ${actual:0:200}"
      failures=$((failures + 1))
    fi
  else
    echo "FAILED: kafka -> files p$parallelism: the job did not finish"
    failures=$((failures + 1))
  fi
  if kills=$(run "$WORK/topic-p$parallelism" "$parallelism" "up_p$parallelism" topic "$KILLS"); then
    actual=$(materialize_topic "up_p$parallelism")
    if [ "$actual" = "$expected_topic" ] && [ -n "$actual" ]; then
      echo "ok: kafka -> upsert-kafka p$parallelism: $kills kills, $(printf '%s\n' "$actual" | wc -l) keys as uninterrupted"
    else
      echo "FAILED: kafka -> upsert-kafka p$parallelism: the materialized topic differs"
      failures=$((failures + 1))
    fi
  else
    echo "FAILED: kafka -> upsert-kafka p$parallelism: the job did not finish"
    failures=$((failures + 1))
  fi
done
# The broker down for BROKER_DOWN_SECONDS (default 5; the issue's bar is 30) while the job
# runs and checkpoints every 150 ms: one job (a statement set) writes the files, the
# upsert topic and the exactly-once topic. The sources' fetches and the producers wait (the
# barrier's flush of the upsert producer, the exactly-once commit) and go on when the
# broker is back; the job finishes without a restore and every output equals the
# uninterrupted runs'. Printed: the checkpoints completed and failed, the transactions.
BROKER_DOWN_SECONDS=${BROKER_DOWN_SECONDS:-5}
dir="$WORK/broker-down"
mkdir -p "$dir"
# (librdkafka's reconnect backoff capped at 500 ms: the job resumes soon after the broker)
EOS_TOPIC=down_eos KAFKA_EXTRA=", 'properties.reconnect.backoff.max.ms' = '500'" job_sql 1 "$dir/out" "$dir/chk" "" down_up all >"$dir/job.sql"
timeout $((BROKER_DOWN_SECONDS + 120)) "$JOINERY" -f "$dir/job.sql" >"$dir/log" 2>&1 &
job_pid=$!
delay=$((KILL_SPAN_MS * 30 / 100))
sleep "$(printf '%d.%03d' $((delay / 1000)) $((delay % 1000)))"
down_ok=0
if kill -0 "$job_pid" 2>/dev/null && control down 1; then
  sleep "$BROKER_DOWN_SECONDS"
  control up 1 && down_ok=1
fi
[ "$down_ok" = 1 ] || control up 1 >/dev/null
wait "$job_pid"
job_status=$?
mkdir -p "$dir/eos"
timeout 60 kcat -C -b "$BOOTSTRAP" -t down_eos -e -q >"$dir/eos/changes.json" 2>>"$WORK/kcat.err"
files=$(python3 "$HERE/materialize.py" "$dir/out" 2>&1)
eos=$(python3 "$HERE/materialize.py" "$dir/eos" 2>&1)
topic=$(materialize_topic down_up)
summary="$(sed -n 's/^checkpoints: \([0-9]*\) completed, \([0-9]*\) failed.*/\1 checkpoints completed, \2 failed/p' "$dir/log"); $(sed -n 's/^ *Kafka transactions of eos: //p' "$dir/log")"
if [ "$down_ok" = 1 ] && [ "$job_status" = 0 ] && grep -q "Job finished" "$dir/log" &&
  [ "$files" = "$expected_files" ] && [ "$eos" = "$expected_files" ] &&
  [ -n "$topic" ] && [ "$topic" = "$expected_topic" ]; then
  echo "ok: kafka broker down ${BROKER_DOWN_SECONDS} s during the job: files, upsert topic and exactly-once topic as uninterrupted ($summary)"
else
  echo "FAILED: kafka broker down ${BROKER_DOWN_SECONDS} s: down/up $down_ok, exit $job_status, $summary; $(tail -n 2 "$dir/log" | tr '\n' ' ')"
  failures=$((failures + 1))
fi

# stop_resume DIR PARALLELISM: the files job in the background, STOP JOB ... WITH SAVEPOINT
# (here with periodic checkpoints on as well), then resumed from the savepoint; up to three
# tries, each stopping sooner, when the job read both topics to their end before the stop
stop_resume() {
  local dir=$1 parallelism=$2 delay=400 try savepoint
  local id=5a7e00000000000000000000000000f$parallelism
  for try in 1 2 3; do
    rm -rf "$dir"
    mkdir -p "$dir"
    {
      echo "SET 'table.dml-sync' = 'false';"
      echo "SET 'execution.checkpointing.savepoint-dir' = '$dir/savepoints';"
      echo "SET '\$internal.pipeline.job-id' = '$id';"
      job_sql "$parallelism" "$dir/out" "$dir/chk" "" up_clean files
      sleep "0.$(printf '%03d' "$delay")"
      echo "STOP JOB '$id' WITH SAVEPOINT;"
    } | timeout 120 "$JOINERY" >"$dir/stop.log" 2>&1
    savepoint=$(sed -n 's/^| *\(\/[^ ]*savepoint-[0-9a-f]*-[0-9a-f]*\) *|$/\1/p' "$dir/stop.log" | head -n 1)
    if [ -n "$savepoint" ]; then
      job_sql "$parallelism" "$dir/out" "$dir/chk2" "$savepoint" up_clean files >"$dir/resume.sql"
      timeout 120 "$JOINERY" -f "$dir/resume.sql" >"$dir/resume.log" 2>&1 &&
        grep -q "Job finished" "$dir/resume.log" && { echo "$try"; return 0; }
      tail -n 3 "$dir/resume.log" >&2
      return 1
    fi
    # the job read both topics to their end before the stop, or while the savepoint was
    # being taken (then STOP JOB fails and the job reports it finished): stop sooner
    grep -q -e "is not in state RUNNING but FINISHED" -e "Job $id (.*) finished:" "$dir/stop.log" ||
      { tail -n 3 "$dir/stop.log" >&2; return 1; }
    delay=$((delay / 3))
  done
  return 1
}
for parallelism in 1 2; do
  if tries=$(stop_resume "$WORK/savepoint-p$parallelism" "$parallelism"); then
    if actual=$(python3 "$HERE/materialize.py" "$WORK/savepoint-p$parallelism/out" 2>&1) &&
      [ "$actual" = "$expected_files" ]; then
      echo "ok: kafka -> files p$parallelism: stopped with a savepoint (try $tries) and resumed, $(printf '%s\n' "$actual" | wc -l) rows as uninterrupted"
    else
      echo "FAILED: kafka -> files p$parallelism after a savepoint: ${actual:0:200}"
      failures=$((failures + 1))
    fi
  else
    echo "FAILED: kafka -> files p$parallelism: no savepoint taken while the job ran"
    failures=$((failures + 1))
  fi
done
exit "$failures"

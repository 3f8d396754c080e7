#!/usr/bin/env bash
# run-nexmark.sh - the Nexmark queries of bench/nexmark/ (what `make nexmark`
# runs): each query in its own joinery process over the in-process 'nexmark'
# source into a blackhole sink, at each parallelism, with mini-batch off and on
# (Nexmark's Flink settings: allow-latency 2 s, size 50000), q23 also with
# table.optimizer.multi-join.enabled on. Prints one markdown table row per
# run: events, wall seconds, CPU seconds (user + system, all threads of the
# process), events per CPU-second, peak RSS, the state bytes of all operators
# at the end (SHOW JOB METRICS, run by the same script after the INSERT) and
# the rows written (the INSERT's report), the rows they materialize to and
# their order-independent checksum (the blackhole sink's, summed over its
# subtasks: equal between runs whose outputs materialize to the same rows), or
# "not runnable: <joinery's error>" when a statement fails.
#
# Usage: scripts/run-nexmark.sh [BUILD_DIR]
# Environment:
#   NEXMARK_EVENTS       events per query (default 5000000: the whole run in about
#                        two minutes on 2 cores, q23 peaking at about 4 GB)
#   NEXMARK_TPS          first-event.rate: events per second of event time
#                        (default 10000000, upstream's V1 workload)
#   NEXMARK_QUERIES      queries to run (default "source q0 q1 ... q23"; source is
#                        bench/nexmark/source.sql, the generator alone)
#   NEXMARK_PARALLELISM  parallelisms (default "1 2")
#   NEXMARK_TIMEOUT      seconds a run may take before it is stopped (default 300)
#   NEXMARK_MINI_BATCH   "off", "on" or "off on" (the default: each query both ways)
# The scripts joinery ran and their output are kept in BUILD_DIR/nexmark/.
set -u
build=${1:-build}
cd "$(dirname "$0")/.."
events=${NEXMARK_EVENTS:-5000000}
tps=${NEXMARK_TPS:-10000000}
queries=${NEXMARK_QUERIES:-source $(for i in $(seq 0 23); do printf 'q%d ' "$i"; done)}
parallelisms=${NEXMARK_PARALLELISM:-1 2}
limit=${NEXMARK_TIMEOUT:-300}
mini_batch_modes=${NEXMARK_MINI_BATCH:-off on}
work="$build/nexmark"
mkdir -p "$work/data"
# q13's side input, as upstream's side_input_gen.sh writes it: key,value lines
[ -s "$work/data/side_input.txt" ] ||
  for key in $(seq 0 9999); do printf '%d,%d\n' "$key" "$key"; done >"$work/data/side_input.txt"

if [ ! -x /usr/bin/time ]; then
  echo "run-nexmark.sh: needs GNU time (/usr/bin/time, Debian package 'time')" >&2
  exit 1
fi

# substitute FILE: the file with upstream's runner variables replaced
substitute() {
  sed -e "s|\${TPS}|$tps|g; s|\${EVENTS_NUM}|$events|g" \
    -e 's|\${PERSON_PROPORTION}|1|g; s|\${AUCTION_PROPORTION}|3|g; s|\${BID_PROPORTION}|46|g' \
    -e "s|\${NEXMARK_DIR}|$PWD/$work|g; s|\${SUBMIT_TIME}|run|g; s|\${FLINK_HOME}|$PWD/$work|g" "$1"
}

# run QUERY PARALLELISM MULTI_JOIN MINI_BATCH: one table row
run() {
  local query=$1 parallelism=$2 multi_join=$3 mini_batch=$4 name="$1-p$2"
  [ "$multi_join" = true ] && name="$name-multijoin"
  [ "$mini_batch" = on ] && name="$name-minibatch"
  local script="$work/$name.sql" output="$work/$name.out" timing="$work/$name.time"
  {
    echo "SET 'parallelism.default' = '$parallelism';"
    [ "$multi_join" = true ] && echo "SET 'table.optimizer.multi-join.enabled' = 'true';"
    if [ "$mini_batch" = on ]; then
      echo "SET 'table.exec.mini-batch.enabled' = 'true';"
      echo "SET 'table.exec.mini-batch.allow-latency' = '2 s';"
      echo "SET 'table.exec.mini-batch.size' = '50000';"
    fi
    substitute bench/nexmark/ddl.sql
    substitute "bench/nexmark/$query.sql"
    echo
    echo "SHOW JOB METRICS;"
  } >"$script"
  timeout "$limit" /usr/bin/time -f '%e %U %S %M' -o "$timing" \
    "$build/joinery" -f "$script" >"$output" 2>&1
  local status=$?
  local label="$query"
  [ "$multi_join" = true ] && label="$label (multi-join)"
  [ "$mini_batch" = on ] && label="$label (mini-batch)"
  if [ $status -eq 124 ]; then
    printf '| %s | %s | %s | not run to the end: stopped after %s s |||||| \n' "$label" \
      "$parallelism" "$events" "$limit"
    return
  fi
  if [ $status -ne 0 ]; then
    local reason
    reason=$(awk '/\[ERROR\]/ { getline; print; exit }' "$output")
    [ -n "$reason" ] || reason=$(grep -v '^\[INFO\]' "$output" | tail -n 1)
    printf '| %s | %s | %s | not runnable: %s |||||| \n' "$label" "$parallelism" "$events" \
      "$(printf '%s' "$reason" | sed 's/|/\\|/g')"
    return
  fi
  # time's last line: wall user system max-RSS-KB (earlier lines are its notes)
  read -r wall user system rss < <(tail -n 1 "$timing")
  local rows state materialized=0 checksum=0 net hex
  rows=$(sed -n 's/^\[INFO\] Job finished: \([0-9]*\) rows written.*/\1/p' "$output" | tail -n 1)
  # the blackhole's lines, one per sink subtask: net rows and a sum modulo 2^48
  while read -r net hex; do
    materialized=$((materialized + net))
    checksum=$(((checksum + 16#$hex) & ((1 << 48) - 1)))
  done < <(sed -n 's/^ *blackhole [^:]*: materialized \(-\{0,1\}[0-9]*\) rows, checksum \([0-9a-f]*\)$/\1 \2/p' "$output")
  checksum=$(printf '%012x' "$checksum")
  # SHOW JOB METRICS: operator lines are "id name subtasks in out state-rows keys bytes busy bp"
  state=$(awk 'found && $1 ~ /^[0-9]+$/ && $2 ~ /^[A-Za-z]/ { sum += $8 }
               /^id +operator/ { found = 1 } END { printf "%.0f\n", sum }' "$output")
  awk -v label="$label" -v p="$parallelism" -v events="$events" -v wall="$wall" -v user="$user" \
    -v sys="$system" -v rss="$rss" -v state="$state" -v rows="${rows:-0}" \
    -v materialized="$materialized" -v checksum="$checksum" 'BEGIN {
      cpu = user + sys
      printf "| %s | %s | %.0f | %.2f | %.2f | %.0f | %.0f | %.0f | %.0f | %s | %s |\n", label, p,
        events, wall, cpu, (cpu > 0 ? events / cpu : 0), rss / 1024, state, rows, materialized,
        checksum
    }'
}

echo "Nexmark on joinery: $events events per query, first-event.rate $tps, $(nproc) cores"
echo
echo "| query | parallelism | events | wall s | CPU s | events/CPU-s | peak RSS MB | state bytes | output rows | materialized rows | checksum |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
for query in $queries; do
  if [ ! -f "bench/nexmark/$query.sql" ]; then
    echo "run-nexmark.sh: no bench/nexmark/$query.sql" >&2
    exit 1
  fi
  for parallelism in $parallelisms; do
    for mini_batch in $mini_batch_modes; do
      run "$query" "$parallelism" false "$mini_batch"
      [ "$query" = q23 ] && run "$query" "$parallelism" true "$mini_batch"
    done
  done
done

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
# "not runnable: <joinery's error>" when a statement fails. Each row names its
# source: "generator" (ddl.sql, the in-process nexmark connector) or "json"
# (ddl_json.sql: the same events, written once per event count as JSON lines
# by generate_json.sql and read back through the filesystem connector, so
# the cost of decoding JSON shows, as in RisingWave's Kafka-JSON runs).
# After the table, each json row whose query also ran on the generator at the
# same settings is compared with it: the same materialized rows and checksum
# (they must be: same events, same order), and the CPU seconds' ratio.
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
#   NEXMARK_SOURCE       "generator", "json" or "both" (the default): generator
#                        and json run every query at every setting above, both
#                        runs each query on the generator and, for the queries
#                        in NEXMARK_JSON_QUERIES, on JSON lines too at the first
#                        parallelism and the first mini-batch mode only (so the
#                        default run stays within a few minutes of generator
#                        alone)
#   NEXMARK_JSON_QUERIES the queries of the json runs under both (default
#                        "source q0 q3 q4 q8 q9 q13 q20")
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
source_mode=${NEXMARK_SOURCE:-both}
json_queries=${NEXMARK_JSON_QUERIES:-source q0 q3 q4 q8 q9 q13 q20}
case "$source_mode" in
generator | json | both) ;;
*)
  echo "run-nexmark.sh: NEXMARK_SOURCE is generator, json or both, not '$source_mode'" >&2
  exit 1
  ;;
esac
work="$build/nexmark"
mkdir -p "$work/data"
# the JSON lines of these events (generate_json), one folder per workload
json_dir="$work/data/events-$events-tps$tps.json"
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
    -e "s|\${NEXMARK_DIR}|$PWD/$work|g; s|\${SUBMIT_TIME}|run|g; s|\${FLINK_HOME}|$PWD/$work|g" \
    -e "s|\${NEXMARK_JSON}|$PWD/$json_dir|g" "$1"
}

# generate_json: writes json_dir once (generate_json.sql at parallelism 1, so
# the lines are in the generator's order); a folder without its _complete
# marker (a run stopped while writing) is written again. Prints one line.
generate_json() {
  if [ -f "$json_dir/_complete" ]; then
    echo "JSON lines: $json_dir, $(du -sb "$json_dir" | cut -f1) bytes (written by an earlier run)"
    return 0
  fi
  rm -rf "$json_dir"
  local script="$work/generate-json.sql" timing="$work/generate-json.time"
  { substitute bench/nexmark/ddl.sql; substitute bench/nexmark/generate_json.sql; } >"$script"
  if ! /usr/bin/time -f '%e %U %S' -o "$timing" "$build/joinery" -f "$script" \
    >"$work/generate-json.out" 2>&1; then
    echo "run-nexmark.sh: writing the JSON lines failed, see $work/generate-json.out" >&2
    rm -rf "$json_dir"
    return 1
  fi
  : >"$json_dir/_complete"
  local wall user system
  read -r wall user system < <(tail -n 1 "$timing")
  echo "JSON lines: $json_dir, $(du -sb "$json_dir" | cut -f1) bytes, written in $wall s" \
    "($(awk -v u="$user" -v s="$system" 'BEGIN { printf "%.2f", u + s }') CPU-s)"
}

# results of the generator runs by "label|parallelism": "materialized checksum cpu"
declare -A generator_result
comparisons=()

# run SOURCE QUERY PARALLELISM MULTI_JOIN MINI_BATCH: one table row
run() {
  local source=$1
  shift
  local query=$1 parallelism=$2 multi_join=$3 mini_batch=$4 name="$1-p$2"
  [ "$multi_join" = true ] && name="$name-multijoin"
  [ "$mini_batch" = on ] && name="$name-minibatch"
  [ "$source" = json ] && name="$name-json"
  local ddl=bench/nexmark/ddl.sql
  [ "$source" = json ] && ddl=bench/nexmark/ddl_json.sql
  local script="$work/$name.sql" output="$work/$name.out" timing="$work/$name.time"
  {
    echo "SET 'parallelism.default' = '$parallelism';"
    [ "$multi_join" = true ] && echo "SET 'table.optimizer.multi-join.enabled' = 'true';"
    if [ "$mini_batch" = on ]; then
      echo "SET 'table.exec.mini-batch.enabled' = 'true';"
      echo "SET 'table.exec.mini-batch.allow-latency' = '2 s';"
      echo "SET 'table.exec.mini-batch.size' = '50000';"
    fi
    substitute "$ddl"
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
    printf '| %s | %s | %s | %s | not run to the end: stopped after %s s |||||| \n' "$label" \
      "$source" "$parallelism" "$events" "$limit"
    return
  fi
  if [ $status -ne 0 ]; then
    local reason
    reason=$(awk '/\[ERROR\]/ { getline; print; exit }' "$output")
    [ -n "$reason" ] || reason=$(grep -v '^\[INFO\]' "$output" | tail -n 1)
    printf '| %s | %s | %s | %s | not runnable: %s |||||| \n' "$label" "$source" "$parallelism" \
      "$events" \
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
  local cpu
  cpu=$(awk -v u="$user" -v s="$system" 'BEGIN { printf "%.2f", u + s }')
  if [ "$source" = generator ]; then
    generator_result["$label|$parallelism"]="$materialized $checksum $cpu"
  elif [ -n "${generator_result["$label|$parallelism"]:-}" ]; then
    local g_materialized g_checksum g_cpu verdict
    read -r g_materialized g_checksum g_cpu <<<"${generator_result["$label|$parallelism"]}"
    if [ "$g_materialized" = "$materialized" ] && [ "$g_checksum" = "$checksum" ]; then
      verdict="the same $materialized materialized rows and checksum $checksum"
    else
      verdict="DIFFERENT: generator $g_materialized rows $g_checksum, json $materialized rows $checksum"
    fi
    comparisons+=("$(awk -v l="$label" -v p="$parallelism" -v v="$verdict" -v j="$cpu" -v g="$g_cpu" \
      'BEGIN { printf "- %s, parallelism %s: %s; CPU s json / generator %.2f / %.2f = %.2fx", l, p, v, j, g, (g > 0 ? j / g : 0) }')")
  fi
  awk -v label="$label" -v source="$source" -v p="$parallelism" -v events="$events" -v wall="$wall" -v user="$user" \
    -v sys="$system" -v rss="$rss" -v state="$state" -v rows="${rows:-0}" \
    -v materialized="$materialized" -v checksum="$checksum" 'BEGIN {
      cpu = user + sys
      printf "| %s | %s | %s | %.0f | %.2f | %.2f | %.0f | %.0f | %.0f | %.0f | %s | %s |\n", label, source, p,
        events, wall, cpu, (cpu > 0 ? events / cpu : 0), rss / 1024, state, rows, materialized,
        checksum
    }'
}

echo "Nexmark on joinery: $events events per query, first-event.rate $tps, $(nproc) cores, source $source_mode"
# check the queries first, then write the JSON lines if a json run needs them
for query in $queries; do
  if [ ! -f "bench/nexmark/$query.sql" ]; then
    echo "run-nexmark.sh: no bench/nexmark/$query.sql" >&2
    exit 1
  fi
done
# runs_json QUERY: whether QUERY runs on JSON lines (at some setting)
runs_json() {
  [ "$source_mode" = json ] && return 0
  [ "$source_mode" = both ] && [[ " $json_queries " == *" $1 "* ]]
}
need_json=false
for query in $queries; do runs_json "$query" && need_json=true; done
if [ "$need_json" = true ]; then
  generate_json || exit 1
fi
echo
echo "| query | source | parallelism | events | wall s | CPU s | events/CPU-s | peak RSS MB | state bytes | output rows | materialized rows | checksum |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
first_parallelism=${parallelisms%% *}
first_mini_batch=${mini_batch_modes%% *}
for query in $queries; do
  for parallelism in $parallelisms; do
    for mini_batch in $mini_batch_modes; do
      sources=generator
      [ "$source_mode" = json ] && sources=json
      if [ "$source_mode" = both ] && runs_json "$query" &&
        [ "$parallelism" = "$first_parallelism" ] && [ "$mini_batch" = "$first_mini_batch" ]; then
        sources="generator json"
      fi
      for source in $sources; do
        run "$source" "$query" "$parallelism" false "$mini_batch"
        [ "$query" = q23 ] && run "$source" "$query" "$parallelism" true "$mini_batch"
      done
    done
  done
done
if [ ${#comparisons[@]} -gt 0 ]; then
  echo
  echo "JSON lines against the generator (same events, same settings):"
  printf '%s\n' "${comparisons[@]}"
fi

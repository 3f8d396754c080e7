#!/usr/bin/env bash
# run-fuzz.sh - `make fuzz`, and the short run `make test` makes: every
# libFuzzer target of tests/fuzz/ for FUZZ_SECONDS (default 600) each, one
# after the other, then the grammar-aware statement generator for
# FUZZ_GENERATOR_SECONDS (default 180) with a 1 s planning limit
# (FUZZ_PLAN_LIMIT_MS; 0 turns it off, as the short run does: tests never
# assert on wall-clock time).
#
# Seeds: the statements of tests/sql/*.sql and sample-data/*.sql for the
# statement target, whole scripts for the splitter, the records of
# sample-data/ and tests/sql/data/ (plus a few change events written here)
# for the format targets; the SQL dictionary is FUZZ_BUILD/fuzz/sql.dict.
# Each target keeps its corpus in FUZZ_BUILD/corpus/NAME (it grows from run
# to run). A finding (crash, sanitizer report, leak, input slower than 5 s,
# more than 2 GB) is written to FUZZ_BUILD/findings/NAME-*; keep it as a
# regression by copying it to tests/fuzz/regressions/NAME/ (make test
# replays those). Prints per target the executions, the coverage (cov:
# edges, ft: features) and the corpus size, then a summary line; exits 1
# on any finding.
#
# FUZZ_TARGETS (a space-separated list) runs only those targets;
# FUZZ_GENERATOR_SECONDS=0 skips the generator.
#
# Usage: scripts/run-fuzz.sh FUZZ_BUILD
set -u
cd "$(dirname "$0")/.."
fuzz_build=${1:-build-fuzz}
seconds=${FUZZ_SECONDS:-600}
generator_seconds=${FUZZ_GENERATOR_SECONDS:-180}
plan_limit=${FUZZ_PLAN_LIMIT_MS:-1000}
names=${FUZZ_TARGETS:-statement split format_json format_csv format_raw format_debezium_json format_canal_json}
findings_dir="$fuzz_build/findings"
mkdir -p "$findings_dir"
failed=0

# seeds NAME DIR: writes the seed inputs of target NAME into DIR
seeds() {
  local name=$1 dir=$2
  mkdir -p "$dir"
  case "$name" in
    statement)
      python3 - "$dir" tests/sql/*.sql sample-data/*.sql <<'PY'
import os, sys
out = sys.argv[1]
count = 0
for path in sys.argv[2:]:
    text = open(path, encoding="utf-8", errors="replace").read()
    statement = []
    for line in text.splitlines(keepends=True):
        statement.append(line)
        if line.rstrip().endswith(";"):
            body = "".join(statement).strip()
            statement = []
            if body and not all(l.strip().startswith("--") or not l.strip() for l in body.splitlines()):
                count += 1
                with open(os.path.join(out, "seed-%05d.sql" % count), "w") as f:
                    f.write(body + "\n")
PY
      ;;
    split) cp tests/sql/*.sql sample-data/*.sql "$dir"/ ;;
    format_json | format_raw)
      for f in sample-data/*.json tests/sql/data/*.json; do
        { printf '\000'; head -c 4000 "$f"; } >"$dir/$(basename "$f")"
      done ;;
    format_csv)
      for f in tests/sql/data/*.csv; do { printf '\000'; cat "$f"; } >"$dir/$(basename "$f")"; done
      printf '\001a,b,"c ""d""",\n"multi\nline",2,x\n# comment\n' >"$dir/quoted.csv" ;;
    format_debezium_json)
      printf '\000{"before":null,"after":{"id":1,"s":"a","dec":1.50,"ts":"2024-06-01 00:00:00.000"},"op":"c"}\n{"before":{"id":1},"after":{"id":1,"s":"b"},"op":"u"}\n{"before":{"id":1},"after":null,"op":"d"}\n' >"$dir/changes.json"
      printf '\010{"schema":{},"payload":{"before":null,"after":{"id":2,"b":true},"op":"r"}}\n' >"$dir/schema.json" ;;
    format_canal_json)
      printf '\000{"data":[{"id":"1","s":"a"}],"old":null,"type":"INSERT","database":"d","table":"t"}\n{"data":[{"id":"1","s":"b"}],"old":[{"s":"a"}],"type":"UPDATE"}\n{"data":[{"id":"1"}],"type":"DELETE"}\n{"type":"CREATE","sql":"CREATE TABLE t (id INT)"}\n' >"$dir/changes.json" ;;
  esac
}

# cpu_seconds_wait PID BUDGET: waits until process PID has used BUDGET CPU
# seconds (utime + stime of /proc/PID/stat) and then interrupts it (SIGINT:
# libFuzzer prints its final stats and exits 72), or until it ends by
# itself; prints the CPU seconds it used.
cpu_seconds_wait() {
  local pid=$1 budget=$2 ticks hz used=0
  hz=$(getconf CLK_TCK)
  while [ -r "/proc/$pid/stat" ]; do
    # fields after the ")" that closes the command name: utime is the 12th, stime the 13th
    ticks=$(sed 's/^.*) //' "/proc/$pid/stat" 2>/dev/null | awk '{print $12 + $13}')
    [ -n "$ticks" ] || break
    used=$((ticks / hz))
    if [ "$used" -ge "$budget" ]; then
      kill -INT "$pid" 2>/dev/null
      break
    fi
    sleep 1
  done
  echo "$used"
}

total_runs=0
summary=""
for name in $names; do
  binary="$fuzz_build/fuzz/fuzz_$name"
  if [ ! -x "$binary" ]; then
    echo "run-fuzz: $binary not built (make fuzz-build)"; failed=1; continue
  fi
  corpus="$fuzz_build/corpus/$name"
  seed_dir="$fuzz_build/seeds/$name"
  rm -rf "$seed_dir"
  seeds "$name" "$seed_dir"
  mkdir -p "$corpus"
  log="$fuzz_build/fuzz-$name.log"
  before=$(ls "$findings_dir" | grep -c "^$name-")
  ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "$binary" -max_total_time="$((seconds * 4 + 60))" -timeout=5 -rss_limit_mb=2048 -max_len=65536 \
      -dict="$fuzz_build/fuzz/sql.dict" -artifact_prefix="$findings_dir/$name-" \
      -print_final_stats=1 "$corpus" "$seed_dir" >"$log" 2>&1 &
  pid=$!
  cpu=$(cpu_seconds_wait "$pid" "$seconds")
  wait "$pid"
  status=$?
  # 72 is libFuzzer's exit code when interrupted, which is how the budget ends
  if [ "$status" -eq 72 ] && grep -q "run interrupted" "$log"; then status=0; fi
  after=$(ls "$findings_dir" | grep -c "^$name-")
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  cov=$(grep -o 'cov: [0-9]* ft: [0-9]*' "$log" | tail -n 1)
  size=$(ls "$corpus" | wc -l)
  total_runs=$((total_runs + ${runs:-0}))
  line=$(printf '%-22s %10s runs in %s CPU-s, %s, corpus %s' "$name" "${runs:-?}" "$cpu" "${cov:-cov: ?}" "$size")
  if [ $status -ne 0 ] || [ "$after" -gt "$before" ]; then
    failed=1
    line="$line  FINDING (see $log, $findings_dir/$name-*)"
    grep -m 3 -E "ERROR: |SUMMARY: |runtime error|abort|round trip|contract" "$log" | sed 's/^/    /'
  fi
  echo "$line"
  summary="$summary$line"$'\n'
done

generator="$fuzz_build/tools/statement_generator"
if [ "$generator_seconds" -eq 0 ]; then
  echo "generator: not run (FUZZ_GENERATOR_SECONDS=0)"
elif [ -x "$generator" ]; then
  mkdir -p "$findings_dir/generator"
  log="$fuzz_build/generator.log"
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    timeout $((generator_seconds + 120)) "$generator" --seconds "$generator_seconds" \
      --seed "${FUZZ_SEED:-$(date +%s)}" --max-plan-ms "$plan_limit" \
      --save "$findings_dir/generator" >"$log" 2>&1
  status=$?
  head -n 1 "$log" | sed 's/^/generator: /'
  if [ $status -ne 0 ]; then
    failed=1
    echo "generator: FINDING (see $log)"
    grep -m 5 -E "ERROR: |SUMMARY: |runtime error|SLOW|more than 5 s" "$log" | sed 's/^/    /'
  fi
else
  echo "run-fuzz: $generator not built"; failed=1
fi
echo "fuzz: $total_runs executions over $(echo $names | wc -w) targets; findings: $([ $failed -eq 0 ] && echo none || echo yes, see above)"
exit $failed

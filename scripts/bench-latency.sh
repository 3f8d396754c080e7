#!/usr/bin/env bash
# bench-latency.sh - end-to-end latency of a GroupAggregate with mini-batch off
# and on (issue: "the end-to-end latency distribution (p50 / p99 with
# allow-latency respected)"). Prints a table; never fails on a figure.
#
# The job: a rate-limited datagen source (ROWS rows at RATE rows/s, keys drawn
# from 10 million so nearly every update reflects one input row), each row
# stamped with PROCTIME() as the source reads it; COUNT(*), MAX(stamp) GROUP BY
# key; a Calc stamping CURRENT_TIMESTAMP when the update reaches it; a
# debezium-json file sink. An update's latency is its second stamp minus its
# first: from the source reading the newest row it reflects to the aggregate's
# emission, as a user sees it downstream. Mini-batch runs with
# table.exec.mini-batch.size 50000 (Nexmark's), so the batches end at
# allow-latency; p99 should sit near allow-latency and never far above it.
#
# Usage: scripts/bench-latency.sh BUILD_DIR [ROWS] [RATE]
set -euo pipefail
build=${1:-build}
rows=${2:-100000}
rate=${3:-20000}
cd "$(dirname "$0")/.."
work="$build/bench-latency"
rm -rf "$work"
mkdir -p "$work"

run_case() { # label, SET lines
  local label=$1 settings=$2
  local out="$work/$label"
  cat >"$work/$label.sql" <<EOF
$settings
CREATE TABLE src (k INT, v INT, stamp AS PROCTIME()) WITH (
  'connector' = 'datagen', 'rows-per-second' = '$rate', 'number-of-rows' = '$rows',
  'fields.k.min' = '1', 'fields.k.max' = '10000000');
CREATE TABLE latency (k INT, n BIGINT, stamp TIMESTAMP_LTZ(3), emitted TIMESTAMP_LTZ(3)) WITH (
  'connector' = 'filesystem', 'path' = '$out', 'format' = 'debezium-json');
INSERT INTO latency
SELECT k, n, stamp, CURRENT_TIMESTAMP FROM (SELECT k, COUNT(*) AS n, MAX(stamp) AS stamp FROM src GROUP BY k);
EOF
  "$build/joinery" -f "$work/$label.sql" >"$work/$label.log" 2>&1 || {
    echo "| $label | could not run: $(tail -1 "$work/$label.log") |"
    return
  }
  python3 - "$label" "$out" "$rows" <<'EOF'
import datetime, glob, json, sys
label, folder, rows = sys.argv[1], sys.argv[2], int(sys.argv[3])
def millis(text):
    text = text.rstrip("Z")  # a whole second prints without its fraction
    shape = "%Y-%m-%d %H:%M:%S.%f" if "." in text else "%Y-%m-%d %H:%M:%S"
    return datetime.datetime.strptime(text, shape).timestamp() * 1000
latencies, changes = [], 0
for path in sorted(glob.glob(folder + "/part-*")):
    for line in open(path):
        record = json.loads(line)
        changes += 1
        after = record.get("after")
        if after:
            latencies.append(millis(after["emitted"]) - millis(after["stamp"]))
latencies.sort()
def pct(p):
    return latencies[min(len(latencies) - 1, int(p * len(latencies)))]
print(f"| {label} | {len(latencies)} | {changes / rows:.3f} | {pct(0.5):.0f} | {pct(0.99):.0f} | {latencies[-1]:.0f} |")
EOF
}

echo "$rows input rows at $rate rows/s, keys from 10,000,000; latency = emission - source read, ms"
echo
echo "| mini-batch | updates | changes / input row | p50 ms | p99 ms | max ms |"
echo "|---|---|---|---|---|---|"
run_case off ""
for latency in "100 ms" "500 ms" "2 s"; do
  run_case "allow-latency-${latency// /}" "SET 'table.exec.mini-batch.enabled' = 'true';
SET 'table.exec.mini-batch.allow-latency' = '$latency';
SET 'table.exec.mini-batch.size' = '50000';"
done

#!/usr/bin/env bash
# bench-kafka.sh - Kafka pipeline throughput (issue 4): messages/s of a
# kafka -> two-table join -> kafka job on kafka-mock, next to kcat's own
# consume rate of the same topic in the same run. Prints figures; never
# fails on a time threshold.
#
# Usage: scripts/bench-kafka.sh BUILD_DIR [ORDERS]   (default 200000 orders)
# The mock cluster keeps about 5 MiB per partition: the orders topic is
# spread over 16 partitions so that nothing is dropped.
set -euo pipefail
build=${1:-build}
orders=${2:-200000}
users=10000
cd "$(dirname "$0")/.."
work=$(mktemp -d)
mock_pid=""
cleanup() {
  [ -n "$mock_pid" ] && kill "$mock_pid" 2>/dev/null && wait "$mock_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

"$build/kafka-mock" --topic orders:16 --topic users:4 --topic enriched:16 >"$work/mock.out" 2>&1 &
mock_pid=$!
for _ in $(seq 1 100); do [ -s "$work/mock.out" ] && break; sleep 0.05; done
bootstrap=$(head -n 1 "$work/mock.out")

awk -v n="$orders" -v u="$users" 'BEGIN { for (i = 1; i <= n; i++)
  printf "{\"order_id\":%d,\"user_id\":%d,\"amount\":%d.%02d}\n", i, (i * 7919) % u + 1, i % 900, i % 100 }' \
  >"$work/orders.json"
awk -v u="$users" 'BEGIN { for (i = 1; i <= u; i++)
  printf "{\"user_id\":%d,\"user_name\":\"user_%d\"}\n", i, i }' >"$work/users.json"
kcat -P -b "$bootstrap" -t orders -l "$work/orders.json"
kcat -P -b "$bootstrap" -t users -l "$work/users.json"

now() { date +%s.%N; }
start=$(now)
consumed=$(kcat -C -b "$bootstrap" -t orders -o beginning -e -q | wc -l)
kcat_seconds=$(echo "$(now) - $start" | bc -l)

cat >"$work/pipeline.sql" <<SQL
CREATE TABLE orders (order_id BIGINT, user_id BIGINT, amount DECIMAL(10, 2)) WITH (
  'connector' = 'kafka', 'topic' = 'orders', 'properties.bootstrap.servers' = '$bootstrap',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset', 'format' = 'json');
CREATE TABLE users (user_id BIGINT, user_name STRING) WITH (
  'connector' = 'kafka', 'topic' = 'users', 'properties.bootstrap.servers' = '$bootstrap',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset', 'format' = 'json');
CREATE TABLE enriched (order_id BIGINT, user_name STRING, amount DECIMAL(10, 2)) WITH (
  'connector' = 'kafka', 'topic' = 'enriched', 'properties.bootstrap.servers' = '$bootstrap',
  'format' = 'json');
INSERT INTO enriched SELECT o.order_id, u.user_name, o.amount FROM orders AS o JOIN users AS u ON o.user_id = u.user_id;
SQL
start=$(now)
"$build/joinery" -f "$work/pipeline.sql" >"$work/pipeline.out" 2>&1 || { cat "$work/pipeline.out"; exit 1; }
joinery_seconds=$(echo "$(now) - $start" | bc -l)
written=$(grep -o '[0-9]* rows written' "$work/pipeline.out" | awk '{print $1}')

input=$((orders + users))
printf 'kcat consume of orders:        %8d messages in %6.2f s = %10.0f messages/s\n' \
  "$consumed" "$kcat_seconds" "$(echo "$consumed / $kcat_seconds" | bc -l)"
printf 'joinery kafka->join->kafka:    %8d messages in %6.2f s = %10.0f messages/s (%s rows written)\n' \
  "$input" "$joinery_seconds" "$(echo "$input / $joinery_seconds" | bc -l)" "$written"
printf 'ratio pipeline / kcat consume: %.2f (target >= 0.5)\n' \
  "$(echo "($input / $joinery_seconds) / ($consumed / $kcat_seconds)" | bc -l)"

#!/usr/bin/env bash
# The canary test of secrets: plants a distinct canary in every kind of
# sensitive option (each of Flink's sensitive key words, librdkafka's
# sensitive properties, a JAAS login, credentials inside the values of
# ordinary keys, hint options, SET) and checks that none of them comes out
# anywhere: SHOW CREATE TABLE, DESCRIBE, EXPLAIN, errors and the source line
# echoed under them (unknown options, an option given twice, syntax errors
# right at the secret, a comment between key and '='), SHOW JOB METRICS,
# the jdbc (MySQL, PostgreSQL) and redis connectors' connection errors,
# the failed Kafka job's error (a SASL login against build/kafka-mock, which
# refuses the SASL handshake, so delivery times out; the same table without
# the SASL options delivers, so the login did reach the client), each output mode
# (tableau, csv, json), and ~/.joinery_history after the same statements
# were typed into the shell on a pseudo-terminal. Each check also asserts
# that the statement did run (its result or its error is there), so the
# test cannot pass by printing nothing.
#
# Usage: tests/cli/secrets.sh [BUILD_DIR]   Prints "N passed, N failed".
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-build}
case "$BUILD" in /*) ;; *) BUILD="$ROOT/$BUILD" ;; esac
JOINERY="$BUILD/joinery"
MOCK="$BUILD/kafka-mock"
WORK=$(mktemp -d)
MOCK_PID=
cleanup() {
  [ -n "$MOCK_PID" ] && kill "$MOCK_PID" 2>/dev/null && wait "$MOCK_PID" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT
export HOME="$WORK/home"
mkdir -p "$HOME"
passed=0
failed=0
pass() { passed=$((passed + 1)); echo "ok   secrets: $1"; }
fail() {
  failed=$((failed + 1)); echo "FAIL secrets: $1"
  [ -n "${DETAIL:-}" ] && [ -f "$DETAIL" ] && sed 's/^/  | /' "$DETAIL" | head -40
  DETAIL=
}

"$MOCK" --topic canary_out:1 >"$WORK/mock.out" 2>"$WORK/mock.err" &
MOCK_PID=$!
for _ in $(seq 100); do [ -s "$WORK/mock.out" ] && break; sleep 0.1; done
BOOTSTRAP=$(head -n 1 "$WORK/mock.out")

# Every canary is CANARY_<name>; the script must print none of them.
cat >"$WORK/canary.sql" <<EOF
CREATE TABLE canary_kafka (id INT, name STRING) WITH (
  'connector' = 'kafka', 'topic' = 'canary_out', 'format' = 'json',
  'properties.bootstrap.servers' = '$BOOTSTRAP',
  'properties.message.timeout.ms' = '1500',
  'properties.security.protocol' = 'SASL_PLAINTEXT',
  'properties.sasl.mechanism' = 'PLAIN',
  'properties.sasl.jaas.config' = 'org.apache.kafka.common.security.plain.PlainLoginModule required username="CANARY_JAAS_USER" password="CANARY_JAAS_PASSWORD";',
  'properties.ssl.key.pem' = '-----BEGIN PRIVATE KEY-----
CANARY_PEM
-----END PRIVATE KEY-----',
  'properties.ssl.key.password' = 'CANARY_SSL_KEY_PASSWORD',
  'properties.ssl.keystore.password' = 'CANARY_KEYSTORE_PASSWORD',
  'properties.ssl.ca.pem' = 'CANARY_CA_PEM',
  'properties.sasl.oauthbearer.config' = 'principal=CANARY_OAUTH',
  'properties.client.id' = 'login password="CANARY_PASSWORD_IN_VALUE"',
  'properties.client.rack' = 'https://user:CANARY_URL_PASSWORD@example.com/'
);
SHOW CREATE TABLE canary_kafka;
DESCRIBE canary_kafka;
EXPLAIN SELECT * FROM canary_kafka;
EXPLAIN SELECT * FROM canary_kafka /*+ OPTIONS('properties.sasl.oauthbearer.config' = 'principal=CANARY_HINT') */;
INSERT INTO canary_kafka VALUES (1, 'public_row');
SHOW JOB METRICS;
CREATE TABLE plain_kafka (id INT, name STRING) WITH (
  'connector' = 'kafka', 'topic' = 'canary_out', 'format' = 'json',
  'properties.bootstrap.servers' = '$BOOTSTRAP', 'properties.message.timeout.ms' = '1500');
INSERT INTO plain_kafka VALUES (2, 'plain_row');
CREATE TABLE canary_u1 (a INT) WITH ('connector' = 'datagen', 'a.password' = 'CANARY_F_PASSWORD');
CREATE TABLE canary_u2 (a INT) WITH ('connector' = 'datagen', 'a.secret' = 'CANARY_F_SECRET');
CREATE TABLE canary_u3 (a INT) WITH ('connector' = 'datagen', 'fs.azure.account.key.x' = 'CANARY_F_AZURE');
CREATE TABLE canary_u4 (a INT) WITH ('connector' = 'datagen', 'a.apikey' = 'CANARY_F_APIKEY');
CREATE TABLE canary_u5 (a INT) WITH ('connector' = 'datagen', 'a.api-key' = 'CANARY_F_API_KEY');
CREATE TABLE canary_u6 (a INT) WITH ('connector' = 'datagen', 'a.auth-params' = 'CANARY_F_AUTH_PARAMS');
CREATE TABLE canary_u7 (a INT) WITH ('connector' = 'datagen', 'a.service-key' = 'CANARY_F_SERVICE_KEY');
CREATE TABLE canary_u8 (a INT) WITH ('connector' = 'datagen', 'a.token' = 'CANARY_F_TOKEN');
CREATE TABLE canary_u9 (a INT) WITH ('connector' = 'datagen', 'a.basic-auth' = 'CANARY_F_BASIC_AUTH');
CREATE TABLE canary_u10 (a INT) WITH ('connector' = 'datagen', 'a.jaas.config' = 'CANARY_F_JAAS');
CREATE TABLE canary_u11 (a INT) WITH ('connector' = 'datagen', 'a.http-headers' = 'CANARY_F_HEADERS');
CREATE TABLE canary_u12 (a INT) WITH ('connector' = 'datagen', 'properties.sasl.credentials' = 'CANARY_F_CREDENTIALS');
CREATE TABLE canary_u13 (a INT) WITH ('connector' = 'datagen', 'a.b' = 'https://u:CANARY_F_URL@h/');
CREATE TABLE canary_twice (a INT) WITH ('connector' = 'kafka', 'properties.ssl.key.password' = 'CANARY_TWICE_1', 'properties.ssl.key.password' = 'CANARY_TWICE_2');
CREATE TABLE canary_s1 (a INT) WITH ('connector' = 'datagen', 'properties.sasl.password' = 'CANARY_SYNTAX_1' 'x');
CREATE TABLE canary_s2 (a INT) WITH ('connector' = 'datagen', 'properties.sasl.password' 'CANARY_SYNTAX_2');
CREATE TABLE canary_s3 (a INT) WITH ('connector' = 'datagen', 'properties.sasl.password' /* c */ = 'CANARY_SYNTAX_3' 'x');
CREATE TABLE canary_s4 (a INT) WITH ('connector' = 'datagen', 'properties.sasl.password' = CANARY_SYNTAX_4);
SELECT * FROM canary_kafka /*+ OPTIONS('properties.sasl.password' = 'CANARY_SYNTAX_5' 'x') */;
SET 'properties.sasl.password' = 'CANARY_SET';
SET properties.sasl.password = CANARY_SET_BARE;
SET 'a.token' = 'CANARY_SAME_LINE'; SELECT nope FROM;
SET;
CREATE TABLE canary_mysql (a INT) WITH ('connector' = 'jdbc', 'url' = 'jdbc:mysql://127.0.0.1:1/db', 'table-name' = 't', 'username' = 'u', 'password' = 'CANARY_MYSQL');
SHOW CREATE TABLE canary_mysql;
EXPLAIN SELECT * FROM canary_mysql;
SELECT * FROM canary_mysql;
CREATE TABLE canary_pg (a INT) WITH ('connector' = 'jdbc', 'url' = 'jdbc:postgresql://127.0.0.1:1/db', 'table-name' = 't', 'password' = 'CANARY_PG');
SELECT * FROM canary_pg;
CREATE TABLE canary_jdbc_url (a INT) WITH ('connector' = 'jdbc', 'url' = 'jdbc:mariadb://u:CANARY_JDBC_URL@127.0.0.1:1/db', 'table-name' = 't');
CREATE TABLE canary_redis (k STRING, v STRING) WITH ('connector' = 'redis', 'host' = '127.0.0.1', 'port' = '1', 'username' = 'u', 'password' = 'CANARY_REDIS', 'command' = 'set');
SHOW CREATE TABLE canary_redis;
INSERT INTO canary_redis VALUES ('k', 'v');
CREATE TABLE canary_visible (a INT) WITH ('connector' = 'datagen', 'fields.a.kind' = 'VISIBLE_CONTROL');
EOF

for mode in tableau csv json; do
  timeout 60 "$JOINERY" --continue-on-error --output "$mode" -f "$WORK/canary.sql" \
    >"$WORK/$mode.out" 2>&1
  out="$WORK/$mode.out"
  # the statements ran: their results and errors are there
  ran=1
  for expected in "'properties.ssl.key.pem' = '******'" \
                  "'properties.sasl.jaas.config' = '******'" \
                  "'properties.client.rack' = '******'" \
                  "'topic' = 'canary_out'" \
                  "Failed to deliver a record to Kafka topic 'canary_out'" \
                  "Job finished: 1 rows written to plain_kafka" \
                  "Option 'properties.ssl.key.password' is given twice" \
                  "Syntax error: unexpected '******'" \
                  "Unknown option 'properties.sasl.password'" \
                  "SELECT nope FROM;" \
                  "cannot connect to MySQL at 127.0.0.1:1/db" \
                  "cannot connect to PostgreSQL at 127.0.0.1:1/db" \
                  "option 'url' must not hold credentials" \
                  "cannot connect to Redis at 127.0.0.1:1/0" \
                  "VISIBLE_CONTROL" "TableSourceScan" "Job: canary_kafka"; do
    if ! grep -qF -- "$expected" "$out"; then
      ran=0; echo "  missing in $mode: $expected"
    fi
  done
  leaks=$(grep -o 'CANARY_[A-Z0-9_]*' "$out" | sort -u | tr '\n' ' ')
  if [ -z "$leaks" ] && [ $ran -eq 1 ]; then
    pass "--output $mode: no canary in results, plans, metrics, errors or echoed lines"
  else
    [ -n "$leaks" ] && echo "  leaked in $mode: $leaks"
    DETAIL="$out" fail "--output $mode"
  fi
done

# the shell's history file, after the same statements were typed
cat >"$WORK/history.py" <<'EOF'
import os, sys
sys.path.insert(0, sys.argv[1])
import pty_test
joinery, home, script = sys.argv[2], sys.argv[3], sys.argv[4]
text = open(script, "rb").read()
statements = [s.strip() + b";" for s in text.split(b";\n") if s.strip()]
term = pty_test.Terminal(joinery, home)
try:
    term.expect(pty_test.PROMPT)
    for statement in statements:
        if statement.startswith(b"INSERT"):
            continue  # the failed delivery is checked in script mode
        start = term.mark()
        term.send(statement.replace(b"\n", b"\r") + b"\r")
        term.expect(pty_test.PROMPT, start + len(statement))
    term.send(b"QUIT;\r")
    assert term.wait_exit() == 0
finally:
    term.close()
EOF
if timeout 120 python3 "$WORK/history.py" "$ROOT/tests/cli" "$JOINERY" "$HOME" "$WORK/canary.sql" \
  >"$WORK/history.log" 2>&1; then
  history="$HOME/.joinery_history"
  leaks=$(grep -o 'CANARY_[A-Z0-9_]*' "$history" | sort -u | tr '\n' ' ')
  if [ -z "$leaks" ] && grep -qF "VISIBLE_CONTROL" "$history" && grep -qF "SHOW CREATE TABLE canary_kafka" "$history"; then
    pass "~/.joinery_history: statements with secrets left out, the others kept"
  else
    echo "  leaked into history: $leaks"
    DETAIL="$history" fail "~/.joinery_history"
  fi
else
  DETAIL="$WORK/history.log" fail "typing the canary statements into the shell"
fi

echo "secrets: $passed passed, $failed failed"
[ "$failed" -eq 0 ]

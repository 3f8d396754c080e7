#!/usr/bin/env bash
# Installs the Debian packages joinery needs to build and test, when missing.
# Runs as root, or through sudo. Quiet when everything is already there.
# clang and libclang-rt-dev (libFuzzer, the sanitizers) are for make fuzz.
set -euo pipefail
PACKAGES="build-essential pkg-config libreadline-dev libedit-dev librdkafka-dev liblmdb-dev
check libjsmn-dev libxxhash-dev libsqlite3-dev sqlite3 kcat lmdb-utils python3 bc time
clang libclang-rt-dev libpq-dev postgresql libmariadb-dev mariadb-server libhiredis-dev
redis-server"
missing=""
for p in $PACKAGES; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "installing:$missing"
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq $missing

#!/usr/bin/env bash
# tests/jdbc/postgres.sh - a real PostgreSQL server for the jdbc connector's
# tests, from Debian's `postgresql` package, in a temporary folder.
#
#   tests/jdbc/postgres.sh start    starts a server; prints `export` lines
#                                   (PGHOST PGPORT PGUSER PGPASSWORD PGDATABASE
#                                   JOINERY_PG_DIR JOINERY_PG_URL) to eval
#   tests/jdbc/postgres.sh stop DIR stops the server started in DIR, removes DIR
#   tests/jdbc/postgres.sh restart DIR   stops and starts it again (same port)
#   tests/jdbc/postgres.sh halt DIR      stops it, keeping DIR (fault tests)
#   tests/jdbc/postgres.sh resume DIR    starts a halted server again (same port)
#
# The server listens on 127.0.0.1 at a free port (password authentication,
# scram-sha-256, user `joinery` / password `joinery-secret`, database
# `joinery`) and on a unix socket in DIR. PostgreSQL refuses to run as root:
# as root the server runs as the unprivileged user `joinery-test` (created
# here when missing, no login shell), otherwise as the calling user.
# Exit status 2: PostgreSQL is not installed and cannot be (callers skip).
set -euo pipefail

find_bin() {
  local b
  b=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
  [ -n "$b" ] && [ -x "$b/initdb" ] && echo "$b"
}

as_server_user() {
  if [ "$(id -u)" = 0 ]; then runuser -u joinery-test -- "$@"; else "$@"; fi
}

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

start_server() { # dir
  local dir=$1 bin port
  bin=$(cat "$dir/bin")
  port=$(cat "$dir/port")
  as_server_user "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=$dir/socket -c fsync=off" \
    start >/dev/null
}

cmd=${1:-}
case "$cmd" in
start)
  bin=$(find_bin || true)
  if [ -z "$bin" ]; then
    if [ "$(id -u)" = 0 ] || command -v sudo >/dev/null; then
      SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
      DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq postgresql >/dev/null 2>&1 || true
    fi
    bin=$(find_bin || true)
    [ -n "$bin" ] || { echo "postgres.sh: PostgreSQL is not installed (apt-get install postgresql)" >&2; exit 2; }
  fi
  if [ "$(id -u)" = 0 ] && ! id joinery-test >/dev/null 2>&1; then
    useradd --system --no-create-home --shell /usr/sbin/nologin joinery-test
  fi
  dir=$(mktemp -d /tmp/joinery-pg.XXXXXX)
  chmod 755 "$dir"
  mkdir "$dir/socket"
  echo "$bin" >"$dir/bin"
  free_port >"$dir/port"
  printf 'joinery-secret\n' >"$dir/pwfile"
  [ "$(id -u)" = 0 ] && chown -R joinery-test "$dir"
  as_server_user "$bin/initdb" -D "$dir/data" -U joinery --pwfile="$dir/pwfile" \
    --auth-local=scram-sha-256 --auth-host=scram-sha-256 -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 ||
    { cat "$dir/initdb.log" >&2; exit 1; }
  start_server "$dir" || { cat "$dir/server.log" >&2; exit 1; }
  port=$(cat "$dir/port")
  PGPASSWORD=joinery-secret "$bin/psql" -h 127.0.0.1 -p "$port" -U joinery -d postgres -qAt \
    -c 'CREATE DATABASE joinery' >/dev/null
  cat <<ENV
export JOINERY_PG_DIR=$dir
export PGHOST=127.0.0.1
export PGPORT=$port
export PGUSER=joinery
export PGPASSWORD=joinery-secret
export PGDATABASE=joinery
export JOINERY_PG_URL=jdbc:postgresql://127.0.0.1:$port/joinery
ENV
  ;;
stop)
  dir=${2:?usage: postgres.sh stop DIR}
  [ -f "$dir/bin" ] || { echo "postgres.sh: $dir is not a server folder" >&2; exit 1; }
  as_server_user "$(cat "$dir/bin")/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
  rm -rf "$dir"
  ;;
halt)
  dir=${2:?usage: postgres.sh halt DIR}
  as_server_user "$(cat "$dir/bin")/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null
  ;;
resume)
  dir=${2:?usage: postgres.sh resume DIR}
  start_server "$dir"
  ;;
restart)
  dir=${2:?usage: postgres.sh restart DIR}
  as_server_user "$(cat "$dir/bin")/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null
  start_server "$dir"
  ;;
*)
  echo "usage: postgres.sh start | stop DIR | restart DIR | halt DIR | resume DIR" >&2
  exit 64
  ;;
esac

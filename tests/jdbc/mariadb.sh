#!/usr/bin/env bash
# tests/jdbc/mariadb.sh - a real MariaDB server for the jdbc connector's
# MySQL tests, from Debian's `mariadb-server` package, in a temporary folder.
#
#   tests/jdbc/mariadb.sh start      starts a server; prints `export` lines
#                                    (JOINERY_MYSQL_DIR JOINERY_MYSQL_PORT
#                                    JOINERY_MYSQL_URL JOINERY_MYSQL_SOCKET) to eval
#   tests/jdbc/mariadb.sh stop DIR   stops the server started in DIR, removes DIR
#   tests/jdbc/mariadb.sh restart DIR   stops and starts it again (same port)
#   tests/jdbc/mariadb.sh sql DIR    runs SQL from stdin as root (tests' setup)
#
# The server listens on 127.0.0.1 at a free port and on a unix socket in DIR
# (data, log and pid file there too). User `joinery` / password
# `joinery-secret` from any host, database `joinery`; root logs in on the
# socket only, without a password. The server never runs as root: as root
# it runs as the unprivileged user `joinery-test` (created here when
# missing, no login shell), otherwise as the calling user.
# Exit status 2: MariaDB is not installed and cannot be (callers skip).
set -euo pipefail

as_server_user() {
  if [ "$(id -u)" = 0 ]; then runuser -u joinery-test -- "$@"; else "$@"; fi
}

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

start_server() { # dir
  local dir=$1 port
  port=$(cat "$dir/port")
  # its own session (setsid): it outlives a caller whose process group is killed
  # when it ends (a Check test restarting the server)
  local runner=""
  [ "$(id -u)" = 0 ] && runner="runuser -u joinery-test --"
  # shellcheck disable=SC2086
  setsid -f $runner /usr/sbin/mariadbd --no-defaults --datadir="$dir/data" --socket="$dir/socket" \
    --port="$port" --bind-address=127.0.0.1 --pid-file="$dir/server.pid" \
    --log-error="$dir/server.log" --skip-log-bin --innodb-buffer-pool-size=16M \
    --innodb-log-file-size=8M --performance-schema=OFF --skip-name-resolve \
    --max-connections=200 --character-set-server=utf8mb4 \
    --collation-server=utf8mb4_general_ci --tmpdir="$dir/tmp" >/dev/null 2>&1 </dev/null
  for _ in $(seq 300); do
    if mariadb-admin --no-defaults -uroot --socket="$dir/socket" ping >/dev/null 2>&1; then
      return 0
    fi
    sleep 0.1
  done
  cat "$dir/server.log" >&2
  return 1
}

stop_server() { # dir
  local dir=$1 pid
  [ -f "$dir/server.pid" ] || return 0
  pid=$(cat "$dir/server.pid")
  mariadb-admin --no-defaults -uroot --socket="$dir/socket" shutdown >/dev/null 2>&1 ||
    kill "$pid" 2>/dev/null || true
  for _ in $(seq 300); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then kill -9 "$pid" 2>/dev/null || true; fi
  rm -f "$dir/server.pid"
}

cmd=${1:-}
case "$cmd" in
start)
  if [ ! -x /usr/sbin/mariadbd ] || ! command -v mariadb-install-db >/dev/null; then
    if [ "$(id -u)" = 0 ] || command -v sudo >/dev/null; then
      SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
      DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq mariadb-server >/dev/null 2>&1 || true
    fi
    [ -x /usr/sbin/mariadbd ] || { echo "mariadb.sh: MariaDB is not installed (apt-get install mariadb-server)" >&2; exit 2; }
  fi
  if [ "$(id -u)" = 0 ] && ! id joinery-test >/dev/null 2>&1; then
    useradd --system --no-create-home --shell /usr/sbin/nologin joinery-test
  fi
  dir=$(mktemp -d /tmp/joinery-mariadb.XXXXXX)
  chmod 755 "$dir"
  free_port >"$dir/port"
  mkdir "$dir/tmp" # the caller's TMPDIR may be closed to the server's user
  [ "$(id -u)" = 0 ] && chown -R joinery-test "$dir"
  TMPDIR="$dir/tmp" as_server_user mariadb-install-db --no-defaults --datadir="$dir/data" \
    --auth-root-authentication-method=normal --skip-test-db >"$dir/install.log" 2>&1 ||
    { cat "$dir/install.log" >&2; rm -rf "$dir"; exit 1; }
  start_server "$dir" || { stop_server "$dir"; rm -rf "$dir"; exit 1; }
  mariadb --no-defaults -uroot --socket="$dir/socket" <<'SQL'
CREATE DATABASE joinery;
CREATE USER 'joinery'@'%' IDENTIFIED BY 'joinery-secret';
GRANT ALL ON joinery.* TO 'joinery'@'%';
DELETE FROM mysql.global_priv WHERE User = '' OR (User = 'root' AND Host <> 'localhost');
FLUSH PRIVILEGES;
SQL
  port=$(cat "$dir/port")
  cat <<ENV
export JOINERY_MYSQL_DIR=$dir
export JOINERY_MYSQL_PORT=$port
export JOINERY_MYSQL_SOCKET=$dir/socket
export JOINERY_MYSQL_URL=jdbc:mysql://127.0.0.1:$port/joinery
ENV
  ;;
stop)
  dir=${2:?usage: mariadb.sh stop DIR}
  [ -f "$dir/port" ] || { echo "mariadb.sh: $dir is not a server folder" >&2; exit 1; }
  stop_server "$dir"
  rm -rf "$dir"
  ;;
restart)
  dir=${2:?usage: mariadb.sh restart DIR}
  stop_server "$dir"
  start_server "$dir"
  ;;
sql)
  dir=${2:?usage: mariadb.sh sql DIR}
  mariadb --no-defaults -uroot --socket="$dir/socket" --batch --skip-column-names joinery
  ;;
*)
  echo "usage: mariadb.sh start | stop DIR | restart DIR | sql DIR" >&2
  exit 64
  ;;
esac

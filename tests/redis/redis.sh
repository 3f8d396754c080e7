#!/usr/bin/env bash
# tests/redis/redis.sh - a real Redis server for the redis connector's
# tests, from Debian's `redis-server` package, in a temporary folder.
#
#   tests/redis/redis.sh start      starts a server; prints `export` lines
#                                   (JOINERY_REDIS_DIR JOINERY_REDIS_PORT
#                                   JOINERY_REDIS_PASSWORD) to eval
#   tests/redis/redis.sh stop DIR   stops the server started in DIR, removes DIR
#   tests/redis/redis.sh restart DIR   stops and starts it again (same port, same data)
#   tests/redis/redis.sh cli DIR ARGS...   redis-cli against it (the default user)
#
# The server listens on 127.0.0.1 at a free port, requires the password
# `joinery-secret` (requirepass, the default user) and knows the ACL user
# `joiner` with password `joiner-secret`; data survives a restart (an
# append-only file in DIR). As root
# it runs as the unprivileged user `joinery-test` (created when missing).
# Exit status 2: Redis is not installed and cannot be (callers skip).
set -euo pipefail

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

start_server() { # dir
  local dir=$1 runner=""
  [ "$(id -u)" = 0 ] && runner="runuser -u joinery-test --"
  # its own session: it outlives a caller whose process group is killed
  # shellcheck disable=SC2086
  setsid -f $runner redis-server "$dir/redis.conf" >/dev/null 2>&1 </dev/null
  for _ in $(seq 100); do
    if redis-cli -h 127.0.0.1 -p "$(cat "$dir/port")" --no-auth-warning -a joinery-secret ping 2>/dev/null | grep -q PONG; then
      return 0
    fi
    sleep 0.1
  done
  cat "$dir/server.log" >&2 2>/dev/null || true
  return 1
}

stop_server() { # dir
  local dir=$1 pid
  [ -f "$dir/server.pid" ] || return 0
  pid=$(cat "$dir/server.pid")
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 100); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -9 "$pid" 2>/dev/null || true
  rm -f "$dir/server.pid"
}

cmd=${1:-}
case "$cmd" in
start)
  if ! command -v redis-server >/dev/null; then
    if [ "$(id -u)" = 0 ] || command -v sudo >/dev/null; then
      SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
      DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq redis-server >/dev/null 2>&1 || true
    fi
    command -v redis-server >/dev/null || { echo "redis.sh: Redis is not installed (apt-get install redis-server)" >&2; exit 2; }
  fi
  if [ "$(id -u)" = 0 ] && ! id joinery-test >/dev/null 2>&1; then
    useradd --system --no-create-home --shell /usr/sbin/nologin joinery-test
  fi
  dir=$(mktemp -d /tmp/joinery-redis.XXXXXX)
  chmod 755 "$dir"
  port=$(free_port)
  echo "$port" >"$dir/port"
  cat >"$dir/redis.conf" <<CONF
bind 127.0.0.1
port $port
dir $dir
pidfile $dir/server.pid
logfile $dir/server.log
daemonize no
save ""
appendfsync no
appendonly yes
requirepass joinery-secret
user joiner on >joiner-secret ~* &* +@all
CONF
  [ "$(id -u)" = 0 ] && chown -R joinery-test "$dir"
  start_server "$dir" || { stop_server "$dir"; rm -rf "$dir"; exit 1; }
  cat <<ENV
export JOINERY_REDIS_DIR=$dir
export JOINERY_REDIS_PORT=$port
export JOINERY_REDIS_PASSWORD=joinery-secret
ENV
  ;;
stop)
  dir=${2:?usage: redis.sh stop DIR}
  [ -f "$dir/port" ] || { echo "redis.sh: $dir is not a server folder" >&2; exit 1; }
  stop_server "$dir"
  rm -rf "$dir"
  ;;
restart)
  dir=${2:?usage: redis.sh restart DIR}
  stop_server "$dir"
  start_server "$dir"
  ;;
cli)
  dir=${2:?usage: redis.sh cli DIR ARGS...}
  shift 2
  redis-cli -h 127.0.0.1 -p "$(cat "$dir/port")" --no-auth-warning -a joinery-secret "$@"
  ;;
*)
  echo "usage: redis.sh start | stop DIR | restart DIR | cli DIR ARGS..." >&2
  exit 64
  ;;
esac

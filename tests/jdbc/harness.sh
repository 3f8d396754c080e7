# tests/jdbc/harness.sh - the set-up every end-to-end script against a real
# store server shares (tests/jdbc/run.sh, tests/jdbc/mysql.sh,
# tests/redis/run.sh, tests/lookup/run.sh, scripts/bench-lookup.sh). Sourced,
# not run:
#
#   . "$(dirname "$0")/../jdbc/harness.sh"   (with the script's arguments)
#   harness_init NAME                  NAME in messages ("tests/jdbc"); sets
#                                      ROOT, BUILD (first argument, default
#                                      build), JOINERY, WORK (a fresh folder),
#                                      passed / failed; checks JOINERY exists
#   harness_start SCRIPT PRODUCT       runs `SCRIPT start` (tests/jdbc/postgres.sh,
#                                      tests/jdbc/mariadb.sh, tests/redis/redis.sh),
#                                      evals its export lines and stops the server
#                                      at exit (`SCRIPT stop DIR`); returns 2 when
#                                      PRODUCT cannot be installed (the reason in
#                                      $HARNESS_SKIPPED), exits on another failure
#   harness_start_or_skip SCRIPT PRODUCT   the same; exits 0 with a "skip" line
#   pass TEXT / fail TEXT              counts and prints a case (fail shows $DETAIL)
#   harness_finish                     prints "N passed, N failed"; its status
#
# At exit every server started is stopped and WORK removed (kept with KEEP=1);
# a script's own clean-up goes in a function harness_cleanup_extra.
set -u

harness_init() {
  HARNESS_NAME=$1
  ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd) # the repository, for any caller
  BUILD=${HARNESS_BUILD:-build}
  case "$BUILD" in /*) ;; *) BUILD="$ROOT/$BUILD" ;; esac
  JOINERY="$BUILD/joinery"
  passed=0
  failed=0
  HARNESS_STOPS=()
  WORK=$(mktemp -d "/tmp/joinery-$(echo "$HARNESS_NAME" | tr '/.' '--').XXXXXX")
  chmod 755 "$WORK"
  trap harness_cleanup EXIT
  [ -x "$JOINERY" ] || {
    echo "$HARNESS_NAME: $JOINERY not found (run make first)"; echo "0 passed, 1 failed"; exit 1; }
}

harness_cleanup() {
  if declare -F harness_cleanup_extra >/dev/null; then harness_cleanup_extra; fi
  local stop
  for stop in "${HARNESS_STOPS[@]}"; do eval "$stop"; done
  [ -n "${KEEP:-}" ] || rm -rf "$WORK"
}

pass() { passed=$((passed + 1)); echo "ok   $1"; }
fail() {
  failed=$((failed + 1)); echo "FAIL $1"
  [ -n "${DETAIL:-}" ] && [ -f "$DETAIL" ] && sed 's/^/  | /' "$DETAIL" | head -40
  DETAIL=
}

harness_start() { # SCRIPT PRODUCT
  local script=$1 product=$2 lines rc dir_var
  lines=$("$ROOT/$script" start 2>"$WORK/start.err")
  rc=$?
  if [ $rc = 2 ]; then
    HARNESS_SKIPPED="$product cannot be installed: $(cat "$WORK/start.err")"
    return 2
  elif [ $rc != 0 ]; then
    cat "$WORK/start.err"; echo "0 passed, 1 failed"; exit 1
  fi
  eval "$lines"
  # the first exported name ending in _DIR is the server's folder
  dir_var=$(printf '%s\n' "$lines" | sed -n 's/^export \([A-Z_]*_DIR\)=.*/\1/p' | head -1)
  HARNESS_STOPS+=("\"\$ROOT/$script\" stop \"\$$dir_var\"")
  return 0
}

harness_start_or_skip() { # SCRIPT PRODUCT
  harness_start "$1" "$2"
  if [ $? = 2 ]; then
    echo "skip $HARNESS_NAME ($HARNESS_SKIPPED)"
    exit 0
  fi
}

harness_finish() {
  echo "$passed passed, $failed failed"
  [ "$failed" = 0 ]
}

HARNESS_BUILD=${1:-build}

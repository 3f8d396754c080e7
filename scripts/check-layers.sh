#!/usr/bin/env bash
# check-layers.sh - fails when a quoted #include crosses a layer the wrong
# way (engine/README.md draws the layers). Run from anywhere; prints every
# violation as "file:line: includes X (rule)" and exits 1 when there is one.
#
# Each folder may include only the paths its rule allows (extended regular
# expressions, matched against the whole include path). Headers named
# *_internal.h may be included only from their own folder. tests/, bench/
# and tools/ may include anything.
set -u
cd "$(dirname "$0")/.."

h='[A-Za-z0-9_]+\.h'
base="engine/base/$h"
catalog="catalog/$h"
violations=0

# includes FIND-ARGS...: every quoted #include of the .c/.h files find
# selects, as "file:line:path".
includes() {
  find "$@" -type f \( -name '*.c' -o -name '*.h' \) -print0 |
    xargs -0 -r grep -HnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' |
    sed -E 's/^([^:]+):([0-9]+):[[:space:]]*#[[:space:]]*include[[:space:]]*"([^"]+)".*/\1:\2:\3/'
}

# report LINES: prints the violations (one a line) and counts them.
report() {
  [ -n "$1" ] || return 0
  printf '%s\n' "$1"
  violations=$((violations + $(printf '%s\n' "$1" | wc -l)))
}

# check DIR ALLOWED DESCRIPTION: files directly under DIR (or below it when
# DIR ends with /) may include only paths matching ALLOWED.
check() {
  local dir=$1 allowed=$2 description=$3 depth=()
  [[ $dir == */ ]] || depth=(-maxdepth 1)
  # the pattern through the environment: awk -v would read its backslashes as escapes
  report "$(includes "$dir" "${depth[@]}" |
    ALLOWED="^($allowed)\$" WHY="$description" awk -F: \
      '$3 !~ ENVIRON["ALLOWED"] { print $1 ":" $2 ": includes " $3 " [" ENVIRON["WHY"] "]" }')"
}

check cli/ "cli/$h|engine/engine\.h" "cli/ includes only engine/engine.h"
check catalog/ "$catalog|$base" "catalog/ includes only engine/base"
check engine/base/ "$base" "engine/base/ is the bottom layer"
check engine/sql/ "engine/sql/$h|$base" "engine/sql/ includes only engine/base"
check engine/state/ "engine/state/$h|$base" "engine/state/ includes only engine/base"
check engine/format/ "engine/format/$h|$base|$catalog" \
  "engine/format/ includes nothing from exec/ or plan/"
check engine/connector/ "engine/connector/$h|engine/format/$h|$base|$catalog" \
  "engine/connector/ includes nothing from exec/ or plan/"
check engine/udf/ "engine/udf/$h|$base" "engine/udf/ includes only engine/base"
check engine/plan/ "engine/plan/([a-z_]+/)?$h|engine/connector/$h|engine/sql/$h|engine/udf/$h|$base|$catalog" \
  "engine/plan/ includes nothing from exec/, state/ or stmt/"
check engine/exec/ "engine/exec/([a-z_]+/)?$h|engine/plan/([a-z_]+/)?$h|engine/state/$h|engine/connector/$h|engine/udf/$h|$base|$catalog" \
  "engine/exec/ includes nothing from stmt/"
check engine/stmt/ "engine/(stmt|exec(/[a-z_]+)?|plan(/[a-z_]+)?|state|connector|format|sql|udf|base)/$h|engine/engine\.h|$catalog" \
  "engine/stmt/ includes the engine, never cli/"
check engine "" "engine/engine.h includes no engine header"

# private headers: only from their own folder
report "$(includes cli catalog engine |
  awk -F: '$3 ~ /_internal\.h$/ { file = $1; inc = $3; sub(/\/[^\/]*$/, "", file);
             sub(/\/[^\/]*$/, "", inc);
             if (file != inc) print $1 ":" $2 ": includes " $3 " [*_internal.h only from its own folder]" }')"

if [ "$violations" -gt 0 ]; then
  echo "check-layers: $violations include(s) break the layer rules"
  exit 1
fi
echo "check-layers: ok"

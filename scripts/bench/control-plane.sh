#!/usr/bin/env bash
# Control-plane benchmark entry point: builds, starts a throwaway PostgreSQL, then runs
# dist/scripts/bench/control-plane.js against SQLite and PostgreSQL (table on stdout, progress on stderr).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."

for tool in node npm; do
  command -v "$tool" >/dev/null || { echo "bench: $tool not found" >&2; exit 1; }
done
for dep in autocannon pg; do
  [ -d "node_modules/$dep" ] || { echo "bench: node_modules/$dep is missing; run npm ci" >&2; exit 1; }
done

echo "bench: building" >&2
npm run build >&2

[ -f dist/scripts/bench/control-plane.js ] || { echo "bench: dist/scripts/bench/control-plane.js was not built" >&2; exit 1; }
[ -f dist/server/main.js ] || { echo "bench: dist/server/main.js was not built" >&2; exit 1; }

echo "bench: starting PostgreSQL" >&2
bench_cleanup() {
  if declare -F ferry_pg_stop >/dev/null; then
    ferry_pg_stop
  elif [ -n "${FERRY_PG_DIR:-}" ]; then
    rm -rf "$FERRY_PG_DIR"
  fi
}
trap bench_cleanup EXIT
# shellcheck source=../setup/postgres.sh
source scripts/setup/postgres.sh
[ -n "${FERRY_PG_URL:-}" ] || { echo "bench: scripts/setup/postgres.sh did not export FERRY_PG_URL" >&2; exit 1; }

FERRY_PG_URL="$FERRY_PG_URL" node dist/scripts/bench/control-plane.js

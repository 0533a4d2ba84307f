#!/usr/bin/env bash
# Runs every Ferry test on a fresh machine: installs what the tests need (Debian packages,
# npm dependencies), builds, checks lint/types/format, starts a throwaway PostgreSQL, and runs
# the whole suite on SQLite and on PostgreSQL. Exits non-zero when anything fails or is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "$(id -u)" -ne 0 ]; then
  echo "test: run as root: the suite installs Debian packages and builds network namespaces" >&2
  exit 1
fi

bash scripts/setup/system-packages.sh
bash scripts/setup/node-deps.sh

echo "test: lint, types, format" >&2
npx --no-install eslint .
npx --no-install tsc -p tsconfig.json --noEmit
npx --no-install prettier --check . >/dev/null || { npx --no-install prettier --check . ; exit 1; }

# shellcheck source=setup/postgres.sh
source scripts/setup/postgres.sh
trap ferry_pg_stop EXIT

mkdir -p .test-output
report=.test-output/vitest.json
rm -f "$report"
status=0
FERRY_TEST_DATABASE_URL="$FERRY_PG_URL" FERRY_REQUIRE_POSTGRES=1 FERRY_PG_BIN="$FERRY_PG_BIN" \
  npx --no-install vitest run --reporter=default --reporter=json --outputFile.json="$report" "$@" || status=$?

if [ ! -f "$report" ]; then
  echo "test: vitest wrote no report" >&2
  exit 1
fi
# A skipped test hides a missing prerequisite: it counts as a failure here.
node -e '
  const r = require(process.argv[1]);
  const skipped = r.numPendingTests + r.numTodoTests;
  console.log(`vitest: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${skipped} skipped`);
  if (r.numTotalTests === 0) { console.error("test: no test ran"); process.exit(1); }
  if (skipped > 0) { console.error("test: skipped tests count as failures"); process.exit(1); }
' "$PWD/$report" || status=1
exit "$status"

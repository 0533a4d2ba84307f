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

# Each stage says how long the run has taken so far (bash's SECONDS), to see where the time goes.
stage() { echo "test: [$((SECONDS / 60))m$((SECONDS % 60))s] $*" >&2; }

bash scripts/setup/system-packages.sh
bash scripts/setup/node-deps.sh --native
# A fresh clone has no objects: ccache keeps the compiler's results (release and sanitizer
# builds) between runs on this machine, so only what changed is compiled again, whichever
# directory the clone is in (the sources are compiled by relative paths).
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
stage "the native addon's C++ tests, engine tests and test vectors"
make -s -j2 -C native CXX="ccache g++" test
stage "the C++ tests under ThreadSanitizer and AddressSanitizer+UBSan"
make -s -j2 -C native CXX="ccache g++" sanitize

stage "lint, types, format"
npx --no-install eslint .
npx --no-install tsc -p tsconfig.json --noEmit
npx --no-install tsc -p renderer/tsconfig.json --noEmit
npx --no-install prettier --check . >/dev/null || { npx --no-install prettier --check . ; exit 1; }

# shellcheck source=setup/postgres.sh
source scripts/setup/postgres.sh
trap ferry_pg_stop EXIT

mkdir -p .test-output
rm -f .test-output/*.json
status=0
run_vitest() { # name, vitest args...
  local name=$1
  shift
  FERRY_TEST_DATABASE_URL="$FERRY_PG_URL" FERRY_REQUIRE_POSTGRES=1 FERRY_PG_BIN="$FERRY_PG_BIN" \
    npx --no-install vitest run --reporter=default --reporter=json --outputFile.json=".test-output/$name.json" "$@" || status=$?
}
if [ $# -gt 0 ]; then
  run_vitest selected "$@"
else
  # Unit and API tests in parallel. The namespace end-to-end tests two files at a time (each
  # builds a test internet of its own: its own subnets, namespaces and interface names), but
  # those that measure throughput one at a time, so that they do not compete for the two cores.
  throughput=(e2e/netns/ferry-tunnel.test.ts e2e/netns/ferry-tcp.test.ts
    e2e/netns/netcli-two-devices.test.ts e2e/netns/relay-devices.test.ts
    e2e/netns/relay-ferry-plan.test.ts e2e/netns/phone-wg-quick.test.ts)
  stage "unit and API tests (SQLite and PostgreSQL)"
  # Every test beside the code (contracts, server, relay, native, engine, cli, electron,
  # renderer, scripts): all of vitest.config.ts's files but the namespace ones.
  run_vitest unit --exclude 'e2e/**'
  stage "namespace end-to-end tests, two at a time"
  run_vitest e2e e2e/ $(printf -- '--exclude %s ' "${throughput[@]}") --exclude 'e2e/netns/autopilot/**'
  # The transport autopilot behind the censor, a case per file: each holds a connection through
  # a minute of light traffic, so five run at a time.
  stage "the transport autopilot behind the censor, five cases at a time"
  run_vitest e2e-autopilot e2e/netns/autopilot/ --maxWorkers 5
  stage "namespace end-to-end tests that measure throughput, one at a time"
  run_vitest e2e-throughput "${throughput[@]}" --no-file-parallelism
  stage "all suites ran"
fi

# A skipped test hides a missing prerequisite: it counts as a failure here.
node -e '
  const fs = require("fs");
  const files = fs.readdirSync(".test-output").filter((f) => f.endsWith(".json"));
  if (files.length === 0) { console.error("test: vitest wrote no report"); process.exit(1); }
  let passed = 0, failed = 0, skipped = 0, total = 0;
  for (const f of files) {
    const r = JSON.parse(fs.readFileSync(".test-output/" + f, "utf8"));
    passed += r.numPassedTests; failed += r.numFailedTests; total += r.numTotalTests;
    skipped += r.numPendingTests + r.numTodoTests;
  }
  console.log(`vitest: ${passed} passed, ${failed} failed, ${skipped} skipped`);
  if (total === 0) { console.error("test: no test ran"); process.exit(1); }
  if (skipped > 0) { console.error("test: skipped tests count as failures"); process.exit(1); }
  if (failed > 0) process.exit(1);
' || status=1
exit "$status"

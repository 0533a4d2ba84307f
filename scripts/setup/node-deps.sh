#!/usr/bin/env bash
# Installs the npm dependencies (npm ci) when they are missing or stale, then builds.
set -euo pipefail
cd "$(dirname "$0")/../.."

if [ ! -f node_modules/.package-lock.json ] || ! cmp -s <(node -e 'const l=require("./package-lock.json");delete l.name;console.log(JSON.stringify(l.packages))') \
  <(node -e 'const l=require("./node_modules/.package-lock.json");console.log(JSON.stringify(Object.fromEntries(Object.entries(l.packages))))') 2>/dev/null; then
  echo "setup: npm ci" >&2
  # The Electron binary cannot be downloaded on our machines; its types install without it.
  ELECTRON_SKIP_BINARY_DOWNLOAD=1 npm ci --no-audit --no-fund >&2
fi
echo "setup: building" >&2
npm run --silent build >&2

#!/usr/bin/env bash
# Installs the npm dependencies (npm ci) when they are missing or older than package-lock.json,
# then builds the TypeScript.
set -euo pipefail
cd "$(dirname "$0")/../.."

stamp=node_modules/.ferry-lock-sha256
want="$(sha256sum package-lock.json | cut -d' ' -f1)"
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "setup: npm ci" >&2
  # The Electron binary cannot be downloaded on our machines; its types install without it.
  ELECTRON_SKIP_BINARY_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error >&2
  echo "$want" >"$stamp"
fi
echo "setup: building" >&2
npm run --silent build >&2

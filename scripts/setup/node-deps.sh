#!/usr/bin/env bash
# Installs the npm dependencies (npm ci) when they are missing or older than package-lock.json,
# then builds the TypeScript and, with --native, the native addon.
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
# With --native, the addon too (the Ferry data plane; needs libssl-dev): rebuilt when a source is
# newer than the build.
[ "${1:-}" = --native ] || exit 0
addon=native/build/Release/ferry_native.node
if [ ! -f "$addon" ] || [ -n "$(find native/src native/binding.gyp -newer "$addon" -print -quit)" ]; then
  echo "setup: building the native addon" >&2
  npm run --silent build:native >/dev/null
fi

#!/usr/bin/env bash
# Relay benchmark entry point: builds, then runs dist/scripts/bench/relay.js on a namespace
# testbed (feed apply at 10k/100k peers, change propagation, iperf3 through the relay).
# Results table on stdout, progress on stderr; any missing tool or failed step exits non-zero.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."

[[ $EUID -eq 0 ]] || { echo "bench: must run as root (network namespaces, nftables)" >&2; exit 1; }
for tool in node npm ip nft wireguard-go wg iperf3 curl sysctl; do
  command -v "$tool" >/dev/null || { echo "bench: required tool missing: $tool" >&2; exit 1; }
done
[ -d node_modules/better-sqlite3 ] || { echo "bench: node_modules/better-sqlite3 is missing; run npm ci" >&2; exit 1; }

echo "bench: building" >&2
npm run build >&2

for f in dist/scripts/bench/relay.js dist/relay/main.js dist/server/main.js; do
  [ -f "$f" ] || { echo "bench: $f was not built" >&2; exit 1; }
done

exec node dist/scripts/bench/relay.js

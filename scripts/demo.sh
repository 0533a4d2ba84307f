#!/usr/bin/env bash
# `npm run demo`: installs what the tour needs, builds, and runs it (as root: it builds namespaces).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(id -u)" -ne 0 ]; then
  echo "demo: run as root (it creates network namespaces)" >&2
  exit 1
fi
bash scripts/setup/system-packages.sh iproute2 iputils-ping nftables wireguard-go wireguard-tools curl procps
bash scripts/setup/node-deps.sh
exec node dist/scripts/demo.js

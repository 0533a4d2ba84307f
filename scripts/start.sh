#!/usr/bin/env bash
# Runs the Ferry service on this machine: installs and builds what it needs, then starts the
# control plane on embedded SQLite with the seeded regions, in the foreground until Ctrl-C.
# Environment: FERRY_PORT (8080), FERRY_HOST (127.0.0.1), FERRY_DATA_DIR (./.ferry-data),
# FERRY_ADMIN_TOKEN (generated into the data dir when unset).
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup/node-deps.sh

data_dir="${FERRY_DATA_DIR:-.ferry-data}"
mkdir -p "$data_dir"
chmod 700 "$data_dir"
if [ -z "${FERRY_ADMIN_TOKEN:-}" ]; then
  token_file="$data_dir/admin-token"
  if [ ! -s "$token_file" ]; then
    (umask 077 && node -e 'console.log(require("crypto").randomBytes(24).toString("base64url"))' >"$token_file")
  fi
  FERRY_ADMIN_TOKEN="$(cat "$token_file")"
  echo "start: admin token in $token_file" >&2
fi
export FERRY_ADMIN_TOKEN

exec bin/ferry-server --host "${FERRY_HOST:-127.0.0.1}" --port "${FERRY_PORT:-8080}" --data-dir "$data_dir" "$@"

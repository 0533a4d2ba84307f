#!/usr/bin/env bash
# Runs the Ferry service on this machine: installs and builds what it needs, then starts the
# control plane on embedded SQLite with the seeded regions and, as root, a local relay in the
# `global` region (wireguard-go, NAT out of the default route's interface). Foreground until Ctrl-C.
# The API is served over HTTPS: with FERRY_TLS_CERT and FERRY_TLS_KEY (a certificate of a public
# CA, say), or else with a certificate of a private CA made in the data dir (tls/ca.pem is what
# clients trust: netcli init --ca-file), for this machine's names and addresses (FERRY_TLS_NAMES
# adds more, space-separated).
# Environment: FERRY_PORT (8080), FERRY_HOST (127.0.0.1), FERRY_DATA_DIR (./.ferry-data),
# FERRY_ADMIN_TOKEN (generated into the data dir when unset), FERRY_RELAY=0 to run no relay,
# FERRY_RELAY_PORT (51820), FERRY_FERRY_PORT (51900).
set -euo pipefail
cd "$(dirname "$0")/.."

relay_wanted="${FERRY_RELAY:-1}"
if [ "$relay_wanted" = 1 ] && [ "$(id -u)" -ne 0 ]; then
  echo "start: not root: running the control plane without the local relay (FERRY_RELAY=0 hides this)" >&2
  relay_wanted=0
fi
if [ "$relay_wanted" = 1 ]; then
  bash scripts/setup/system-packages.sh iproute2 nftables wireguard-go wireguard-tools procps libssl-dev openssl curl
elif [ -z "${FERRY_TLS_CERT:-}" ]; then
  bash scripts/setup/system-packages.sh openssl curl
fi
if [ "$relay_wanted" = 1 ]; then bash scripts/setup/node-deps.sh --native; else bash scripts/setup/node-deps.sh; fi

data_dir="${FERRY_DATA_DIR:-.ferry-data}"
host="${FERRY_HOST:-127.0.0.1}"
port="${FERRY_PORT:-8080}"
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

# The default route's interface: the local relay's uplink, and an address clients may use.
uplink="$(ip -4 route show default 2>/dev/null | awk '{for (i = 1; i < NF; i++) if ($i == "dev") {print $(i + 1); exit}}')"
uplink_address=""
[ -n "$uplink" ] && uplink_address="$(ip -4 -o address show dev "$uplink" | awk '{split($4, a, "/"); print a[1]; exit}')"

if [ -n "${FERRY_TLS_CERT:-}" ] || [ -n "${FERRY_TLS_KEY:-}" ]; then
  tls_cert="${FERRY_TLS_CERT:?FERRY_TLS_CERT and FERRY_TLS_KEY go together}"
  tls_key="${FERRY_TLS_KEY:?FERRY_TLS_CERT and FERRY_TLS_KEY go together}"
  ca_file=""
else
  names=(localhost 127.0.0.1 "$(hostname)")
  [ "$host" != 0.0.0.0 ] && [ "$host" != 127.0.0.1 ] && names+=("$host")
  [ -n "$uplink_address" ] && names+=("$uplink_address")
  # shellcheck disable=SC2206
  names+=(${FERRY_TLS_NAMES:-})
  bash scripts/setup/tls-cert.sh "$data_dir/tls" "${names[@]}"
  tls_cert="$data_dir/tls/server.pem"
  tls_key="$data_dir/tls/server.key"
  ca_file="$data_dir/tls/ca.pem"
fi
server_args=(--host "$host" --port "$port" --data-dir "$data_dir" --tls-cert "$tls_cert" --tls-key "$tls_key")
# What clients type (the address a client on another machine uses, when listening beyond loopback).
client_host="$host"
[ "$host" = 0.0.0.0 ] && client_host="${uplink_address:-127.0.0.1}"
init_hint="netcli init --endpoint https://$client_host:$port/api/v1${ca_file:+ --ca-file $ca_file}"

if [ "$relay_wanted" = 0 ]; then
  echo "start: control plane on https://$host:$port; clients: $init_hint" >&2
  exec bin/ferry-server "${server_args[@]}" "$@"
fi

pids=()
stop() {
  trap - INT TERM EXIT
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap stop INT TERM EXIT

bin/ferry-server "${server_args[@]}" "$@" &
pids+=($!)
local_host="$host"
[ "$host" = 0.0.0.0 ] && local_host=127.0.0.1
control_url="https://$local_host:$port"
ca_args=()
[ -n "$ca_file" ] && ca_args=(--cacert "$ca_file")
for _ in $(seq 1 100); do
  curl -sf "${ca_args[@]}" "$control_url/api/v1/health" >/dev/null 2>&1 && break
  sleep 0.1
done
curl -sf "${ca_args[@]}" "$control_url/api/v1/health" >/dev/null || {
  echo "start: the control plane did not come up" >&2
  exit 1
}

# The local relay: a node in `global` reachable at the address of the default route's interface.
if [ -z "$uplink" ]; then
  echo "start: no default route: the local relay needs an uplink; running the control plane only" >&2
  wait "${pids[0]}"
  exit $?
fi
endpoint="$uplink_address"
relay_port="${FERRY_RELAY_PORT:-51820}"
# WireGuard takes relay_port and one port per 65,536 devices above it; Ferry sits clear of them.
ferry_port="${FERRY_FERRY_PORT:-51900}"
node_file="$data_dir/local-relay.node-token"
if [ ! -s "$node_file" ]; then
  # Through the typed client: the admin token stays in the environment, out of the process list.
  (umask 077 && NODE_EXTRA_CA_CERTS="$ca_file" node dist/scripts/add-node.js --control-url "$control_url" --region global \
    --endpoint-host "$endpoint" --wireguard-port "$relay_port" --ferry-port "$ferry_port" \
    --capacity-mbps 1000 >"$node_file")
fi
FERRY_NODE_TOKEN="$(cat "$node_file")" bin/ferry-relay --control-url "$control_url" ${ca_file:+--ca-file "$ca_file"} \
  --wireguard-port "$relay_port" --ferry-port "$ferry_port" --uplink "$uplink" --state-dir "$data_dir/relay" --interface ferry0 &
pids+=($!)
echo "start: control plane on https://$host:$port, local relay $endpoint (global; WireGuard $relay_port, Ferry $ferry_port) via $uplink" >&2
echo "start: clients: $init_hint" >&2
wait -n

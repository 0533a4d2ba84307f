#!/usr/bin/env bash
# Makes a private certificate authority and a control-plane certificate signed by it, with
# OpenSSL: for start.sh (a service on this machine) and the namespace tests. A real deployment
# gives ferry-server a certificate of a public CA instead (--tls-cert, --tls-key).
# Usage: scripts/setup/tls-cert.sh DIR NAME [NAME...]   (NAME: an IP address or a DNS name)
# Writes DIR/ca.pem (give it to clients: netcli init --ca-file, ferry-relay --ca-file),
# DIR/ca.key, DIR/server.pem and DIR/server.key (keys 0600). The CA is kept across runs; the
# server certificate is made again when the names change.
set -euo pipefail

if [ $# -lt 2 ]; then
  echo "usage: $0 DIR NAME [NAME...]" >&2
  exit 2
fi
dir=$1
shift
command -v openssl >/dev/null || {
  echo "tls-cert: openssl is missing (Debian: apt-get install openssl)" >&2
  exit 1
}
mkdir -p "$dir"
chmod 700 "$dir"

sans=()
for name in "$@"; do
  if [[ $name =~ ^[0-9.]+$ || $name == *:* ]]; then sans+=("IP:$name"); else sans+=("DNS:$name"); fi
done
san_list=$(
  IFS=,
  echo "${sans[*]}"
)

umask 077
if [ ! -s "$dir/ca.pem" ] || [ ! -s "$dir/ca.key" ]; then
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 3650 \
    -subj "/CN=Ferry private CA $(hostname)" -keyout "$dir/ca.key" -out "$dir/ca.pem" \
    -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign \
    2>/dev/null
  rm -f "$dir/server.pem"
fi
if [ ! -s "$dir/server.pem" ] || [ "$(cat "$dir/server.names" 2>/dev/null)" != "$san_list" ]; then
  openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=$1" \
    -keyout "$dir/server.key" -out "$dir/server.csr" 2>/dev/null
  printf 'subjectAltName=%s\nbasicConstraints=critical,CA:FALSE\nextendedKeyUsage=serverAuth\nkeyUsage=critical,digitalSignature\n' \
    "$san_list" >"$dir/server.ext"
  openssl x509 -req -in "$dir/server.csr" -CA "$dir/ca.pem" -CAkey "$dir/ca.key" \
    -CAcreateserial -days 825 -extfile "$dir/server.ext" -out "$dir/server.pem" 2>/dev/null
  rm -f "$dir/server.csr" "$dir/server.ext" "$dir/ca.srl"
  echo "$san_list" >"$dir/server.names"
fi
chmod 644 "$dir/ca.pem" "$dir/server.pem"

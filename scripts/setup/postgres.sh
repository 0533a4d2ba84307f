#!/usr/bin/env bash
# Starts a throwaway PostgreSQL cluster on loopback for tests and benchmarks, installing
# Debian's server when it is missing. Source it: exports FERRY_PG_URL and defines ferry_pg_stop.
set -euo pipefail

ferry_pg_bindir() {
  ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1
}

if [ -z "$(ferry_pg_bindir)" ]; then
  echo "postgres: installing Debian's postgresql" >&2
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >&2
fi
FERRY_PG_BIN="$(ferry_pg_bindir)"
if [ -z "$FERRY_PG_BIN" ] || [ ! -x "$FERRY_PG_BIN/initdb" ]; then
  echo "postgres: initdb not found after installing postgresql" >&2
  return 1 2>/dev/null || exit 1
fi
id postgres >/dev/null 2>&1 || useradd --system --home /var/lib/postgresql postgres

FERRY_PG_DIR="$(mktemp -d /tmp/ferry-pg.XXXXXX)"
chown postgres: "$FERRY_PG_DIR"
FERRY_PG_PORT="$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
runuser -u postgres -- "$FERRY_PG_BIN/initdb" -D "$FERRY_PG_DIR/data" -A trust -U postgres >/dev/null
# Durability is irrelevant for a throwaway test cluster; speed is not.
runuser -u postgres -- "$FERRY_PG_BIN/pg_ctl" -D "$FERRY_PG_DIR/data" -l "$FERRY_PG_DIR/server.log" -w \
  -o "-p $FERRY_PG_PORT -k $FERRY_PG_DIR -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c max_connections=300" \
  start >/dev/null
export FERRY_PG_URL="postgres://postgres@127.0.0.1:$FERRY_PG_PORT/postgres"
export FERRY_PG_BIN FERRY_PG_DIR

ferry_pg_stop() {
  runuser -u postgres -- "$FERRY_PG_BIN/pg_ctl" -D "$FERRY_PG_DIR/data" -m fast -w stop >/dev/null 2>&1 || true
  rm -rf "$FERRY_PG_DIR"
}

// The UDP port of the relay's latency probe responder: the one given, or the first port past
// its WireGuard shards' ports; never one of those, nor the Ferry port.
import { MAX_SHARDS } from '../../contracts/index.js';

/** The probe port a relay uses when none is given: just past its WireGuard shards' ports. */
export function defaultProbePort(wireguardPort: number): number {
  return wireguardPort + MAX_SHARDS;
}

/** undefined: the default; null: no responder. Throws when the port is taken or out of range. */
export function probePortOf(o: {
  probePort?: number | null | undefined;
  wireguardPort: number;
  ferryPort?: number | undefined;
}): number | null {
  if (o.probePort === null) return null;
  const port = o.probePort ?? defaultProbePort(o.wireguardPort);
  if (port > 65535)
    throw new Error(`no room for the probe port above --wireguard-port: give --probe-port`);
  if (port >= o.wireguardPort && port < o.wireguardPort + MAX_SHARDS)
    throw new Error(
      `--probe-port ${port} is one of the WireGuard shards' ports (${o.wireguardPort}-${o.wireguardPort + MAX_SHARDS - 1})`,
    );
  if (port === o.ferryPort) throw new Error(`--probe-port ${port} is the Ferry port`);
  return port;
}

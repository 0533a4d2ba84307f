// Whether a node's endpoint is this very machine (a relay started beside the client, as
// scripts/start.sh does): a full tunnel to it would send the relay's own forwarded traffic back
// into the tunnel, a loop that cuts the machine off. The engine refuses such a node.
import { lookup } from 'node:dns/promises';
import { networkInterfaces } from 'node:os';

/** The addresses of this machine's interfaces (in its network namespace), loopback included. */
export function localAddresses(): Set<string> {
  const out = new Set<string>();
  for (const list of Object.values(networkInterfaces()))
    for (const a of list ?? []) out.add(a.address);
  return out;
}

/** True when `host` (an address or a name) is one of this machine's own addresses. */
export async function isThisMachine(
  host: string,
  local: () => Set<string> = localAddresses,
): Promise<boolean> {
  let addresses: string[];
  try {
    addresses = (await lookup(host, { all: true })).map((a) => a.address);
  } catch {
    return false;
  }
  const mine = local();
  return addresses.some((a) => mine.has(a) || a.startsWith('127.') || a === '::1');
}

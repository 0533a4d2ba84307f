// Multihop's forwarding plan: a relay of an entry region forwards, on ports of its own, to every
// other relay's tunnel ports, so that a client that reaches only the entry (a network that lets
// only the entry region's prefixes through) enters there and leaves at the exit. The entry sees
// the client's encrypted tunnel and the exit's address; the exit sees the entry's address. Each
// exit has a slot: a stable function of its id (a hash, the next free slot on a collision, in id
// order), so that the control plane and every entry agree without storing anything. A slot is
// three ports on the entry: WireGuard's UDP, Ferry's (UDP and TCP), the TLS transport's (TCP).
import { createHash } from 'node:crypto';

import type { NodeRow } from './ports/regions.js';

/** The first forwarding port; slots take FORWARD_BASE + 3 × slot .. + 2. */
export const FORWARD_BASE = 40_000;
export const FORWARD_SLOTS = 5_000;

/** A forwarding rule of an entry relay: traffic to its `port` goes on to `to_host`:`to_port`. */
export interface Forward {
  port: number;
  protocol: 'udp' | 'tcp';
  to_host: string;
  to_port: number;
}

/** The ports an entry forwards to one exit (null: the exit serves no such transport). */
export interface EntryPorts {
  wireguard_port: number;
  ferry_port: number | null;
  tls_port: number | null;
}

/** Every node's slot, by id: the same for the same set of nodes, whoever computes it. */
export function hopSlots(nodes: readonly Pick<NodeRow, 'id'>[]): Map<string, number> {
  const slots = new Map<string, number>();
  const taken = new Set<number>();
  for (const id of nodes.map((n) => n.id).sort()) {
    let slot = createHash('sha256').update(id).digest().readUInt32BE(0) % FORWARD_SLOTS;
    while (taken.has(slot)) slot = (slot + 1) % FORWARD_SLOTS;
    taken.add(slot);
    slots.set(id, slot);
  }
  return slots;
}

/** The entry's ports for an exit in `slot`. */
export function entryPorts(
  slot: number,
  exit: Pick<NodeRow, 'ferry_port' | 'tls_port'>,
): EntryPorts {
  const base = FORWARD_BASE + 3 * slot;
  return {
    wireguard_port: base,
    ferry_port: exit.ferry_port === null ? null : base + 1,
    tls_port: exit.tls_port === null ? null : base + 2,
  };
}

/** What an entry relay forwards: to every other node, each of its transports on its slot's ports. */
export function forwardsOf(entry: Pick<NodeRow, 'id'>, nodes: readonly NodeRow[]): Forward[] {
  const slots = hopSlots(nodes);
  const out: Forward[] = [];
  for (const n of nodes) {
    if (n.id === entry.id || n.wireguard_public_key === null) continue;
    const p = entryPorts(slots.get(n.id)!, n);
    out.push({
      port: p.wireguard_port,
      protocol: 'udp',
      to_host: n.endpoint_host,
      to_port: n.wireguard_port,
    });
    if (p.ferry_port !== null && n.ferry_port !== null) {
      out.push({
        port: p.ferry_port,
        protocol: 'udp',
        to_host: n.endpoint_host,
        to_port: n.ferry_port,
      });
      out.push({
        port: p.ferry_port,
        protocol: 'tcp',
        to_host: n.endpoint_host,
        to_port: n.ferry_port,
      });
    }
    if (p.tls_port !== null && n.tls_port !== null)
      out.push({
        port: p.tls_port,
        protocol: 'tcp',
        to_host: n.endpoint_host,
        to_port: n.tls_port,
      });
  }
  return out;
}

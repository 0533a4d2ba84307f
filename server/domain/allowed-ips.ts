// AllowedIPs that keep a device's LAN reachable (allow_lan): the tunnel's routes minus the
// private, link-local and multicast ranges, as the fewest CIDRs, with the tunnel's own resolvers
// and gateway put back so that they stay in the tunnel.
import ipaddr from 'ipaddr.js';

/** What never belongs in the tunnel of a device that wants its LAN: the local ranges. */
export const LAN_CIDRS: readonly string[] = [
  // RFC 1918
  '10.0.0.0/8',
  '172.16.0.0/12',
  '192.168.0.0/16',
  // link-local, multicast
  '169.254.0.0/16',
  '224.0.0.0/4',
  // unique local, link-local, multicast
  'fc00::/7',
  'fe80::/10',
  'ff00::/8',
];

interface Block {
  v6: boolean;
  start: bigint;
  len: number;
}

const bitsOf = (v6: boolean) => (v6 ? 128 : 32);

function parse(cidr: string): Block {
  const [address, len] = ipaddr.parseCIDR(cidr);
  const v6 = address.kind() === 'ipv6';
  const value = address.toByteArray().reduce((acc, b) => (acc << 8n) | BigInt(b), 0n);
  const host = BigInt(bitsOf(v6) - len);
  // The block's first address: `10.1.2.3/8` names 10.0.0.0/8, as wg does.
  return { v6, start: (value >> host) << host, len };
}

function format(b: Block): string {
  const bytes: number[] = [];
  let value = b.start;
  for (let i = 0; i < bitsOf(b.v6) / 8; i++) {
    bytes.unshift(Number(value & 0xffn));
    value >>= 8n;
  }
  return `${ipaddr.fromByteArray(bytes).toString()}/${b.len}`;
}

function end(b: Block): bigint {
  return b.start + (1n << BigInt(bitsOf(b.v6) - b.len)) - 1n;
}

/** Whether `outer` holds all of `inner` (same family). */
function holds(outer: Block, inner: Block): boolean {
  return outer.v6 === inner.v6 && outer.start <= inner.start && end(inner) <= end(outer);
}

function overlaps(a: Block, b: Block): boolean {
  return a.v6 === b.v6 && a.start <= end(b) && b.start <= end(a);
}

/** `block` without every block of `cut`: the largest aligned blocks that are left. */
function subtract(block: Block, cut: readonly Block[]): Block[] {
  if (cut.some((c) => holds(c, block))) return [];
  if (!cut.some((c) => overlaps(c, block))) return [block];
  const len = block.len + 1;
  const half = 1n << BigInt(bitsOf(block.v6) - len);
  return [
    ...subtract({ v6: block.v6, start: block.start, len }, cut),
    ...subtract({ v6: block.v6, start: block.start + half, len }, cut),
  ];
}

/**
 * `allowed` minus `excluded`, then `kept` (single addresses or CIDRs) added back where the
 * result does not cover them already. IPv4 first, each family in address order.
 */
export function allowedIpsExcluding(
  allowed: readonly string[],
  excluded: readonly string[],
  kept: readonly string[] = [],
): string[] {
  const cut = excluded.map(parse);
  const out = allowed.flatMap((c) => subtract(parse(c), cut));
  for (const k of kept) {
    const block = parse(
      k.includes('/') ? k : `${k}/${ipaddr.parse(k).kind() === 'ipv6' ? 128 : 32}`,
    );
    if (!out.some((o) => holds(o, block))) out.push(block);
  }
  out.sort((a, b) =>
    a.v6 !== b.v6 ? (a.v6 ? 1 : -1) : a.start < b.start ? -1 : a.start > b.start ? 1 : 0,
  );
  return out.map(format);
}

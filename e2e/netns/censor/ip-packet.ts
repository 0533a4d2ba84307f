// The IPv4 packets the censor's queue hands to the inspector: addresses, ports, TCP's sequence
// number and flags, the payload; and a packet with its UDP payload replaced (a forged DNS answer),
// its lengths and checksums made right. The censor queues IPv4 only (its home network has no
// IPv6 beyond link-local: see TestNetwork.homeSubnet).

export interface IpPacket {
  src: string;
  dst: string;
  protocol: 'tcp' | 'udp' | 'other';
  sport: number;
  dport: number;
  /** TCP only. */
  seq: number;
  flags: number;
  /** Offset of the transport payload in the packet. */
  payloadOffset: number;
  payload: Buffer;
}

export const TCP_FIN = 0x01;
export const TCP_SYN = 0x02;
export const TCP_RST = 0x04;

const ipv4 = (b: Buffer, o: number): string => `${b[o]}.${b[o + 1]}.${b[o + 2]}.${b[o + 3]}`;

/** An IPv4 packet's header fields and payload; undefined for anything else or a fragment. */
export function parseIpPacket(b: Buffer): IpPacket | undefined {
  if (b.length < 20 || b[0]! >> 4 !== 4) return undefined;
  const ihl = (b[0]! & 0x0f) * 4;
  const total = Math.min(b.readUInt16BE(2), b.length);
  // A fragment other than the first has no ports; a first fragment has part of a payload only.
  if ((b.readUInt16BE(6) & 0x3fff) !== 0) return undefined;
  const proto = b[9];
  const base = { src: ipv4(b, 12), dst: ipv4(b, 16), seq: 0, flags: 0 };
  if (proto === 6 && total >= ihl + 20) {
    const doff = (b[ihl + 12]! >> 4) * 4;
    const at = ihl + doff;
    return {
      ...base,
      protocol: 'tcp',
      sport: b.readUInt16BE(ihl),
      dport: b.readUInt16BE(ihl + 2),
      seq: b.readUInt32BE(ihl + 4),
      flags: b[ihl + 13]!,
      payloadOffset: at,
      payload: b.subarray(Math.min(at, total), total),
    };
  }
  if (proto === 17 && total >= ihl + 8) {
    return {
      ...base,
      protocol: 'udp',
      sport: b.readUInt16BE(ihl),
      dport: b.readUInt16BE(ihl + 2),
      payloadOffset: ihl + 8,
      payload: b.subarray(ihl + 8, total),
    };
  }
  return {
    ...base,
    protocol: 'other',
    sport: 0,
    dport: 0,
    payloadOffset: ihl,
    payload: b.subarray(ihl, total),
  };
}

function checksum(b: Buffer): number {
  let sum = 0;
  for (let i = 0; i + 1 < b.length; i += 2) sum += b.readUInt16BE(i);
  if (b.length % 2) sum += b[b.length - 1]! << 8;
  while (sum > 0xffff) sum = (sum & 0xffff) + (sum >>> 16);
  return ~sum & 0xffff;
}

/**
 * The IPv4/UDP packet `b` with `payload` in place of its UDP payload: IP total length, IP header
 * checksum and UDP length recomputed, UDP checksum 0 (none, which IPv4 allows).
 */
export function withUdpPayload(b: Buffer, payload: Buffer): Buffer {
  const ihl = (b[0]! & 0x0f) * 4;
  const out = Buffer.concat([b.subarray(0, ihl + 8), payload]);
  out.writeUInt16BE(out.length, 2);
  out.writeUInt16BE(0, 10);
  out.writeUInt16BE(checksum(out.subarray(0, ihl)), 10);
  out.writeUInt16BE(8 + payload.length, ihl + 4);
  out.writeUInt16BE(0, ihl + 6);
  return out;
}

// Readers of the classic pcap files that TestNetwork.capture writes: every IPv4 and IPv6 packet in
// them (addresses, protocol, ports, length), the IPv4 UDP packets and TCP segments with their
// payloads, and how many packets they hold.
import { readFileSync } from 'node:fs';
import ipaddr from 'ipaddr.js';

export interface UdpPacket {
  src: string;
  dst: string;
  sport: number;
  dport: number;
  payload: Buffer;
}

export interface TcpSegment {
  src: string;
  dst: string;
  sport: number;
  dport: number;
  /** The sequence number of the payload's first byte. */
  seq: number;
  flags: number;
  payload: Buffer;
}

export type IpProtocol = 'tcp' | 'udp' | 'icmp' | 'icmpv6' | 'other';

/** One IP packet of a capture, as a leak check or a path test looks at it. */
export interface IpPacket {
  /** Seconds since the epoch, from the capture record. */
  time: number;
  family: 4 | 6;
  /** Addresses in their usual text form (IPv6 compressed, RFC 5952). */
  src: string;
  dst: string;
  protocol: IpProtocol;
  /** The IP protocol number (IPv6: the header after any extension headers). */
  protocolNumber: number;
  /** TCP and UDP ports; absent for other protocols and for fragments after the first. */
  sport?: number;
  dport?: number;
  /** ICMP or ICMPv6 type (e.g. 135 for a neighbour solicitation). */
  icmpType?: number;
  /** Length of the IP packet as its header states it (IPv6: 40 + payload length). */
  length: number;
}

const LINKTYPE_ETHERNET = 1;
const LINKTYPE_RAW = 101;
const LINKTYPE_LINUX_SLL = 113;
const LINKTYPE_LINUX_SLL2 = 276;
const ETHERTYPE_IPV4 = 0x0800;
const ETHERTYPE_IPV6 = 0x86dd;

interface Frame {
  time: number;
  data: Buffer;
}

/** The captured frames of a pcap file (either byte order), with the file's link type. */
function records(file: string): { linktype: number; frames: Frame[] } {
  const b = readFileSync(file);
  if (b.length < 24) return { linktype: 0, frames: [] };
  const magic = b.readUInt32LE(0);
  const le = magic === 0xa1b2c3d4 || magic === 0xa1b23c4d;
  const nano = magic === 0xa1b23c4d || b.readUInt32BE(0) === 0xa1b23c4d;
  const u32 = (o: number) => (le ? b.readUInt32LE(o) : b.readUInt32BE(o));
  const out: Frame[] = [];
  let off = 24;
  while (off + 16 <= b.length) {
    const incl = u32(off + 8);
    const time = u32(off) + u32(off + 4) / (nano ? 1e9 : 1e6);
    out.push({ time, data: b.subarray(off + 16, off + 16 + incl) });
    off += 16 + incl;
  }
  return { linktype: u32(20), frames: out };
}

function frames(file: string): { linktype: number; frames: Buffer[] } {
  const { linktype, frames: all } = records(file);
  return { linktype, frames: all.map((f) => f.data) };
}

/** The IP packet (v4 or v6) in a frame, or undefined for anything else (ARP, LLDP, ...). */
function ipOf(linktype: number, frame: Buffer): Buffer | undefined {
  let type: number;
  let ip: Buffer;
  if (linktype === LINKTYPE_ETHERNET) {
    if (frame.length < 14) return undefined;
    type = frame.readUInt16BE(12);
    ip = frame.subarray(14);
  } else if (linktype === LINKTYPE_LINUX_SLL) {
    if (frame.length < 16) return undefined;
    type = frame.readUInt16BE(14);
    ip = frame.subarray(16);
  } else if (linktype === LINKTYPE_LINUX_SLL2) {
    if (frame.length < 20) return undefined;
    type = frame.readUInt16BE(0);
    ip = frame.subarray(20);
  } else if (linktype === LINKTYPE_RAW || linktype === 228 || linktype === 229) {
    if (frame.length < 1) return undefined;
    type = frame[0]! >> 4 === 6 ? ETHERTYPE_IPV6 : ETHERTYPE_IPV4;
    ip = frame;
  } else return undefined;
  if (type === ETHERTYPE_IPV4 && ip.length >= 20 && ip[0]! >> 4 === 4) return ip;
  if (type === ETHERTYPE_IPV6 && ip.length >= 40 && ip[0]! >> 4 === 6) return ip;
  return undefined;
}

const PROTOCOLS: Record<number, IpProtocol> = { 6: 'tcp', 17: 'udp', 1: 'icmp', 58: 'icmpv6' };
/** IPv6 extension headers walked past to the transport header (fragment handled apart). */
const IPV6_EXTENSIONS = new Set([0, 43, 60]);
const IPV6_FRAGMENT = 44;

/** The transport fields of a packet whose transport header starts at `l4` (if it was captured). */
function transport(
  protocolNumber: number,
  l4: Buffer | undefined,
): Pick<IpPacket, 'sport' | 'dport' | 'icmpType'> {
  if (!l4) return {};
  if ((protocolNumber === 6 || protocolNumber === 17) && l4.length >= 4)
    return { sport: l4.readUInt16BE(0), dport: l4.readUInt16BE(2) };
  if ((protocolNumber === 1 || protocolNumber === 58) && l4.length >= 1)
    return { icmpType: l4[0]! };
  return {};
}

/** Parses one IPv4 or IPv6 packet (as ipOf returns it). */
function parseIp(time: number, ip: Buffer): IpPacket {
  if (ip[0]! >> 4 === 4) {
    const ihl = (ip[0]! & 15) * 4;
    const protocolNumber = ip[9]!;
    // Later fragments carry no transport header.
    const firstFragment = (ip.readUInt16BE(6) & 0x1fff) === 0;
    return {
      time,
      family: 4,
      src: addr(ip, 12),
      dst: addr(ip, 16),
      protocol: PROTOCOLS[protocolNumber] ?? 'other',
      protocolNumber,
      length: ip.readUInt16BE(2),
      ...transport(protocolNumber, firstFragment ? ip.subarray(ihl) : undefined),
    };
  }
  let next = ip[6]!;
  let off = 40;
  let l4: Buffer | undefined;
  for (let hops = 0; ; hops++) {
    if (IPV6_EXTENSIONS.has(next) && off + 8 <= ip.length && hops < 8) {
      const len = (ip[off + 1]! + 1) * 8;
      next = ip[off]!;
      off += len;
      continue;
    }
    if (next === IPV6_FRAGMENT && off + 8 <= ip.length && hops < 8) {
      const first = (ip.readUInt16BE(off + 2) & 0xfff8) === 0;
      next = ip[off]!;
      off += 8;
      if (!first) break;
      continue;
    }
    if (off <= ip.length) l4 = ip.subarray(off);
    break;
  }
  return {
    time,
    family: 6,
    src: ipaddr.fromByteArray([...ip.subarray(8, 24)]).toString(),
    dst: ipaddr.fromByteArray([...ip.subarray(24, 40)]).toString(),
    protocol: PROTOCOLS[next] ?? 'other',
    protocolNumber: next,
    length: 40 + ip.readUInt16BE(4),
    ...transport(next, l4),
  };
}

/** Every IPv4 and IPv6 packet of a pcap file, in capture order; ARP and other frames skipped. */
export function readPcapIp(file: string): IpPacket[] {
  const { linktype, frames: all } = records(file);
  const out: IpPacket[] = [];
  for (const f of all) {
    const ip = ipOf(linktype, f.data);
    if (ip) out.push(parseIp(f.time, ip));
  }
  return out;
}

/** The IPv4 packet in a frame, or undefined for anything else. */
function ipv4(linktype: number, frame: Buffer): Buffer | undefined {
  if (linktype === LINKTYPE_ETHERNET) {
    if (frame.length < 14 || frame.readUInt16BE(12) !== 0x0800) return undefined;
    return frame.subarray(14);
  }
  if (linktype === LINKTYPE_LINUX_SLL) return frame.subarray(16);
  // Raw IP (a TUN device).
  return frame;
}

const addr = (ip: Buffer, at: number) => `${ip[at]}.${ip[at + 1]}.${ip[at + 2]}.${ip[at + 3]}`;

/** How many packets a pcap file holds. */
export function countPcapRecords(file: string): number {
  return frames(file).frames.length;
}

/** The IPv4 UDP packets of a pcap file. */
export function readPcapUdp(file: string): UdpPacket[] {
  const { linktype, frames: all } = frames(file);
  const out: UdpPacket[] = [];
  for (const frame of all) {
    const ip = ipv4(linktype, frame);
    if (!ip || ip.length < 28 || ip[0]! >> 4 !== 4 || ip[9] !== 17) continue;
    const ihl = (ip[0]! & 15) * 4;
    const udp = ip.subarray(ihl, ip.readUInt16BE(2));
    out.push({
      src: addr(ip, 12),
      dst: addr(ip, 16),
      sport: udp.readUInt16BE(0),
      dport: udp.readUInt16BE(2),
      payload: Buffer.from(udp.subarray(8)),
    });
  }
  return out;
}

/** The IPv4 TCP segments of a pcap file. */
/**
 * The bytes one side of one TCP connection sent, in order, each once: what a capture holds of it
 * reassembled by sequence number (a retransmission under load, or segments captured out of
 * order, would otherwise repeat or shuffle bytes), up to the first gap the capture missed.
 * `from` picks the connection (its source port) and the direction.
 */
export function tcpStream(
  segments: readonly TcpSegment[],
  from: { sport: number; dport: number },
): Buffer {
  const mine = segments.filter(
    (s) => s.sport === from.sport && s.dport === from.dport && s.payload.length > 0,
  );
  if (mine.length === 0) return Buffer.alloc(0);
  const isn = mine[0]!.seq;
  // Offsets from the first captured byte (sequence numbers wrap at 2^32).
  const pieces = mine
    .map((s) => ({ at: (s.seq - isn) >>> 0, payload: s.payload }))
    .filter((p) => p.at < 0x8000_0000)
    .sort((a, b) => a.at - b.at);
  const out: Buffer[] = [];
  let next = 0;
  for (const p of pieces) {
    if (p.at > next) break;
    const end = p.at + p.payload.length;
    if (end <= next) continue;
    out.push(p.payload.subarray(next - p.at));
    next = end;
  }
  return Buffer.concat(out);
}

export function readPcapTcp(file: string): TcpSegment[] {
  const { linktype, frames: all } = frames(file);
  const out: TcpSegment[] = [];
  for (const frame of all) {
    const ip = ipv4(linktype, frame);
    if (!ip || ip.length < 40 || ip[0]! >> 4 !== 4 || ip[9] !== 6) continue;
    const ihl = (ip[0]! & 15) * 4;
    const tcp = ip.subarray(ihl, ip.readUInt16BE(2));
    out.push({
      src: addr(ip, 12),
      dst: addr(ip, 16),
      sport: tcp.readUInt16BE(0),
      dport: tcp.readUInt16BE(2),
      seq: tcp.readUInt32BE(4),
      flags: tcp[13]!,
      payload: Buffer.from(tcp.subarray((tcp[12]! >> 4) * 4)),
    });
  }
  return out;
}

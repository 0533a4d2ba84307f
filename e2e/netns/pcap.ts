// Readers of the classic pcap files that TestNetwork.capture writes: the IPv4 UDP packets and TCP
// segments in them, and how many packets they hold.
import { readFileSync } from 'node:fs';

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
  flags: number;
  payload: Buffer;
}

const LINKTYPE_ETHERNET = 1;
const LINKTYPE_LINUX_SLL = 113;

/** The captured frames of a pcap file (either byte order), with the file's link type. */
function frames(file: string): { linktype: number; frames: Buffer[] } {
  const b = readFileSync(file);
  if (b.length < 24) return { linktype: 0, frames: [] };
  const le = b.readUInt32LE(0) === 0xa1b2c3d4 || b.readUInt32LE(0) === 0xa1b23c4d;
  const u32 = (o: number) => (le ? b.readUInt32LE(o) : b.readUInt32BE(o));
  const out: Buffer[] = [];
  let off = 24;
  while (off + 16 <= b.length) {
    const incl = u32(off + 8);
    out.push(b.subarray(off + 16, off + 16 + incl));
    off += 16 + incl;
  }
  return { linktype: u32(20), frames: out };
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
      flags: tcp[13]!,
      payload: Buffer.from(tcp.subarray((tcp[12]! >> 4) * 4)),
    });
  }
  return out;
}

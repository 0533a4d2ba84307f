// A captured TCP direction reassembled: retransmitted bytes once, segments in sequence order,
// nothing past a segment the capture missed, and sequence numbers that wrap.
import { describe, expect, it } from 'vitest';

import { tcpStream, type TcpSegment } from './pcap.js';

const seg = (seq: number, text: string, sport = 40000, dport = 443): TcpSegment => ({
  src: '10.0.0.2',
  dst: '10.0.0.1',
  sport,
  dport,
  seq,
  flags: 0x18,
  payload: Buffer.from(text),
});
const from = { sport: 40000, dport: 443 };

describe('tcpStream', () => {
  it('keeps retransmitted bytes once and puts segments in order', () => {
    const segments = [seg(100, 'abc'), seg(106, 'ghi'), seg(103, 'def'), seg(103, 'def')];
    expect(tcpStream(segments, from).toString()).toBe('abcdefghi');
    // A retransmission that overlaps what came before adds only what is new.
    expect(tcpStream([seg(100, 'abc'), seg(101, 'bcdef')], from).toString()).toBe('abcdef');
  });

  it('stops at a gap, reads one connection and one direction, and survives the wrap', () => {
    expect(tcpStream([seg(100, 'abc'), seg(110, 'xyz')], from).toString()).toBe('abc');
    const others = [seg(100, 'abc'), seg(500, 'zzz', 40001), seg(9, 'yy', 443, 40000)];
    expect(tcpStream(others, from).toString()).toBe('abc');
    expect(tcpStream([seg(0xffff_fffe, 'ab'), seg(0, 'cd')], from).toString()).toBe('abcd');
    expect(tcpStream([], from)).toHaveLength(0);
  });
});

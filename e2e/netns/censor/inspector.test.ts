// The inspector's verdicts on packets made here: fet on a first packet, a ClientHello over two
// segments (sni-block, tls-fingerprint, tcp-budget), the prober's endpoints, a QUIC Initial, a
// DNS answer forged with its checksums right, and the packets it must leave alone.
import { randomBytes } from 'node:crypto';

import dnsPacket from 'dns-packet';
import { describe, expect, it } from 'vitest';

import { HTTP_GET, flaggedBytes, helloMessage } from './censor-test-kit.js';
import { scanClientRecord } from '../../../native/client-hello.js';
import { Inspector, type CensorEvent, type SeenEndpoint } from './inspector.js';
import { parseIpPacket } from './ip-packet.js';
import { ja4 } from '../../../native/ja4.js';
import { MARK, settings, type CensorOptions } from './profiles.js';
import { sealInitial } from './quic-initial.js';

const HOME = '203.0.113.10';
const ABROAD = '198.19.5.20';

function ipv4(proto: number, src: string, dst: string, l4: Buffer): Buffer {
  const h = Buffer.alloc(20);
  h[0] = 0x45;
  h.writeUInt16BE(20 + l4.length, 2);
  h[8] = 64;
  h[9] = proto;
  Buffer.from(src.split('.').map(Number)).copy(h, 12);
  Buffer.from(dst.split('.').map(Number)).copy(h, 16);
  return Buffer.concat([h, l4]);
}

function tcp(
  seq: number,
  payload: Buffer,
  opts: { src?: string; dst?: string; dport?: number } = {},
) {
  const t = Buffer.alloc(20);
  t.writeUInt16BE(40000, 0);
  t.writeUInt16BE(opts.dport ?? 443, 2);
  t.writeUInt32BE(seq, 4);
  t[12] = 5 << 4;
  t[13] = 0x18; // PSH, ACK
  return ipv4(6, opts.src ?? HOME, opts.dst ?? ABROAD, Buffer.concat([t, payload]));
}

function udp(src: string, dst: string, sport: number, dport: number, payload: Buffer) {
  const u = Buffer.alloc(8);
  u.writeUInt16BE(sport, 0);
  u.writeUInt16BE(dport, 2);
  u.writeUInt16BE(8 + payload.length, 4);
  return ipv4(17, src, dst, Buffer.concat([u, payload]));
}

/** A ClientHello record naming `name`. */
function helloRecord(name: string, pad = 0): Buffer {
  const msg = helloMessage(name, pad);
  return Buffer.concat([Buffer.from([0x16, 3, 1, msg.length >> 8, msg.length & 0xff]), msg]);
}

function inspector(options: CensorOptions) {
  const events: CensorEvent[] = [];
  const endpoints: SeenEndpoint[] = [];
  const i = new Inspector(settings(options, '203.0.113.0/24', 7), {
    event: (e) => events.push(e),
    endpoint: (e) => endpoints.push(e),
  });
  return { i, events, endpoints };
}

describe('inspector', () => {
  it('fet: flags a first packet no exemption covers, passes HTTP, and decides once', () => {
    const { i, events } = inspector({ profiles: ['fet'] });
    const v = i.handle(tcp(1, flaggedBytes()));
    expect(v).toEqual({ accept: true, mark: MARK.fetFlag | MARK.done });
    expect(events[0]).toMatchObject({ kind: 'fet-flag', client: HOME, server: ABROAD, port: 443 });
    // Its retransmission is dropped with the connection; the block is not renewed by it.
    expect(i.handle(tcp(1, flaggedBytes()))).toEqual({ accept: true, mark: MARK.drop | MARK.done });
    const http = i.handle(tcp(1000, HTTP_GET, { dport: 80 }));
    expect(http).toEqual({ accept: true, mark: MARK.done });
    expect(events[1]).toMatchObject({ kind: 'fet-pass', port: 80 });
    // A retransmission queued before the connection's mark took hold: the same verdict, no flag.
    expect(i.handle(tcp(1000, HTTP_GET, { dport: 80 }))).toEqual({ accept: true, mark: MARK.done });
    expect(events).toHaveLength(2);
    // A pure ACK (no payload) says nothing.
    expect(i.handle(tcp(5, Buffer.alloc(0)))).toEqual({ accept: true, mark: 0 });
  });

  it('sni-block reads a hello over two segments and resets a blocked name only', () => {
    const { i, events, endpoints } = inspector({
      profiles: ['sni-block', 'prober'],
      sniBlock: ['blocked.example'],
    });
    const record = helloRecord('www.blocked.example', 1500);
    expect(i.handle(tcp(100, record.subarray(0, 1000)))).toEqual({ accept: true, mark: 0 });
    // A retransmission of the first segment adds nothing and decides nothing.
    expect(i.handle(tcp(100, record.subarray(0, 1000)))).toEqual({ accept: true, mark: 0 });
    expect(i.handle(tcp(1100, record.subarray(1000)))).toEqual({
      accept: true,
      mark: MARK.done | MARK.reset,
    });
    expect(events).toEqual([
      {
        kind: 'sni-reset',
        client: HOME,
        server: ABROAD,
        port: 443,
        serverName: 'www.blocked.example',
      },
    ]);
    expect(endpoints[0]).toMatchObject({
      server: ABROAD,
      port: 443,
      serverName: 'www.blocked.example',
    });
    expect(endpoints[0]!.first.equals(record.subarray(0, 1000))).toBe(true);

    // The second segment again (sent before its verdict arrived): the same reset, nothing new.
    expect(i.handle(tcp(1100, record.subarray(1000)))).toEqual({
      accept: true,
      mark: MARK.done | MARK.reset,
    });
    expect(events).toHaveLength(1);
    expect(endpoints).toHaveLength(1);

    const other = helloRecord('cover.example');
    expect(i.handle(tcp(7, other, { dport: 8443 }))).toEqual({ accept: true, mark: MARK.done });
    // Not TLS: decided at once, the prober told (without a name).
    expect(i.handle(tcp(9, HTTP_GET, { dport: 80 }))).toEqual({ accept: true, mark: MARK.done });
    expect(endpoints.map((e) => e.serverName)).toEqual([
      'www.blocked.example',
      'cover.example',
      undefined,
    ]);
  });

  it('tls-fingerprint resets a hello whose JA4 is not allowed; tcp-budget marks an allowed name to hosting', () => {
    const record = helloRecord('cover.example');
    const hello = scanClientRecord(record);
    if (hello.kind !== 'hello') throw new Error('bad hello');
    const allowed = ja4(hello.hello);
    const strict = inspector({
      profiles: ['tls-fingerprint'],
      ja4Allow: ['t13d1517h2_8daaf6152771_cb7bf5808d99'],
    });
    expect(strict.i.handle(tcp(1, record)).mark).toBe(MARK.done | MARK.reset);
    expect(strict.events[0]).toMatchObject({ kind: 'ja4-reset', ja4: allowed });
    const lenient = inspector({
      profiles: ['tls-fingerprint', 'tcp-budget'],
      ja4Allow: [allowed],
      hosting: ['198.19.5.0/24'],
      sniAllow: ['example'],
    });
    expect(lenient.i.handle(tcp(1, record)).mark).toBe(MARK.done | MARK.sniAllowed);
    expect(lenient.i.handle(tcp(1, record, { dst: '198.18.5.20' })).mark).toBe(MARK.done);
    expect(lenient.events.map((e) => e.kind)).toEqual(['ja4-pass', 'budget-exempt', 'ja4-pass']);
  });

  it('sni-block drops the flow of a QUIC Initial naming a blocked name', () => {
    const { i, events } = inspector({ profiles: ['sni-block'], sniBlock: ['blocked.example'] });
    const initial = (name: string) =>
      sealInitial(randomBytes(8), randomBytes(8), 0, helloMessage(name));
    expect(i.handle(udp(HOME, ABROAD, 5000, 443, initial('ok.example')))).toEqual({
      accept: true,
      mark: MARK.done,
    });
    expect(i.handle(udp(HOME, ABROAD, 5001, 443, initial('blocked.example')))).toEqual({
      accept: true,
      mark: MARK.done | MARK.drop,
    });
    expect(i.handle(udp(HOME, ABROAD, 5002, 443, randomBytes(1200))).mark).toBe(MARK.done);
    expect(events).toMatchObject([{ kind: 'quic-drop', serverName: 'blocked.example' }]);
  });

  it('sni-block forges the A record of a DNS answer for a blocked name, checksums right', () => {
    const { i, events } = inspector({
      profiles: ['sni-block'],
      sniBlock: ['blocked.example'],
      forgedAddress: '198.51.100.66',
    });
    const answer = (name: string) =>
      dnsPacket.encode({
        type: 'response',
        id: 7,
        questions: [{ type: 'A', name }],
        answers: [{ type: 'A', class: 'IN', name, ttl: 60, data: ABROAD }],
      });
    const allowed = udp(ABROAD, HOME, 53, 40000, answer('cover.example'));
    expect(i.handle(allowed)).toEqual({ accept: true, mark: 0 });
    const v = i.handle(udp(ABROAD, HOME, 53, 40000, answer('blocked.example')));
    const forged = parseIpPacket(v.replacement!)!;
    expect(forged).toMatchObject({ src: ABROAD, dst: HOME, sport: 53, dport: 40000 });
    const msg = dnsPacket.decode(forged.payload);
    expect(msg.id).toBe(7);
    expect(msg.answers).toMatchObject([
      { type: 'A', name: 'blocked.example', data: '198.51.100.66' },
    ]);
    // The IPv4 header checksum sums to 0xffff.
    let sum = 0;
    for (let k = 0; k < 20; k += 2) sum += v.replacement!.readUInt16BE(k);
    while (sum > 0xffff) sum = (sum & 0xffff) + (sum >>> 16);
    expect(sum).toBe(0xffff);
    expect(events).toMatchObject([{ kind: 'dns-forged', name: 'blocked.example' }]);
  });

  it('service-block resets a hello and forges DNS for the service’s name, without sni-block', () => {
    const { i, events } = inspector({
      profiles: ['service-block'],
      service: { addresses: ['198.18.0.5/32'], names: ['ferry.test'] },
      forgedAddress: '198.51.100.66',
    });
    expect(i.handle(tcp(100, helloRecord('api.ferry.test')))).toEqual({
      accept: true,
      mark: MARK.done | MARK.reset,
    });
    expect(i.handle(tcp(100, helloRecord('cover.example'), { dst: '198.18.9.9' }))).toEqual({
      accept: true,
      mark: MARK.done,
    });
    const answer = dnsPacket.encode({
      type: 'response',
      id: 9,
      questions: [{ type: 'A', name: 'ferry.test' }],
      answers: [{ type: 'A', class: 'IN', name: 'ferry.test', ttl: 60, data: ABROAD }],
    });
    const v = i.handle(udp(ABROAD, HOME, 53, 40000, answer));
    expect(dnsPacket.decode(parseIpPacket(v.replacement!)!.payload).answers).toMatchObject([
      { data: '198.51.100.66' },
    ]);
    expect(events.map((e) => e.kind)).toEqual(['sni-reset', 'dns-forged']);
  });
});

// Namespace tests of Ferry's TLS transport (ferry-tun --transport tls): traffic, and what the wire shows:
// Chrome's JA4 in the hello (computed by the censor's own ja4), a TLS 1.3 flight each way, then only
// application-data records sized as HTTPS's (full-size in bulk, never under 17 bytes), no first packet that the
// fully-encrypted-traffic detector flags; a stranger gets no byte from ferry-tun (it has no cover site).
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import { describe, expect, it } from 'vitest';

import { loadHelloTemplate } from '../../native/hello-template.js';
import { parseHandshake } from '../../native/client-hello.js';
import { classifyFirstPacket } from './censor/fet-detector.js';
import { ja4 } from '../../native/ja4.js';
import { receivedBitsPerSecond, runIperf } from './ferry-iperf.js';
import { pingServerTunnel, useFerryPair } from './ferry-pair-kit.js';
import { CLIENT, type FerryPair, type FerryProcess, SERVER } from './ferry-process.js';
import { readPcapTcp, tcpStream } from './pcap.js';
import type { TestNetwork } from './test-network.js';

const TLS_PORT = 9443;
let net: TestNetwork;
let ferry: FerryPair;
let serverUnderlay: string;
useFerryPair(['ip', 'ping', 'iperf3', 'tcpdump'], (t) => ({ net, ferry, serverUnderlay } = t));

async function startPair(
  clientArgs: string[] = [],
): Promise<{ server: FerryProcess; client: FerryProcess }> {
  const server = ferry.startServer([
    '--tls-listen',
    `${serverUnderlay}:${TLS_PORT}`,
    '--tcp-auth-timeout',
    '2000',
  ]);
  await server.waitFor((e) => e.type === 'state' && e.state === 'connected', 10_000, 'server up');
  const client = ferry.startClient(
    ['--transport', 'tls', '--tls-server-name', 'cover.example', ...clientArgs],
    `${serverUnderlay}:${TLS_PORT}`,
  );
  await client.waitFor(
    (e) => e.type === 'state' && e.state === 'connected',
    10_000,
    'client connected over TLS',
  );
  return { server, client };
}

interface TlsRecord {
  type: number;
  length: number;
  body: Buffer;
}

/** The TLS records of one direction's bytes, in order (a cut-off last record is left out). */
function records(stream: Buffer): TlsRecord[] {
  const out: TlsRecord[] = [];
  for (let at = 0; at + 5 <= stream.length;) {
    const length = stream.readUInt16BE(at + 3);
    if (at + 5 + length > stream.length) break;
    out.push({ type: stream[at]!, length, body: stream.subarray(at + 5, at + 5 + length) });
    expect(stream.readUInt16BE(at + 1), `record version at ${at}`).toBeOneOf([0x0301, 0x0303]);
    at += 5 + length;
  }
  return out;
}

describe.each(['aes-256-gcm', 'chacha20-poly1305'])('Ferry over TLS with %s', (cipher) => {
  it('carries ping and iperf3', async () => {
    const { server } = await startPair(['--cipher', cipher]);
    expect(pingServerTunnel(net, ['-c', '3', '-i', '0.2', '-W', '2'])).toBe(0);
    expect((await server.waitFor((e) => e.type === 'peer', 5000, 'peer event')).cipher).toBe(
      cipher,
    );
    const { code, report } = await runIperf(net, { server: SERVER, client: CLIENT }, ['-t', '2']);
    expect(code, report.error).toBe(0);
    expect(receivedBitsPerSecond(report)).toBeGreaterThan(10e6);
  }, 40_000);
});

it("shows a Chrome hello, a TLS 1.3 flight each way, then application data sized as HTTPS's", async () => {
  const wire = join(net.dir, 'tls.pcap');
  const stop = await net.capture(SERVER, 'eth0', `tcp port ${TLS_PORT}`, wire, { maxSeconds: 60 });
  await startPair();
  expect(pingServerTunnel(net, ['-c', '3', '-i', '0.2', '-W', '2'])).toBe(0);
  // A bounded bulk transfer, so that the capture stays small.
  const { code, report } = await runIperf(net, { server: SERVER, client: CLIENT }, [
    '-t',
    '1',
    '-b',
    '100M',
  ]);
  expect(code, report.error).toBe(0);
  await sleep(200);
  await stop();

  const segments = readPcapTcp(wire).filter((s) => s.payload.length > 0);
  const opening = segments.find((s) => s.dport === TLS_PORT)!;
  // Each direction of that connection reassembled (a retransmission under load repeats bytes).
  const c2s = tcpStream(segments, { sport: opening.sport, dport: TLS_PORT });
  const s2c = tcpStream(segments, { sport: TLS_PORT, dport: opening.sport });
  const first = opening.payload;
  expect(classifyFirstPacket(first).flagged).toBe(false);

  const up = records(c2s);
  expect(up[0]!.type).toBe(22);
  const hello = parseHandshake(up[0]!.body)!;
  expect(hello.serverName).toBe('cover.example');
  expect(ja4(hello)).toBe(loadHelloTemplate().ja4);
  expect(up[1]).toMatchObject({ type: 20, length: 1 });
  expect(up[2]).toMatchObject({ type: 23, length: 53 });
  const upData = up.slice(3);
  expect(upData.every((r) => r.type === 23 && r.length >= 17 && r.length <= 16_401)).toBe(true);
  // The bulk transfer went in full-size records, and the small packets in small ones: no fixed size.
  expect(upData.filter((r) => r.length === 16_401).length).toBeGreaterThan(50);
  expect(new Set(upData.map((r) => r.length)).size).toBeGreaterThan(20);

  const down = records(s2c);
  expect(down[0]!.type).toBe(22);
  expect(down[0]!.body[0]).toBe(2); // ServerHello
  expect(down[0]!.body.subarray(39, 71).equals(hello.sessionId)).toBe(true);
  expect(down[1]).toMatchObject({ type: 20, length: 1 });
  expect(down[2]!.type).toBe(23);
  expect(down[2]!.length).toBeGreaterThanOrEqual(2500);
  expect(down[2]!.length).toBeLessThanOrEqual(5000);
  expect(down.slice(3).every((r) => r.type === 23 && r.length >= 17)).toBe(true);
}, 60_000);

it('gives a stranger on the TLS port no byte (ferry-tun has no cover site: it closes)', async () => {
  await startPair();
  const script = `
    const s = require('node:net').connect(${TLS_PORT}, '${serverUnderlay}', () =>
      s.write('GET / HTTP/1.1\\r\\nHost: cover.example\\r\\n\\r\\n'));
    let received = 0;
    s.on('data', (d) => (received += d.length));
    s.on('error', () => {});
    s.on('close', () => { process.stdout.write(String(received)); process.exit(0); });
    setTimeout(() => { process.stdout.write('open'); process.exit(0); }, 5000);
  `;
  const out = net.exec(CLIENT, ['node', '-e', script]);
  expect(out.trim()).toBe('0');
}, 30_000);

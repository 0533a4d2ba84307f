// Namespace tests of Ferry's TCP transport: traffic, the GFW fully-encrypted-traffic detector, probe reactions.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import { describe, expect, it } from 'vitest';

import { classifyFirstPacket } from './censor/fet-detector.js';
import { receivedBitsPerSecond, runIperf } from './ferry-iperf.js';
import { pingServerTunnel, useFerryPair } from './ferry-pair-kit.js';
import {
  CLIENT,
  FERRY_TCP_PORT,
  type FerryPair,
  type FerryProcess,
  SERVER,
} from './ferry-process.js';
import { readPcapTcp } from './pcap.js';
import type { TestNetwork } from './test-network.js';

const AUTH_TIMEOUT_MS = 2000;
// The server and the client are two hosts on the network's access subnet.
let net: TestNetwork;
let ferry: FerryPair;
/** The server's address on the access subnet. */
let serverUnderlay: string;
useFerryPair(['ip', 'ping', 'iperf3', 'tcpdump'], (t) => ({ net, ferry, serverUnderlay } = t));

function startServer(): FerryProcess {
  return ferry.startServer([
    '--tcp-listen',
    `${serverUnderlay}:${FERRY_TCP_PORT}`,
    '--tcp-auth-timeout',
    String(AUTH_TIMEOUT_MS),
  ]);
}

async function startTcpClient(extra: string[] = []): Promise<FerryProcess> {
  const client = ferry.startClient(
    ['--transport', 'tcp', ...extra],
    `${serverUnderlay}:${FERRY_TCP_PORT}`,
  );
  await client.waitFor(
    (e) => e.type === 'state' && e.state === 'connected',
    10_000,
    'client connected over TCP',
  );
  return client;
}

describe.each(['aes-256-gcm', 'chacha20-poly1305'])('Ferry over TCP with %s', (cipher) => {
  it('carries ping and iperf3', async () => {
    const server = startServer();
    await server.waitFor((e) => e.type === 'state' && e.state === 'connected', 10_000, 'server up');
    await startTcpClient(['--cipher', cipher]);
    expect(pingServerTunnel(net, ['-c', '3', '-i', '0.2', '-W', '2'])).toBe(0);
    const peer = await server.waitFor((e) => e.type === 'peer', 5000, 'peer event');
    expect(peer.cipher).toBe(cipher);
    const { code, report } = await runIperf(net, { server: SERVER, client: CLIENT }, ['-t', '2']);
    expect(code, report.error).toBe(0);
    expect(receivedBitsPerSecond(report)).toBeGreaterThan(10e6);
  }, 40_000);
});

it('first client packets of TCP connections are not flagged by the USENIX Security 2023 detector', async () => {
  // The detector itself flags random bytes, so a pass below means something.
  expect(classifyFirstPacket(randomBytes(200)).flagged).toBe(true);

  const wire = join(net.dir, 'tcp.pcap');
  const stop = await net.capture(SERVER, 'eth0', `tcp dst port ${FERRY_TCP_PORT}`, wire);
  const server = startServer();
  await server.waitFor((e) => e.type === 'state' && e.state === 'connected', 10_000, 'server up');
  const CONNECTIONS = 12;
  for (let i = 0; i < CONNECTIONS; i++) {
    const client = await startTcpClient();
    expect(await client.stop()).toBe(0);
  }
  await sleep(200);
  await stop();

  const firsts = new Map<number, Buffer>();
  for (const seg of readPcapTcp(wire)) {
    if (seg.payload.length > 0 && !firsts.has(seg.sport)) firsts.set(seg.sport, seg.payload);
  }
  expect(firsts.size).toBe(CONNECTIONS);
  for (const first of firsts.values()) {
    const verdict = classifyFirstPacket(first);
    expect(verdict.flagged, `exemptions ${verdict.exemptions.join(',')}`).toBe(false);
  }
  // Nothing fixed: neither the opening bytes nor the length repeat across connections.
  const packets = [...firsts.values()];
  expect(new Set(packets.map((p) => p.subarray(0, 6).toString('hex'))).size).toBeGreaterThan(
    CONNECTIONS - 2,
  );
  expect(new Set(packets.map((p) => p.length)).size).toBeGreaterThan(CONNECTIONS / 2);
}, 90_000);

interface ProbeResult {
  label: string;
  received: number;
  ended: string;
  ms: number;
}

it('meets every bad TCP input, including a replayed first segment, with the same reaction', async () => {
  const wire = join(net.dir, 'first.pcap');
  const stop = await net.capture(SERVER, 'eth0', `tcp dst port ${FERRY_TCP_PORT}`, wire);
  const server = startServer();
  await server.waitFor((e) => e.type === 'state' && e.state === 'connected', 10_000, 'server up');
  const client = await startTcpClient();
  await sleep(200);
  await stop();
  const replay = readPcapTcp(wire).find((s) => s.payload.length > 0)!.payload;
  expect(replay.length).toBeGreaterThan(121);

  const probes: [string, Buffer][] = [
    ['nothing', Buffer.alloc(0)],
    ['replayed first segment', replay],
    ['printable junk', Buffer.from('GET / HTTP/1.1\r\nHost: example\r\n\r\n')],
  ];
  for (const len of [1, 5, 23, 24, 30, 90, 121, 250, 600, 1400, 5000, 20000])
    probes.push([`random ${len}`, randomBytes(len)]);
  // A valid preamble followed by random bytes gets past the first check.
  probes.push([
    'preamble + random',
    Buffer.concat([Buffer.from(`A${'x'.repeat(23)}`), randomBytes(300)]),
  ]);

  const script = `
    const net = require('node:net');
    const probes = JSON.parse(require('node:fs').readFileSync(0, 'utf8'));
    Promise.all(probes.map(([label, hex]) => new Promise((resolve) => {
      const start = Date.now();
      let received = 0;
      let ended = 'timeout';
      const s = net.connect(${FERRY_TCP_PORT}, '${serverUnderlay}', () => { if (hex) s.write(Buffer.from(hex, 'hex')); });
      s.on('data', (d) => (received += d.length));
      s.on('end', () => { ended = 'fin'; s.end(); });
      s.on('error', (e) => { ended = e.code || 'error'; });
      s.on('close', () => resolve({ label, received, ended, ms: Date.now() - start }));
      setTimeout(() => s.destroy(), 10000);
    }))).then((r) => process.stdout.write(JSON.stringify(r)));`;
  const out = net.exec(
    CLIENT,
    [process.execPath, '-e', script],
    JSON.stringify(probes.map(([l, b]) => [l, b.toString('hex')])),
  );
  const results = JSON.parse(out) as ProbeResult[];
  expect(results).toHaveLength(probes.length);
  for (const r of results) {
    expect(r.received, r.label).toBe(0);
    expect(r.ended, r.label).toBe('fin');
    expect(r.ms, r.label).toBeGreaterThanOrEqual(AUTH_TIMEOUT_MS - 100);
    expect(r.ms, r.label).toBeLessThan(AUTH_TIMEOUT_MS + 600);
  }
  const times = results.map((r) => r.ms);
  expect(Math.max(...times) - Math.min(...times)).toBeLessThan(400);
  // The real client is unaffected, and the replayed handshake was refused as a replay.
  const c = await server.waitCounters((x) => (x.replayDropped ?? 0) >= 1, 5000, 'replay counted');
  expect(c.handshakes).toBe(1);
  expect(pingServerTunnel(net, ['-c', '2', '-W', '2'])).toBe(0);
  expect(client.events.some((e) => e.type === 'state' && e.state === 'connected')).toBe(true);
}, 60_000);

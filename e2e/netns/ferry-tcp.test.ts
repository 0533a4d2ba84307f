// Namespace tests of Ferry's TCP transport: traffic, the GFW fully-encrypted-traffic detector, probe reactions.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';

import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import { classifyFirstPacket } from './ferry-gfw-detector.js';
import { FerryPair, type FerryProcess, SERVER_TUNNEL, requireFerryBuilt } from './ferry-process.js';
import { readPcapTcp } from './pcap.js';
import { TestNetwork, requireTools } from './test-network.js';

const TCP_PORT = 8443;
const AUTH_TIMEOUT_MS = 2000;
// The server and the client are two hosts on the network's access subnet.
const SERVER = 'server';
const CLIENT = 'client';
let net: TestNetwork;
let ferry: FerryPair;
/** The server's address on the access subnet. */
let serverUnderlay: string;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(() => {
  requireTools(['ip', 'ping', 'iperf3', 'tcpdump']);
  requireFerryBuilt();
});

beforeEach(() => {
  net = TestNetwork.create();
  serverUnderlay = net.addAccessHost(SERVER).address;
  net.addAccessHost(CLIENT);
  ferry = FerryPair.create(net, { server: SERVER, client: CLIENT });
});

afterEach(async () => {
  await net.destroyAsync();
});

function startServer(): FerryProcess {
  return ferry.startServer([
    '--tcp-listen',
    `${serverUnderlay}:${TCP_PORT}`,
    '--tcp-auth-timeout',
    String(AUTH_TIMEOUT_MS),
  ]);
}

async function startTcpClient(extra: string[] = []): Promise<FerryProcess> {
  const client = ferry.startClient(
    ['--transport', 'tcp', ...extra],
    `${serverUnderlay}:${TCP_PORT}`,
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
    const p = spawnSync('ip', [
      'netns',
      'exec',
      net.host(CLIENT).ns,
      'ping',
      '-c',
      '3',
      '-i',
      '0.2',
      '-W',
      '2',
      SERVER_TUNNEL,
    ]);
    expect(p.status).toBe(0);
    const peer = await server.waitFor((e) => e.type === 'peer', 5000, 'peer event');
    expect(peer.cipher).toBe(cipher);
    const iperfServer = net.spawn(SERVER, 'iperf3 server', [
      'iperf3',
      '-s',
      '-1',
      '-B',
      SERVER_TUNNEL,
    ]);
    await sleep(500);
    const r = spawnSync(
      'ip',
      ['netns', 'exec', net.host(CLIENT).ns, 'iperf3', '-c', SERVER_TUNNEL, '-t', '2', '--json'],
      {
        encoding: 'utf8',
        timeout: 30_000,
      },
    );
    await iperfServer.stop();
    expect(r.status).toBe(0);
    const bps = (JSON.parse(r.stdout) as { end: { sum_received: { bits_per_second: number } } }).end
      .sum_received.bits_per_second;
    expect(bps).toBeGreaterThan(10e6);
  }, 40_000);
});

it('first client packets of TCP connections are not flagged by the USENIX Security 2023 detector', async () => {
  // The detector itself flags random bytes, so a pass below means something.
  expect(classifyFirstPacket(randomBytes(200)).flagged).toBe(true);

  const wire = join(net.dir, 'tcp.pcap');
  const stop = await net.capture(SERVER, 'eth0', `tcp dst port ${TCP_PORT}`, wire);
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
  const stop = await net.capture(SERVER, 'eth0', `tcp dst port ${TCP_PORT}`, wire);
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
      const s = net.connect(${TCP_PORT}, '${serverUnderlay}', () => { if (hex) s.write(Buffer.from(hex, 'hex')); });
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
  expect(
    spawnSync('ip', [
      'netns',
      'exec',
      net.host(CLIENT).ns,
      'ping',
      '-c',
      '2',
      '-W',
      '2',
      SERVER_TUNNEL,
    ]).status,
  ).toBe(0);
  expect(client.events.some((e) => e.type === 'state' && e.state === 'connected')).toBe(true);
}, 60_000);

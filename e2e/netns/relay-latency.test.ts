// Latency end to end through real relays: each relay's probe responder answers a signed-in
// device's probes and nothing else (a scanner's socket gets no byte back), the control plane's
// status carries the relay's own measurement for a stock wireguard-go client that reports
// nothing (measured at its first handshake: never connected without "<n>ms", connected within
// seconds), and the engine's probeNodes measures every relay of a node list.
import { createHmac, randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Node } from '../../contracts/index.js';
import {
  encodeProbeRequest,
  openProbeReply,
  type HmacSha256,
} from '../../platform/probes/latency-probe.js';
import { Testbed, type RelayHandle } from './testbed.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const hmac: HmacSha256 = (k, m) => createHmac('sha256', k).update(m).digest();
const CUSTOM_PROBE_PORT = 40404;
/** Between two of a relay's latency rounds through the tunnels. */
const ROUND_SECONDS = 10;

/**
 * Run in a namespace: sends each datagram from a socket of its own and prints, per datagram,
 * every answer that socket got within `waitMs` (hex).
 */
const SEND_AND_LISTEN = `
const dgram = require('node:dgram');
const { host, port, datagrams, waitMs } = JSON.parse(require('node:fs').readFileSync(0, 'utf8'));
(async () => {
  const out = [];
  for (const hex of datagrams) {
    const s = dgram.createSocket('udp4');
    const got = [];
    s.on('message', (m) => got.push(m.toString('hex')));
    await new Promise((r) => s.bind(0, r));
    s.send(Buffer.from(hex, 'hex'), port, host);
    await new Promise((r) => setTimeout(r, waitMs));
    s.close();
    out.push(got);
  }
  console.log(JSON.stringify(out));
})();
`;

/** Run in a namespace: the built engine's probeNodes over the targets on stdin. */
const PROBE_NODES = `
import { readFileSync } from 'node:fs';
const { probeNodes } = await import(${JSON.stringify(path.join(ROOT, 'dist/engine/probes/index.js'))});
const targets = JSON.parse(readFileSync(0, 'utf8'));
console.log(JSON.stringify(await probeNodes(targets, { count: 5 })));
`;

describe('latency through real relays', () => {
  let bed: Testbed;
  let tokyo: RelayHandle;
  let anywhere: RelayHandle;
  let nodes: Node[];
  let token: string;
  beforeAll(async () => {
    // The relays' rounds are 10 s apart: a status within seconds of a handshake can only come
    // from the measurement at the handshake itself.
    bed = await Testbed.start({ relayTunnelLatencySeconds: ROUND_SECONDS });
    tokyo = await bed.addRelay('tokyo', 'asia-east');
    anywhere = await bed.addRelay('anywhere', 'global', { probePort: CUSTOM_PROBE_PORT });
    token = (await bed.newDevice(await bed.newAccount())).token;
    nodes = (await bed.control(token).listNodes()).nodes.filter(
      (n) => n.id === tokyo.nodeId || n.id === anywhere.nodeId,
    );
  }, 120_000);
  afterAll(async () => bed?.stop(), 60_000);

  const nodeOf = (r: RelayHandle) => nodes.find((n) => n.id === r.nodeId)!;

  it('publishes each relay’s probe port and key to signed-in devices', () => {
    // The default: just past the WireGuard shards' ports (51820 + 64).
    expect(nodeOf(tokyo).probe?.port).toBe(51884);
    expect(nodeOf(anywhere).probe?.port).toBe(CUSTOM_PROBE_PORT);
    expect(nodeOf(tokyo).probe!.key).not.toBe(nodeOf(anywhere).probe!.key);
  });

  it('answers a device’s probe, and a wrong-key, replayed, unsigned, stale or noise one not at all', async () => {
    const scanner = bed.net.addAccessHost('scanner');
    const probe = nodeOf(tokyo).probe!;
    const key = Buffer.from(probe.key, 'base64');
    const now = Date.now();
    const goodNonce = randomBytes(16);
    const good = encodeProbeRequest(key, goodNonce, now, hmac);
    const unsigned = Uint8Array.from(good);
    unsigned.fill(0, 24);
    const laterNonce = randomBytes(16);
    const datagrams = [
      good,
      good, // the same again: a replay
      encodeProbeRequest(randomBytes(32), randomBytes(16), now, hmac),
      unsigned,
      encodeProbeRequest(key, randomBytes(16), now - 60_000, hmac),
      randomBytes(40),
      randomBytes(512),
      // Bad input changed nothing: a new probe is answered.
      encodeProbeRequest(key, laterNonce, Date.now(), hmac),
    ].map((d) => Buffer.from(d).toString('hex'));
    const out = bed.net.exec(
      'scanner',
      [process.execPath, '-e', SEND_AND_LISTEN],
      JSON.stringify({ host: tokyo.address, port: probe.port, datagrams, waitMs: 500 }),
    );
    const answers: string[][] = JSON.parse(out);
    expect(answers.map((a) => a.length)).toEqual([1, 0, 0, 0, 0, 0, 0, 1]);
    const nonceOf = (hex: string) =>
      Buffer.from(openProbeReply(Buffer.from(hex, 'hex'), key, hmac) ?? []).toString('hex');
    expect(nonceOf(answers[0]![0]!)).toBe(goodNonce.toString('hex'));
    expect(nonceOf(answers[7]![0]!)).toBe(laterNonce.toString('hex'));
    // The other relay's key opens nothing here.
    const other = encodeProbeRequest(
      Buffer.from(nodeOf(anywhere).probe!.key, 'base64'),
      randomBytes(16),
      Date.now(),
      hmac,
    );
    const cross = JSON.parse(
      bed.net.exec(
        'scanner',
        [process.execPath, '-e', SEND_AND_LISTEN],
        JSON.stringify({
          host: tokyo.address,
          port: probe.port,
          datagrams: [Buffer.from(other).toString('hex')],
          waitMs: 500,
        }),
      ),
    );
    expect(cross).toEqual([[]]);
    // No-logs: the relay wrote nothing about where probes came from.
    expect(tokyo.process.output()).not.toContain(scanner.address);
  }, 60_000);

  /**
   * A stock wireguard-go client set up as a full tunnel is from its start: its address, and the
   * gateway (where the relay's echoes come from) routed into the tunnel, before its first
   * handshake; `bed.connect` then gives it its peer.
   */
  async function fullTunnelClient(host: string) {
    const device = await bed.newDevice(await bed.newAccount());
    const client = await bed.addClient(host, device);
    const ex = (...argv: string[]) => bed.net.exec(host, argv);
    ex('ip', 'address', 'add', `${device.ipv4}/32`, 'dev', client.interfaceName);
    ex('ip', 'link', 'set', client.interfaceName, 'up');
    bed.routeGateway(client);
    return { device, client, status: () => bed.control(device.token).status() };
  }

  it('says connected from the first handshake on only with "<n>ms", within seconds of it', async () => {
    const { client, status } = await fullTunnelClient('stock');
    // Every answer of GET /status from before the connect until connected (or 15 s).
    const seen: { ms: number; status: string; latency: string | null }[] = [];
    let polling = true;
    const poller = (async () => {
      const until = Date.now() + 15_000;
      while (polling && Date.now() < until) {
        const s = await status();
        seen.push({ ms: Date.now(), status: s.status, latency: s.latency });
        if (s.status === 'connected') break;
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    // The first handshake comes during the connect (the peer is set on an interface that is up).
    const started = Date.now();
    await bed.connect(client, { region: 'asia-east' });
    try {
      await poller;
    } finally {
      polling = false;
    }
    const described = () =>
      `${JSON.stringify(seen.map((s) => ({ ...s, ms: s.ms - started })))}\n${bed.diagnostics(client)}`;
    // The handshake came (the tunnel carries traffic): wg shows when.
    const latest = Number(
      bed.net
        .exec('stock', ['wg', 'show', client.interfaceName, 'latest-handshakes'])
        .split(/\s+/)[1],
    );
    expect(latest, described()).toBeGreaterThan(0);
    for (const s of seen)
      if (s.status === 'connected')
        expect(s, described()).toMatchObject({ latency: expect.stringMatching(/^\d+ms$/) });
    const connected = seen.find((s) => s.status === 'connected');
    expect(connected, described()).toBeDefined();
    // A heartbeat (1 s apart here) sees the handshake, the relay measures the tunnel at once
    // and reports again: not at its next round, 10 s away.
    expect(connected!.ms - started, described()).toBeLessThan(3_000);
    expect(parseInt(connected!.latency!, 10)).toBeLessThan(1_000);
  }, 60_000);

  it('keeps a client that answers no echo connecting, then shows the relay’s own measurement', async () => {
    const { client, status } = await fullTunnelClient('laptop');
    // The client answers no echo: its tunnel is up, but nothing measured it, so it is not
    // connected (and no latency is made up for it).
    bed.net.exec(
      'laptop',
      ['nft', '-f', '-'],
      'table inet noecho {\n chain input {\n type filter hook input priority 0;\n icmp type echo-request drop\n }\n}\n',
    );
    await bed.connect(client, { region: 'asia-east' });
    try {
      await bed.net.waitFor('traffic through the tunnel', 10_000, () =>
        bed.echoFrom('laptop', 1) ? true : undefined,
      );
    } catch (e) {
      throw new Error(`${(e as Error).message}\n${bed.diagnostics(client)}`);
    }
    // Several heartbeats (1 s apart) go by, the measurement at the handshake among them.
    await new Promise((r) => setTimeout(r, 4_000));
    expect(await status()).toMatchObject({
      status: 'connecting',
      latency: null,
      region: 'asia-east',
    });

    bed.net.exec('laptop', ['nft', 'delete', 'table', 'inet', 'noecho']);
    const measured = await bed.net.waitFor(
      'the status to carry a latency',
      (ROUND_SECONDS + 10) * 1000,
      async () => {
        const s = await status();
        return s.latency !== null ? s : undefined;
      },
    );
    expect(measured).toMatchObject({ status: 'connected', region: 'asia-east' });
    expect(measured.latency).toMatch(/^\d+ms$/);
    // Within a namespace on one machine the round trip is short; a second is not short.
    expect(parseInt(measured.latency!, 10)).toBeLessThan(1_000);

    // The client's own report, when it sends one, is what the status shows.
    const reported = await bed.control(client.device.token).reportLatency({
      body: { latency_ms: 777 },
    });
    expect(reported.latency).toBe('777ms');
  }, 90_000);

  it('measures every relay of the node list with the engine’s probeNodes', async () => {
    bed.net.addAccessHost('prober');
    const targets = nodes.map((n) => ({
      id: n.id,
      region: n.region,
      host: n.endpoint_host,
      port: n.probe!.port,
      key: n.probe!.key,
    }));
    const out = bed.net.exec(
      'prober',
      [process.execPath, '--input-type=module', '-e', PROBE_NODES],
      JSON.stringify(targets),
    );
    const results = JSON.parse(out) as {
      node_id: string;
      samples: number;
      loss: number;
      avg_ms: number | null;
    }[];
    expect(results.map((r) => r.node_id).sort()).toEqual([tokyo.nodeId, anywhere.nodeId].sort());
    for (const r of results) {
      expect(r).toMatchObject({ samples: 5, loss: 0, method: 'authenticated UDP probe' });
      expect(r.avg_ms).toBeGreaterThan(0);
    }
  }, 60_000);
});

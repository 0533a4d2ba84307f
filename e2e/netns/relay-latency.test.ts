// Latency end to end through real relays: each relay's probe responder answers a signed-in
// device's probes and nothing else (a scanner's socket gets no byte back), the control plane's
// status carries the relay's own measurement for a stock wireguard-go client that reports
// nothing, and the engine's probeNodes measures every relay of a node list.
import { createHmac, randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Node } from '../../contracts/index.js';
import { encodeProbeRequest, openProbeReply, type HmacSha256 } from '../../contracts/probe.js';
import { Testbed, type RelayHandle } from './testbed.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const hmac: HmacSha256 = (k, m) => createHmac('sha256', k).update(m).digest();
const CUSTOM_PROBE_PORT = 40404;

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
    bed = await Testbed.start({ relayTunnelLatencySeconds: 1 });
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

  it('shows the relay’s own measurement in GET /status for a client that reports nothing', async () => {
    const device = await bed.newDevice(await bed.newAccount());
    const client = await bed.addClient('laptop', device);
    await bed.connect(client, { region: 'asia-east' });
    // The replies to the relay's echoes go back through the tunnel, as a full tunnel's would.
    bed.routeGateway(client);
    // First the client answers no echo: connected, and no latency made up for it.
    bed.net.exec(
      'laptop',
      ['nft', '-f', '-'],
      'table inet noecho {\n chain input {\n type filter hook input priority 0;\n icmp type echo-request drop\n }\n}\n',
    );
    const status = () => bed.control(device.token).status();
    try {
      await bed.net.waitFor('the tunnel to count as up', 15_000, async () =>
        (await status()).status === 'connected' ? true : undefined,
      );
    } catch (e) {
      throw new Error(`${(e as Error).message}\n${bed.diagnostics(client)}`);
    }
    // Several of the relay's rounds (1 s apart) and heartbeats (1 s apart) go by.
    await new Promise((r) => setTimeout(r, 4_000));
    expect(await status()).toMatchObject({ status: 'connected', latency: null });

    bed.net.exec('laptop', ['nft', 'delete', 'table', 'inet', 'noecho']);
    const measured = await bed.net.waitFor('the status to carry a latency', 15_000, async () => {
      const s = await status();
      return s.latency !== null ? s : undefined;
    });
    expect(measured).toMatchObject({ status: 'connected', region: 'asia-east' });
    expect(measured.latency).toMatch(/^\d+ms$/);
    // Within a namespace on one machine the round trip is short; a second is not short.
    expect(parseInt(measured.latency!, 10)).toBeLessThan(1_000);

    // The client's own report, when it sends one, is what the status shows.
    const reported = await bed.control(device.token).reportLatency({ body: { latency_ms: 777 } });
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

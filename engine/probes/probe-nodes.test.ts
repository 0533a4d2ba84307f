// Probing nodes over real UDP sockets on loopback, against stand-in nodes that answer as the
// relay's responder does (or drop, or answer wrongly): what is measured, what counts as lost,
// and that a round ends by its deadline or its signal.
import { execFileSync } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import dgram from 'node:dgram';
import { performance } from 'node:perf_hooks';
import { afterEach, describe, expect, it } from 'vitest';
import type { Node } from '../../contracts/index.js';
import { encodeProbeReply, openProbeRequest, type HmacSha256 } from '../../contracts/probe.js';
import { probeNodes, probeTargets } from './probe-nodes.js';
import { PROBE_METHOD, probeNode, type ProbeTarget } from './udp-probe.js';

const hmac: HmacSha256 = (k, m) => createHmac('sha256', k).update(m).digest();

interface FakeNode {
  target: ProbeTarget;
  received: number;
  /** With `marks`: the mark of each probe's socket as the kernel holds it (ss -e). */
  marks: (string | undefined)[];
}

const sockets: dgram.Socket[] = [];
afterEach(() => {
  for (const s of sockets.splice(0)) s.close();
});

/**
 * A node on loopback. `answer` decides per probe (0-based): 'ok', 'drop', 'wrong-key' (a reply
 * under another key), 'echo' (the request sent back), or a delay in ms before an ok answer.
 */
async function fakeNode(
  id: string,
  answer: (n: number) => 'ok' | 'drop' | 'wrong-key' | 'echo' | number = () => 'ok',
  opts: { marks?: boolean } = {},
): Promise<FakeNode> {
  const key = randomBytes(32);
  const socket = dgram.createSocket('udp4');
  sockets.push(socket);
  const node: FakeNode = {
    target: { id, region: 'r', host: '127.0.0.1', port: 0, key: key.toString('base64') },
    received: 0,
    marks: [],
  };
  socket.on('message', (msg, rinfo) => {
    const req = openProbeRequest(msg, key, hmac);
    if (!req) return;
    if (opts.marks) {
      const ss = execFileSync('ss', ['-uane', `sport = :${rinfo.port}`], { encoding: 'utf8' });
      node.marks.push(/fwmark:(0x[0-9a-f]+)/.exec(ss)?.[1]);
    }
    const what = answer(node.received++);
    const send = (d: Uint8Array) => socket.send(d, rinfo.port, rinfo.address);
    if (what === 'ok') send(encodeProbeReply(key, req.nonce, hmac));
    else if (what === 'wrong-key') send(encodeProbeReply(randomBytes(32), req.nonce, hmac));
    else if (what === 'echo') send(msg);
    else if (typeof what === 'number')
      setTimeout(() => send(encodeProbeReply(key, req.nonce, hmac)), what);
  });
  await new Promise<void>((r) => socket.bind(0, '127.0.0.1', r));
  node.target.port = socket.address().port;
  return node;
}

describe('probeNode', () => {
  it('measures average, jitter and loss over the answered probes', async () => {
    const node = await fakeNode('n1');
    const r = await probeNode(node.target, { count: 5, intervalMs: 20, timeoutMs: 500 });
    expect(node.received).toBe(5);
    expect(r).toMatchObject({ node_id: 'n1', region: 'r', method: PROBE_METHOD, samples: 5 });
    expect(r.loss).toBe(0);
    expect(r.avg_ms).toBeGreaterThanOrEqual(0);
    expect(r.avg_ms).toBeLessThan(500);
    expect(r.jitter_ms).not.toBeNull();
  });

  it('counts unanswered probes as lost, and times the late answer', async () => {
    const node = await fakeNode('n2', (n) => (n % 2 === 1 ? 'drop' : n === 4 ? 60 : 'ok'));
    const r = await probeNode(node.target, { count: 5, intervalMs: 10, timeoutMs: 300 });
    expect(r.samples).toBe(5);
    expect(r.loss).toBeCloseTo(0.4, 10);
    // Probe 4 waited 60 ms: the average shows it.
    expect(r.avg_ms).toBeGreaterThanOrEqual(20);
  });

  it('takes no answer that is not made with the node’s key for one of its nonces', async () => {
    const wrong = await fakeNode('w', () => 'wrong-key');
    const echo = await fakeNode('e', () => 'echo');
    for (const node of [wrong, echo]) {
      const r = await probeNode(node.target, { count: 3, intervalMs: 10, timeoutMs: 150 });
      expect(r).toMatchObject({ samples: 3, loss: 1, avg_ms: null, jitter_ms: null });
    }
  });

  it('shows a node that answers nothing, or has no usable key, as lost', async () => {
    const silent = await fakeNode('s', () => 'drop');
    expect(
      await probeNode(silent.target, { count: 2, intervalMs: 10, timeoutMs: 100 }),
    ).toMatchObject({ samples: 2, loss: 1, avg_ms: null });
    for (const key of ['not base64!', Buffer.alloc(16).toString('base64')]) {
      expect(
        await probeNode({ ...silent.target, key }, { count: 2, timeoutMs: 100 }),
      ).toMatchObject({ samples: 0, loss: 1 });
    }
  });

  it('sends from a socket with the tunnel sockets’ mark (around the tunnel; the kill switch lets probes out by it)', async () => {
    const node = await fakeNode('m', () => 'ok', { marks: true });
    await probeNode(node.target, { count: 2, intervalMs: 10, timeoutMs: 500 });
    expect(node.marks).toEqual(['0x6665', '0x6665']);
  });

  it('fails, sending nothing, when its socket cannot be marked', async () => {
    const node = await fakeNode('u');
    const cannot = () => {
      throw new Error('cannot set the socket mark: Operation not permitted');
    };
    await expect(
      probeNode(node.target, { count: 2, timeoutMs: 100, openSocket: cannot }),
    ).rejects.toThrow(/socket mark/);
    expect(node.received).toBe(0);
  });

  it('rejects with the signal’s reason when aborted', async () => {
    const node = await fakeNode('a', () => 'drop');
    const stop = new AbortController();
    const probing = probeNode(node.target, { count: 5, timeoutMs: 5_000, signal: stop.signal });
    setTimeout(() => stop.abort(new Error('cancelled')), 50);
    await expect(probing).rejects.toThrow('cancelled');
  });
});

describe('probeNodes', () => {
  it('probes every node, answering in the order given', async () => {
    const nodes = await Promise.all(
      Array.from({ length: 10 }, (_, i) => fakeNode(`n${i}`, () => (i === 3 ? 'drop' : 'ok'))),
    );
    const progress: string[] = [];
    const results = await probeNodes(
      nodes.map((n) => n.target),
      {
        count: 5,
        intervalMs: 20,
        timeoutMs: 300,
        onResult: (r, i) => progress.push(`${i}:${r.node_id}`),
      },
    );
    expect(results.map((r) => r.node_id)).toEqual(nodes.map((n) => n.target.id));
    expect(progress.sort()).toEqual(nodes.map((n, i) => `${i}:${n.target.id}`).sort());
    expect(results.every((r) => r.samples === 5)).toBe(true);
    expect(results.map((r) => r.loss)).toEqual([0, 0, 0, 1, 0, 0, 0, 0, 0, 0]);
  });

  it('ends by its deadline, whatever the nodes do, showing what it could not measure', async () => {
    const nodes = await Promise.all(
      Array.from({ length: 4 }, (_, i) => fakeNode(`slow${i}`, () => 'drop')),
    );
    const started = performance.now();
    const results = await probeNodes(
      nodes.map((n) => n.target),
      { count: 5, intervalMs: 100, timeoutMs: 10_000, concurrency: 2, deadlineMs: 400 },
    );
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(results.every((r) => r.loss === 1 && r.avg_ms === null)).toBe(true);
    // The first wave sent what fits in the budget; the second had none left.
    expect(results.slice(0, 2).every((r) => r.samples >= 1 && r.samples < 5)).toBe(true);
    expect(results.slice(2).map((r) => r.samples)).toEqual([0, 0]);
  });

  it('rejects when aborted', async () => {
    const node = await fakeNode('x', () => 'drop');
    const stop = new AbortController();
    stop.abort(new Error('gone'));
    await expect(probeNodes([node.target], { count: 1, signal: stop.signal })).rejects.toThrow(
      'gone',
    );
  });
});

describe('probeTargets', () => {
  it('takes the nodes that run a probe responder, from a node list', () => {
    const base = {
      region: 'asia-east',
      endpoint_host: '192.0.2.7',
      wireguard_port: 51820,
      ferry_port: null,
      wireguard_public_key: null,
      ferry_public_key: null,
      load: 0,
      capacity_mbps: 1,
      healthy: true,
    };
    const key = randomBytes(32).toString('base64');
    const nodes: Node[] = [
      { ...base, id: 'a', probe: { port: 51884, key } },
      { ...base, id: 'b', probe: null },
    ];
    expect(probeTargets(nodes)).toEqual([
      { id: 'a', region: 'asia-east', host: '192.0.2.7', port: 51884, key },
    ]);
  });
});

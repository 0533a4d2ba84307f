// Probing nodes through the datagram seam, against stand-in responders that answer as the relay's
// does (or drop, or answer wrongly), on fake timers: what is measured (round trips exactly), what
// counts as lost, and that a round ends by its deadline or its signal. The real marked sockets
// have their own test (datagrams.test.ts) and run against real relays in e2e/netns/relay-latency.
import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Node } from '../../contracts/index.js';
import { ANSWER_MS, FakeDatagrams, UNREACHABLE_ADDRESS } from './datagrams.fake.js';
import { probeNodes, probeTargets } from './probe-nodes.js';
import { round2 } from './statistics.js';
import { PROBE_METHOD, probeNode } from './udp-probe.js';

let datagrams: FakeDatagrams;
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance', 'Date'] });
  datagrams = new FakeDatagrams();
});
afterEach(() => {
  // Every probe closes its socket, however it ended.
  expect(datagrams.openSockets).toBe(0);
  vi.useRealTimers();
});

/** `p` once every timer it needs has fired (no real time passes). */
async function settled<T>(p: Promise<T>): Promise<T> {
  const outcome = p.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  await vi.runAllTimersAsync();
  const r = await outcome;
  if ('error' in r) throw r.error;
  return r.value;
}

describe('probeNode', () => {
  it('measures average, jitter and loss over the answered probes', async () => {
    const delays = [10, 20, 30, 20, 10];
    const node = datagrams.responder('n1', (n) => ({ afterMs: delays[n]! }));
    const r = await settled(
      probeNode(node.target, { count: 5, intervalMs: 20, timeoutMs: 500, datagrams }),
    );
    expect(node.received).toBe(5);
    expect(r).toMatchObject({ node_id: 'n1', region: 'r', method: PROBE_METHOD, samples: 5 });
    expect(r.loss).toBe(0);
    expect(r.avg_ms).toBeGreaterThanOrEqual(0);
    expect(r.avg_ms).toBeLessThan(500);
    expect(r.avg_ms).toBe(18);
    expect(r.jitter_ms).not.toBeNull();
    expect(r.jitter_ms).toBe(10);
  });

  it('counts unanswered probes as lost, and times the late answer', async () => {
    const node = datagrams.responder('n2', (n) =>
      n % 2 === 1 ? 'drop' : n === 4 ? { afterMs: 60 } : 'ok',
    );
    const r = await settled(
      probeNode(node.target, { count: 5, intervalMs: 10, timeoutMs: 300, datagrams }),
    );
    expect(r.samples).toBe(5);
    expect(r.loss).toBeCloseTo(0.4, 10);
    // Probe 4 waited 60 ms: the average shows it.
    expect(r.avg_ms).toBeGreaterThanOrEqual(20);
    expect(r.avg_ms).toBe(round2((ANSWER_MS + ANSWER_MS + 60) / 3));
  });

  it('counts an answer that comes after its probe’s timeout as lost', async () => {
    const node = datagrams.responder('late', () => ({ afterMs: 150 }));
    const r = await settled(
      probeNode(node.target, { count: 2, intervalMs: 10, timeoutMs: 100, datagrams }),
    );
    expect(r).toMatchObject({ samples: 2, loss: 1, avg_ms: null });
  });

  it('takes no answer that is not made with the node’s key for one of its nonces', async () => {
    const wrong = datagrams.responder('w', () => 'wrong-key');
    const echo = datagrams.responder('e', () => 'echo');
    for (const node of [wrong, echo]) {
      const r = await settled(
        probeNode(node.target, { count: 3, intervalMs: 10, timeoutMs: 150, datagrams }),
      );
      expect(node.received).toBe(3);
      expect(r).toMatchObject({ samples: 3, loss: 1, avg_ms: null, jitter_ms: null });
    }
  });

  it('shows a node that answers nothing, or has no usable key, as lost', async () => {
    const silent = datagrams.responder('s', () => 'drop');
    expect(
      await settled(
        probeNode(silent.target, { count: 2, intervalMs: 10, timeoutMs: 100, datagrams }),
      ),
    ).toMatchObject({ samples: 2, loss: 1, avg_ms: null });
    for (const key of ['not base64!', Buffer.alloc(16).toString('base64')]) {
      expect(
        await settled(
          probeNode({ ...silent.target, key }, { count: 2, timeoutMs: 100, datagrams }),
        ),
      ).toMatchObject({ samples: 0, loss: 1 });
    }
    expect(silent.received).toBe(2);
  });

  it('shows a node it cannot reach at all as lost, nothing sent', async () => {
    const node = datagrams.responder('u');
    const r = await settled(
      probeNode(
        { ...node.target, host: UNREACHABLE_ADDRESS },
        { count: 3, timeoutMs: 100, datagrams },
      ),
    );
    expect(r).toMatchObject({ samples: 0, loss: 1, avg_ms: null });
  });

  it('fails, sending nothing, when its socket cannot be made as required (marked)', async () => {
    const node = datagrams.responder('u');
    datagrams.failOpen = new Error('cannot set the socket mark: Operation not permitted');
    await expect(
      settled(probeNode(node.target, { count: 2, timeoutMs: 100, datagrams })),
    ).rejects.toThrow(/socket mark/);
    expect(node.received).toBe(0);
  });

  it('rejects with the signal’s reason when aborted', async () => {
    const node = datagrams.responder('a', () => 'drop');
    const stop = new AbortController();
    const probing = probeNode(node.target, {
      count: 5,
      timeoutMs: 5_000,
      signal: stop.signal,
      datagrams,
    });
    setTimeout(() => stop.abort(new Error('cancelled')), 50);
    await expect(settled(probing)).rejects.toThrow('cancelled');
    // Aborted at 50 ms: the probes planned after it were never sent.
    expect(node.received).toBe(1);
  });
});

describe('probeNodes', () => {
  it('probes every node, answering in the order given', async () => {
    const nodes = Array.from({ length: 10 }, (_, i) =>
      datagrams.responder(`n${i}`, () => (i === 3 ? 'drop' : { afterMs: i + 1 })),
    );
    const progress: string[] = [];
    const results = await settled(
      probeNodes(
        nodes.map((n) => n.target),
        {
          count: 5,
          intervalMs: 20,
          timeoutMs: 300,
          onResult: (r, i) => progress.push(`${i}:${r.node_id}`),
          datagrams,
        },
      ),
    );
    expect(results.map((r) => r.node_id)).toEqual(nodes.map((n) => n.target.id));
    expect(progress.sort()).toEqual(nodes.map((n, i) => `${i}:${n.target.id}`).sort());
    expect(results.every((r) => r.samples === 5)).toBe(true);
    expect(results.map((r) => r.loss)).toEqual([0, 0, 0, 1, 0, 0, 0, 0, 0, 0]);
    expect(results.map((r) => r.avg_ms)).toEqual([1, 2, 3, null, 5, 6, 7, 8, 9, 10]);
  });

  it('ends by its deadline, whatever the nodes do, showing what it could not measure', async () => {
    const nodes = Array.from({ length: 4 }, (_, i) =>
      datagrams.responder(`slow${i}`, () => 'drop'),
    );
    const started = performance.now();
    const results = await settled(
      probeNodes(
        nodes.map((n) => n.target),
        {
          count: 5,
          intervalMs: 100,
          timeoutMs: 10_000,
          concurrency: 2,
          deadlineMs: 400,
          datagrams,
        },
      ),
    );
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(performance.now() - started).toBe(400);
    expect(results.every((r) => r.loss === 1 && r.avg_ms === null)).toBe(true);
    // The first wave sent what fits in the budget; the second had none left.
    expect(results.slice(0, 2).every((r) => r.samples >= 1 && r.samples < 5)).toBe(true);
    expect(results.slice(2).map((r) => r.samples)).toEqual([0, 0]);
  });

  it('rejects when aborted', async () => {
    const node = datagrams.responder('x', () => 'drop');
    const stop = new AbortController();
    stop.abort(new Error('gone'));
    await expect(
      probeNodes([node.target], { count: 1, signal: stop.signal, datagrams }),
    ).rejects.toThrow('gone');
    expect(node.received).toBe(0);
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

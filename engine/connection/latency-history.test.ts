// The engine's latency history, following a real state machine: the measurements of one
// tunnel to its node, bounded, afresh for another node, none once a connect begins or a
// disconnect ends. (The terminal UI and the app kept copies of their own before; their
// assertions moved here.)
import { describe, expect, it } from 'vitest';
import { LATENCY_HISTORY_SIZE } from '../../contracts/index.js';
import { LatencyHistory } from './latency-history.js';
import { ConnectionStateMachine, type TunnelInfo } from './machine.js';

const target = {
  region: 'auto',
  protocol: 'wireguard',
  encryption: 'AES-256-GCM',
  mode: 'secure',
} as const;
const tunnelTo = (nodeId: string, region = 'asia-east'): TunnelInfo => ({
  nodeId,
  region,
  protocol: 'wireguard',
  cipher: 'ChaCha20-Poly1305',
  interfaceName: 'ferry0',
});

function followed(size?: number) {
  const machine = new ConnectionStateMachine();
  const history = new LatencyHistory(size);
  machine.on((change) => history.follow(change));
  const up = (node: string, ms: number, region?: string) =>
    machine.dispatch({ type: 'tunnel-up', tunnel: tunnelTo(node, region), latencyMs: ms });
  const measure = (ms: number) => machine.dispatch({ type: 'latency', latencyMs: ms });
  return { machine, history, up, measure };
}

describe('LatencyHistory', () => {
  it('keeps the readings of one tunnel, afresh for another node, none disconnected', () => {
    const { machine, history, up, measure } = followed();
    machine.dispatch({ type: 'connect', reason: 'user-connect', target });
    expect(history.samples).toEqual([]);
    up('tokyo-1', 12);
    measure(14);
    measure(9.5);
    expect(history.samples).toEqual([12, 14, 9.5]);
    // A switch to another region: a new node's readings start afresh.
    machine.dispatch({ type: 'tunnel-lost', reason: 'settings-changed' });
    up('zurich-1', 40, 'global');
    expect(history.samples).toEqual([40]);
    machine.dispatch({ type: 'disconnect', reason: 'user-disconnect' });
    machine.dispatch({ type: 'cleaned-up' });
    expect(history.samples).toEqual([]);
  });

  it('keeps the last 60 measurements, the newest last', () => {
    const { machine, history, up, measure } = followed();
    expect(LATENCY_HISTORY_SIZE).toBe(60);
    machine.dispatch({ type: 'connect', reason: 'user-connect', target });
    up('tokyo-1', 100);
    for (let i = 0; i < LATENCY_HISTORY_SIZE + 4; i++) measure(i);
    measure(4.5);
    const samples = history.samples;
    expect(samples).toHaveLength(LATENCY_HISTORY_SIZE);
    expect(samples.at(-1)).toBe(4.5);
    expect(samples[0]).toBe(5);
  });

  it('rounds as the status’s latency does: whole ms, one decimal below 10 ms', () => {
    const { machine, history, up, measure } = followed();
    machine.dispatch({ type: 'connect', reason: 'user-connect', target });
    up('tokyo-1', 12.4);
    measure(9.46);
    measure(0.04);
    expect(history.samples).toEqual([12, 9.5, 0]);
  });

  it('goes on through a reconnect to the same node; a new connect after an error starts afresh', () => {
    const { machine, history, up, measure } = followed();
    machine.dispatch({ type: 'connect', reason: 'user-connect', target });
    up('tokyo-1', 12);
    machine.dispatch({ type: 'tunnel-lost', reason: 'node-unreachable' });
    // A measurement that finished after the tunnel went is not the tunnel's.
    measure(500);
    up('tokyo-1', 13);
    expect(history.samples).toEqual([12, 13]);
    machine.dispatch({ type: 'fail', error: { code: 'tunnel-failed', message: 'gone' } });
    expect(history.samples).toEqual([12, 13]);
    machine.dispatch({ type: 'connect', reason: 'user-connect', target });
    expect(history.samples).toEqual([]);
  });

  it('gives a copy: a status already sent does not change with the next measurement', () => {
    const { machine, history, up, measure } = followed(3);
    machine.dispatch({ type: 'connect', reason: 'user-connect', target });
    up('tokyo-1', 12);
    const sent = history.samples;
    measure(13);
    measure(14);
    measure(15);
    expect(sent).toEqual([12]);
    expect(history.samples).toEqual([13, 14, 15]);
  });
});

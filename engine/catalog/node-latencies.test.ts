import { describe, expect, it } from 'vitest';

import { NodeLatencies, THROUGH_TUNNEL_METHOD } from './node-latencies.js';

describe('NodeLatencies', () => {
  it('measures the node in use through the tunnel: echoes to its gateway on the tunnel’s interface', async () => {
    const asked: string[] = [];
    const answers = [12, null, 14];
    const latencies = new NodeLatencies(undefined, async (iface, gateway) => {
      asked.push(`${iface} ${gateway}`);
      return answers.shift() ?? null;
    });
    const result = await latencies.measureThroughTunnel(
      { id: 'hk-1', region: 'asia-east' },
      { interfaceName: 'fytmain1a2b3c', gateway: '10.64.0.1' },
      3,
    );
    expect(asked).toEqual(Array(3).fill('fytmain1a2b3c 10.64.0.1'));
    expect(result).toEqual({
      node_id: 'hk-1',
      region: 'asia-east',
      method: THROUGH_TUNNEL_METHOD,
      samples: 3,
      avg_ms: 13,
      jitter_ms: 2,
      loss: 1 / 3,
    });
    // Taken in for smart routing as any measurement.
    expect(latencies.smoothed['hk-1']).toBe(13);
  });

  it('counts a ping that cannot run as a lost echo', async () => {
    const latencies = new NodeLatencies(undefined, async () => {
      throw new Error('no ping');
    });
    const result = await latencies.measureThroughTunnel(
      { id: 'hk-1', region: 'asia-east' },
      { interfaceName: 'fyt0', gateway: '10.64.0.1' },
      1,
    );
    expect(result).toMatchObject({ samples: 1, loss: 1, avg_ms: null });
  });
});

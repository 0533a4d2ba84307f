// node-udp and node-tcp with fake probes: a live tunnel's evidence (UDP, TCP after UDP got no
// answer, obfuscation on), and without one each combination of the active probes' results.
import { describe, expect, it } from 'vitest';
import {
  ANOTHER_REGION_FIX,
  OBFUSCATION_FIX,
  checkNodeReach,
  type NodeReachDeps,
  type NodeTarget,
  type TcpOutcome,
} from './node-reach.js';

const signal = new AbortController().signal;
const NODE: NodeTarget = {
  id: 'hk-1',
  region: 'asia-east',
  address: '192.0.2.10',
  probe: { port: 51822, key: Buffer.alloc(32, 1).toString('base64') },
  ferryPort: 51821,
};

function deps(
  over: Partial<NodeReachDeps> & { udp?: number | null; tcp?: TcpOutcome } = {},
): NodeReachDeps & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    tunnel: null,
    node: async () => NODE,
    allow: async () => {
      calls.push('allow');
      return true;
    },
    release: async () => void calls.push('release'),
    probeUdp: async (t) => {
      calls.push(`udp ${t.address}:${t.probe?.port}`);
      return over.udp === undefined ? 14.2 : over.udp;
    },
    connectTcp: async (address, port) => {
      calls.push(`tcp ${address}:${port}`);
      return over.tcp ?? 'connected';
    },
    ...over,
  };
}

const verdicts = (r: { verdict: string }[]) => r.map((c) => c.verdict);

describe('node-udp and node-tcp with a tunnel up', () => {
  it('take a UDP tunnel as UDP’s proof, and send nothing', async () => {
    const d = deps({ tunnel: { nodeId: 'hk-1', transport: 'udp', notices: [] } });
    const [udp, tcp] = await checkNodeReach(d, signal);
    expect(udp).toMatchObject({ verdict: 'ok', summary: 'the tunnel to hk-1 runs over UDP' });
    expect(tcp.verdict).toBe('skipped');
    expect(d.calls).toEqual([]);
  });

  it('name UDP blocked, with the obfuscation fix, when the connect fell back to TCP', async () => {
    const d = deps({ tunnel: { nodeId: 'hk-1', transport: 'tcp', notices: ['udp-blocked'] } });
    const [udp, tcp] = await checkNodeReach(d, signal);
    expect(udp).toEqual({
      id: 'node-udp',
      title: 'Node over UDP',
      verdict: 'problem',
      summary: 'UDP to the node gets no answer on this network: the connect fell back to TCP',
      fix: OBFUSCATION_FIX,
      finding: 'fell-back',
      params: { transport: 'tcp' },
      action: { kind: 'setting', key: 'obfuscation', value: 'on' },
    });
    expect(tcp).toMatchObject({ verdict: 'ok', fix: null });
  });

  it('skip UDP when obfuscation is on (TCP by choice)', async () => {
    const d = deps({ tunnel: { nodeId: 'hk-1', transport: 'tcp', notices: ['obfuscated'] } });
    expect(verdicts(await checkNodeReach(d, signal))).toEqual(['skipped', 'ok']);
  });
});

describe('node-udp and node-tcp without a tunnel', () => {
  it('are ok when both probes get through, after letting them out', async () => {
    const d = deps();
    const [udp, tcp] = await checkNodeReach(d, signal);
    expect(udp).toMatchObject({
      verdict: 'ok',
      summary: 'hk-1 (asia-east) answers authenticated UDP probes (14 ms)',
    });
    expect(tcp).toMatchObject({ verdict: 'ok' });
    expect(d.calls).toEqual(['allow', 'udp 192.0.2.10:51822', 'tcp 192.0.2.10:51821', 'release']);
  });

  it('name UDP blocked with the obfuscation fix when only TCP gets through', async () => {
    const [udp, tcp] = await checkNodeReach(deps({ udp: null }), signal);
    expect(udp).toMatchObject({
      verdict: 'problem',
      summary: 'UDP to the node gets no answer on this network (hk-1 (asia-east))',
      fix: OBFUSCATION_FIX,
    });
    expect(tcp.verdict).toBe('ok');
  });

  it('say to try another region when neither gets through', async () => {
    const [udp, tcp] = await checkNodeReach(deps({ udp: null, tcp: 'timeout' }), signal);
    expect(udp).toMatchObject({ verdict: 'problem', fix: ANOTHER_REGION_FIX });
    expect(tcp).toMatchObject({
      verdict: 'problem',
      summary: "a TCP connect to hk-1 (asia-east)'s Ferry port got no answer within 2 s",
      fix: ANOTHER_REGION_FIX,
    });
  });

  it('warn when only UDP gets through (the TCP fallback would fail)', async () => {
    const [udp, tcp] = await checkNodeReach(deps({ tcp: 'refused' }), signal);
    expect(udp.verdict).toBe('ok');
    expect(tcp).toMatchObject({ verdict: 'warning' });
    expect(tcp.summary).toMatch(/Ferry port was refused: the fallback/);
  });

  it('skip what the node does not offer, and judge UDP alone then', async () => {
    const noProbe = deps({ node: async () => ({ ...NODE, probe: null }) });
    expect(verdicts(await checkNodeReach(noProbe, signal))).toEqual(['skipped', 'ok']);
    expect(noProbe.calls).not.toContainEqual(expect.stringMatching(/^udp/));
    const noFerry = deps({ node: async () => ({ ...NODE, ferryPort: null }), udp: null });
    const [udp, tcp] = await checkNodeReach(noFerry, signal);
    expect(udp).toMatchObject({ verdict: 'problem', fix: ANOTHER_REGION_FIX });
    expect(tcp).toMatchObject({
      verdict: 'skipped',
      summary: 'hk-1 (asia-east) has no Ferry TCP port',
    });
  });

  it('skip both, saying why, when there is no node or the kill switch lets nothing out', async () => {
    const none = deps({ node: async () => ({ none: 'this device is not signed in' }) });
    expect(await checkNodeReach(none, signal)).toMatchObject([
      { verdict: 'skipped', summary: 'this device is not signed in' },
      { verdict: 'skipped', summary: 'this device is not signed in' },
    ]);
    const locked = deps({ allow: async () => false });
    expect(verdicts(await checkNodeReach(locked, signal))).toEqual(['skipped', 'skipped']);
    expect(locked.calls).toEqual([]);
  });

  it('take back what it let out even when a probe fails', async () => {
    const d = deps({
      connectTcp: async () => {
        throw new Error('aborted');
      },
    });
    await expect(checkNodeReach(d, signal)).rejects.toThrow('aborted');
    expect(d.calls.at(-1)).toBe('release');
  });
});

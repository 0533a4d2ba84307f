// dns-leak with a fake system resolver standing in for the whoami zone's answer: through the
// node, out another way, through the user's own resolver, no answer; and the name asked is a
// fresh one of our own under the zone.
import { describe, expect, it } from 'vitest';
import { DNS_LEAK_FIX, checkDnsLeak, type DnsLeakDeps } from './dns-leak.js';

const signal = new AbortController().signal;
const ZONE = 'whoami.ferry-test';

function deps(answer: string[] | Error, over: Partial<DnsLeakDeps> = {}) {
  const asked: string[] = [];
  const d: DnsLeakDeps = {
    connected: true,
    zone: ZONE,
    expected: ['198.19.5.20', '192.0.2.10'],
    configured: null,
    lookup: async (name) => {
      asked.push(name);
      if (answer instanceof Error) throw answer;
      return answer;
    },
    ...over,
  };
  return { d, asked };
}

describe('the dns-leak check', () => {
  it('is ok when the zone was asked from the node (its exit or its endpoint address)', async () => {
    for (const answer of [['198.19.5.20'], ['192.0.2.10']]) {
      const { d } = deps(answer);
      expect(await checkDnsLeak(d, signal)).toEqual({
        id: 'dns-leak',
        title: 'DNS leak',
        verdict: 'ok',
        summary: 'DNS queries reach the zone only through the node',
        fix: null,
        finding: 'through-node',
      });
    }
  });

  it('is a problem naming the resolver that asked from elsewhere, with the fix', async () => {
    const { d } = deps(['203.0.113.53']);
    expect(await checkDnsLeak(d, signal)).toMatchObject({
      verdict: 'problem',
      summary: 'DNS queries leave outside the tunnel (they reach 203.0.113.53)',
      fix: DNS_LEAK_FIX,
    });
    const mixed = deps(['198.19.5.20', '203.0.113.53']).d;
    expect((await checkDnsLeak(mixed, signal)).verdict).toBe('problem');
  });

  it('asks a fresh name of its own under the zone each time', async () => {
    const { d, asked } = deps(['198.19.5.20']);
    await checkDnsLeak(d, signal);
    await checkDnsLeak(d, signal);
    expect(asked).toHaveLength(2);
    for (const name of asked) expect(name).toMatch(/^[0-9a-f]{12}\.whoami\.ferry-test$/);
    expect(asked[0]).not.toBe(asked[1]);
  });

  it('with the user’s own resolver: ok from it, a warning from anywhere else', async () => {
    const own = deps(['9.9.9.9'], { configured: '9.9.9.9' }).d;
    expect(await checkDnsLeak(own, signal)).toMatchObject({
      verdict: 'ok',
      summary: 'DNS queries reach the zone only through your resolver 9.9.9.9',
    });
    const other = deps(['74.63.2.1'], { configured: '9.9.9.9' }).d;
    expect(await checkDnsLeak(other, signal)).toMatchObject({ verdict: 'warning' });
  });

  it('warns when the system resolver gives no answer through the tunnel', async () => {
    for (const answer of [new Error('ENOTFOUND'), []]) {
      const { d } = deps(answer);
      expect(await checkDnsLeak(d, signal)).toMatchObject({
        verdict: 'warning',
        summary: 'the system resolver did not answer through the tunnel',
        fix: 'reconnect so that Ferry sets the system resolver',
      });
    }
  });

  it('is skipped, asking nothing, when not connected or no zone is known', async () => {
    const off = deps(['198.19.5.20'], { connected: false });
    expect(await checkDnsLeak(off.d, signal)).toMatchObject({
      verdict: 'skipped',
      summary: 'connect first: a leak shows only while the tunnel is up',
    });
    const noZone = deps(['198.19.5.20'], { zone: null });
    expect((await checkDnsLeak(noZone.d, signal)).verdict).toBe('skipped');
    expect([...off.asked, ...noZone.asked]).toEqual([]);
  });
});

// Failover and obfuscation under the kill switch: the relay in use is blackholed mid-session and
// the engine moves to the other node of the region rule by itself (no leak meanwhile, traffic
// flows again, a notice names both nodes), over WireGuard and over Ferry; and with UDP to the
// nodes blocked, obfuscation auto connects over Ferry's TCP transport by itself, with a notice.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ProtectionBed } from './protection-kit.js';

const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('protection: failover and obfuscation', () => {
  let p: ProtectionBed;
  const human = (...args: string[]) => p.laptop.human(...args);
  const json = (...args: string[]) => p.laptop.json(...args);

  beforeAll(async () => {
    p = await ProtectionBed.start();
    p.setUp();
  }, 180_000);
  afterEach(async () => {
    p?.laptop.run('disconnect');
    await p?.heal();
  }, 30_000);
  afterAll(async () => {
    await p?.stop();
  }, 60_000);

  for (const protocol of ['wireguard', 'ferry'] as const) {
    it(`${protocol}: the relay blackholed mid-session, the engine moves to the other node of the rule without a leak`, async () => {
      json('connect', '--region', 'work', '--protocol', protocol);
      const first = p.currentRelay();
      const watch = await p.watch();
      await settle(1_000);
      const before = watch.tallies().tcp?.successes ?? 0;
      p.bed.net.blackhole(first.host);
      await p.bed.net.waitFor('the failover', 20_000, () => {
        const s = json('status');
        return s.status === 'connected' &&
          s.node?.endpoint?.startsWith(`${p.relays.find((r) => r !== first)!.address}:`)
          ? s
          : undefined;
      });
      const second = p.currentRelay();
      expect(second.host).not.toBe(first.host);
      // Traffic flows again, through the other relay.
      await p.bed.net.waitFor('traffic through the new node', 10_000, () =>
        (watch.tallies().tcp?.successes ?? 0) > before + 3 ? true : undefined,
      );
      expect(p.bed.echoFrom('laptop', 3)).toBe(second.address);
      const result = await watch.stop();
      expect(p.leaks(result)).toEqual([]);
      const status = json('status');
      const notice = status.notices.find((n: { code: string }) => n.code === 'failover');
      expect(notice, JSON.stringify(status.notices)).toBeDefined();
      expect(notice?.message).toContain(first.nodeId);
      expect(notice?.message).toContain(second.nodeId);
      expect(status.protection.kill_switch).toBe('active');
    }, 90_000);
  }

  it('UDP to the nodes blocked: obfuscation auto connects over TCP by itself, with a notice, and leaks nothing', async () => {
    for (const r of p.relays) p.bed.net.blockUdp('laptop', r.host);
    const watch = await p.watch();
    const attempt = p.laptop.runAsync('connect', '--region', 'work', '--json');
    const since = await p.killSwitchActive();
    const done = await attempt;
    expect(done.code).toBe(0);
    const status = json('status');
    expect(status).toMatchObject({ status: 'connected', protocol: 'ferry', transport: 'tcp' });
    expect(status.notices.map((n: { code: string }) => n.code)).toContain('udp-blocked');
    // The setting stays what the user chose.
    expect(json('config', 'get', 'protocol')).toEqual({ protocol: 'wireguard' });
    expect(human('status')).toMatch(/Ferry \(TCP\)/);
    const relay = p.currentRelay();
    await settle(2_000);
    expect(p.bed.echoFrom('laptop', 3)).toBe(relay.address);
    const result = await watch.stop();
    expect(p.leaks(result, p.relays, since)).toEqual([]);
    expect(result.probes.tcp?.successes).toBeGreaterThan(3);
  }, 90_000);
});

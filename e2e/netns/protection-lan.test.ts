// allow_lan and a network that claims more than a LAN may (TunnelCrack's LocalNet): a rogue DHCP
// lease of a /15 that holds the test internet's foreign servers. With allow_lan on, a foreign
// server inside the lease is still reached through the tunnel and nothing leaves eth0 outside
// it, while the LAN's private part (a printer at 192.168.N.2) stays reachable directly.
import ipaddr from 'ipaddr.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leakSummary, leaksOf } from './leak-watch.js';
import { ProtectionBed } from './protection-kit.js';

const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('protection: allow_lan and a rogue lease', () => {
  let p: ProtectionBed;
  const human = (...args: string[]) => p.laptop.human(...args);
  const json = (...args: string[]) => p.laptop.json(...args);

  beforeAll(async () => {
    p = await ProtectionBed.start();
    p.setUp();
  }, 180_000);
  afterAll(async () => {
    await p?.stop();
  }, 60_000);

  it('a foreign server inside a /15 lease goes through the tunnel with allow_lan, nothing leaks, the private LAN stays direct', async () => {
    const net = p.bed.net;
    const lease = net.widenLease('laptop', 15);
    const echo = net.host('echo').address;
    // The lease holds the foreign servers (the echo service, the leak watch's targets).
    for (const a of [echo, p.foreign.targets.ping])
      expect(ipaddr.parse(a).match(ipaddr.parseCIDR(lease))).toBe(true);
    // Before the tunnel the laptop reaches them "on the link", as the rogue network wants.
    expect(
      net.exec('laptop', ['ip', '-4', 'route', 'get', echo]).includes('via'),
      'the echo service is on the link',
    ).toBe(false);
    // The LAN's private part: a printer beside the laptop.
    const privateLan = `192.168.${net.n}.0/24`;
    const printer = `192.168.${net.n}.2`;
    net.addAccessHost('printer');
    net.exec('printer', ['ip', 'address', 'add', `${printer}/24`, 'dev', 'eth0']);
    net.exec('laptop', ['ip', 'address', 'add', `192.168.${net.n}.1/24`, 'dev', 'eth0']);

    human('config', 'set', 'allow_lan', 'true');
    expect(json('connect', '--region', 'work').status).toBe('connected');
    const relay = p.currentRelay();
    const watch = await p.watch();
    await settle(3_000);
    expect(p.bed.echoFrom('laptop', 3)).toBe(relay.address);
    net.exec('laptop', ['ping', '-n', '-c', '2', '-W', '2', printer]);
    const result = await watch.stop();
    const allowed = p.allowed(result, [relay]);
    const leaks = leaksOf(result.packets, {
      ...allowed,
      cidrs: [...(allowed.cidrs ?? []), privateLan],
    });
    expect(leakSummary(leaks)).toEqual([]);
    // The foreign traffic flowed meanwhile, through the tunnel.
    expect(result.probes.tcp?.successes).toBeGreaterThan(3);
    expect(result.probes.icmp?.successes).toBeGreaterThan(3);
    human('disconnect');
  }, 120_000);
});

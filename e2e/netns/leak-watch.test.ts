// The leak-test kit can fail and can pass: an unprotected client leaks every kind of traffic it
// sends, the same capture has no leak once every peer is allowed, and the watch cleans up after
// itself (bounded traffic, the namespace's resolv.conf).
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  LINK_SCOPE_CIDRS,
  leakSummary,
  leaksOf,
  packetsSince,
  setNamespaceResolver,
  startLeakWatch,
  startProbeTargets,
  type LeakWatchResult,
  type ProbeTargets,
} from './leak-watch.js';
import type { IpPacket } from './pcap.js';
import { TestNetwork, requireTools } from './test-network.js';

describe('a leak watch on a client with nothing protecting it', () => {
  let net: TestNetwork;
  let far: ProbeTargets;
  let isp: ProbeTargets;
  let watched: LeakWatchResult;
  const hostResolvConf = existsSync('/etc/resolv.conf')
    ? readFileSync('/etc/resolv.conf', 'utf8')
    : undefined;

  beforeAll(async () => {
    requireTools(['ip', 'tcpdump', 'ping', 'curl', 'getent']);
    net = TestNetwork.create();
    net.addAccessHost('laptop', { ipv6: true });
    // far: a foreign site (web, UDP echo, a public resolver); isp: the resolver of the laptop's
    // own network, which its resolv.conf names.
    net.addServerHost('far', { ipv6: true });
    net.addServerHost('isp');
    far = await startProbeTargets(net, 'far');
    isp = await startProbeTargets(net, 'isp');
    setNamespaceResolver(net, 'laptop', [net.host('isp').address]);

    const watch = await startLeakWatch(net, 'laptop', { ...far.targets, maxSeconds: 60 });
    await net.waitFor('three answered probes of every kind', 20_000, () => {
      const t = Object.values(watch.tallies());
      return t.length === 7 && t.every((k) => k.successes >= 3) ? true : undefined;
    });
    watched = await watch.stop();
  }, 60_000);
  afterAll(async () => net?.destroyAsync(), 30_000);

  const from = (p: IpPacket, kind: IpPacket['protocol'], dst: string, dport?: number) =>
    p.protocol === kind && p.dst === dst && p.dport === dport && watched.self.includes(p.src);

  it('counts the probes of every kind that were answered end to end', () => {
    for (const kind of ['icmp', 'tcp', 'udp', 'dnsDirect', 'dnsSystem', 'icmp6', 'tcp6'] as const)
      expect(watched.probes[kind]?.successes, kind).toBeGreaterThanOrEqual(3);
  });

  it('reports every kind of traffic as a leak when nothing is allowed', () => {
    const leaks = leaksOf(watched.packets, { self: watched.self }).map((l) => l.packet);
    const farV4 = net.host('far').address;
    const farV6 = net.host('far').address6!;
    const kinds: [string, (p: IpPacket) => boolean][] = [
      ['ping', (p) => from(p, 'icmp', farV4)],
      ['tcp', (p) => from(p, 'tcp', farV4, 80)],
      ['udp', (p) => from(p, 'udp', farV4, far.targets.udp.port)],
      ['dns to the foreign resolver', (p) => from(p, 'udp', farV4, 53)],
      ['dns through the system resolver', (p) => from(p, 'udp', net.host('isp').address, 53)],
      ['ping -6', (p) => from(p, 'icmpv6', farV6)],
      ['tcp over IPv6', (p) => from(p, 'tcp', farV6, 80)],
    ];
    for (const [kind, match] of kinds) expect(leaks.filter(match).length, kind).toBeGreaterThan(0);
    const lines = leaksOf(watched.packets, { self: watched.self }).map((l) => l.line);
    expect(lines).toContain(`udp ${net.host('laptop').address}>${farV4}:53`);
    expect(lines).toContain(`tcp ${net.host('laptop').address6}>[${farV6}]:80`);
  });

  it('finds no leak in the same capture once every peer is allowed', () => {
    expect(watched.packets.length).toBeGreaterThan(100);
    const allowed = {
      addresses: [
        net.host('far').address,
        net.host('far').address6!,
        net.host('isp').address,
        // The IPv6 next hop answers neighbour solicitations.
        net.accessGateway6,
      ],
      cidrs: LINK_SCOPE_CIDRS,
      self: watched.self,
    };
    const leaks = leaksOf(watched.packets, allowed);
    expect(leakSummary(leaks)).toEqual([]);
  });

  it('allows exactly the endpoints, addresses and ranges it is given', () => {
    const farV4 = net.host('far').address;
    const remaining = (allowed: Parameters<typeof leaksOf>[1]) =>
      leaksOf(watched.packets, { ...allowed, self: watched.self }).map((l) => l.packet);
    // An endpoint is an address, a port and a protocol: the UDP echo only.
    const echo = remaining({
      endpoints: [{ address: farV4, port: far.targets.udp.port, protocol: 'udp' }],
    });
    expect(echo.some((p) => from(p, 'udp', farV4, far.targets.udp.port))).toBe(false);
    expect(echo.some((p) => from(p, 'udp', farV4, 53))).toBe(true);
    expect(echo.some((p) => from(p, 'tcp', farV4, 80))).toBe(true);
    // The IPv4 server subnet (and the link's own chatter): what is left is IPv6.
    const v6 = remaining({ cidrs: [net.serverSubnet, ...LINK_SCOPE_CIDRS] });
    expect(v6.some((p) => from(p, 'tcp', net.host('far').address6!, 80))).toBe(true);
    expect(v6.every((p) => p.family === 6)).toBe(true);
  });

  it('writes the resolv.conf of the namespace, never the machine’s', () => {
    const inside = net.exec('laptop', ['cat', '/etc/resolv.conf']);
    expect(inside).toContain(`nameserver ${net.host('isp').address}`);
    const outside = existsSync('/etc/resolv.conf')
      ? readFileSync('/etc/resolv.conf', 'utf8')
      : undefined;
    expect(outside).toBe(hostResolvConf);
    expect(isp.targets.resolver).toBe(net.host('isp').address);
  });
});

describe('a leak watch’s bounds and clean-up', () => {
  it('ends its traffic by itself after maxSeconds, and destroy removes /etc/netns/<ns>', async () => {
    const net = TestNetwork.create();
    let etc: string;
    try {
      net.addAccessHost('c');
      net.addServerHost('s');
      const s = await startProbeTargets(net, 's');
      etc = path.dirname(setNamespaceResolver(net, 'c', [net.host('s').address]));
      expect(etc).toBe(`/etc/netns/${net.host('c').ns}`);
      const watch = await startLeakWatch(net, 'c', {
        ...s.targets,
        maxSeconds: 2,
        intervalMs: 250,
      });
      const ended = await Promise.race([
        watch.trafficDone.then(() => true),
        new Promise((r) => setTimeout(() => r(false), 8000)),
      ]);
      expect(ended).toBe(true);
      const r = await watch.stop();
      // A host without IPv6 runs no IPv6 probes; at most 2 s / 250 ms + 1 rounds of each kind.
      expect(Object.keys(r.probes).sort()).toEqual(
        ['dnsDirect', 'dnsSystem', 'icmp', 'tcp', 'udp'].sort(),
      );
      for (const t of Object.values(r.probes)) {
        expect(t.attempts).toBeGreaterThan(0);
        expect(t.attempts).toBeLessThanOrEqual(9);
      }
      expect(r.packets.some((p) => p.protocol === 'tcp')).toBe(true);
    } finally {
      await net.destroyAsync();
    }
    expect(existsSync(etc!)).toBe(false);
  }, 30_000);
});

describe('leaksOf', () => {
  const packet = (src: string, dst: string, extra: Partial<IpPacket> = {}): IpPacket => ({
    time: 0,
    family: src.includes(':') ? 6 : 4,
    src,
    dst,
    protocol: 'udp',
    protocolNumber: 17,
    sport: 40000,
    dport: 51820,
    length: 100,
    ...extra,
  });

  it('from a moment on, leaves out the far end’s retries of a flow the host began before it', () => {
    const self = ['2001:db8:49::12'];
    const tcp = { protocol: 'tcp' as const, protocolNumber: 6 };
    const syn = packet('2001:db8:49::12', '2001:db8:49:1::13', {
      ...tcp,
      sport: 46922,
      dport: 80,
      time: 1,
    });
    const retry = packet('2001:db8:49:1::13', '2001:db8:49::12', {
      ...tcp,
      sport: 80,
      dport: 46922,
      time: 3,
    });
    const stranger = packet('2001:db8:49:1::14', '2001:db8:49::12', {
      ...tcp,
      sport: 80,
      dport: 46923,
      time: 3,
    });
    const out = packet('2001:db8:49::12', '2001:db8:49:1::13', {
      ...tcp,
      sport: 46922,
      dport: 80,
      time: 3,
    });
    const result = { packets: [syn, retry, stranger, out], self } as unknown as LeakWatchResult;
    // The host's own packet after the moment is counted even on that flow; a flow it did not begin too.
    expect(packetsSince(result, 2_000)).toEqual([stranger, out]);
  });

  it('never takes the host itself for an allowed peer, even inside an allowed range', () => {
    const out = packet('198.18.5.10', '203.0.113.9');
    expect(leaksOf([out], { cidrs: ['198.18.5.0/24'] })).toHaveLength(0);
    expect(leaksOf([out], { cidrs: ['198.18.5.0/24'], self: ['198.18.5.10'] })).toHaveLength(1);
    const domestic = packet('198.18.5.10', '198.18.5.20');
    expect(leaksOf([domestic], { cidrs: ['198.18.5.0/24'], self: ['198.18.5.10'] })).toEqual([]);
  });

  it('matches an endpoint by address, port and protocol, in either direction', () => {
    const relay = { address: '198.18.5.11', port: 51820, protocol: 'udp' as const };
    const self = ['198.18.5.10'];
    const outbound = packet('198.18.5.10', '198.18.5.11');
    const inbound = packet('198.18.5.11', '198.18.5.10', { sport: 51820, dport: 40000 });
    const otherPort = packet('198.18.5.10', '198.18.5.11', { dport: 53 });
    const tcp = packet('198.18.5.10', '198.18.5.11', { protocol: 'tcp', protocolNumber: 6 });
    const icmp = packet('198.18.5.10', '198.18.5.11', {
      protocol: 'icmp',
      protocolNumber: 1,
      sport: undefined,
      dport: undefined,
    });
    const leaks = leaksOf([outbound, inbound, otherPort, tcp, icmp], { endpoints: [relay], self });
    expect(leaks.map((l) => l.line)).toEqual([
      'udp 198.18.5.10>198.18.5.11:53',
      'tcp 198.18.5.10>198.18.5.11:51820',
      'icmp 198.18.5.10>198.18.5.11',
    ]);
  });

  it('judges what the host sends: a far end’s packet to it is no leak, the host’s answer is', () => {
    const self = ['2001:db8:40::12'];
    const tcp = { protocol: 'tcp' as const, protocolNumber: 6 };
    // A retry of a flow begun before the capture (the case of a crash test after another).
    const retry = packet('2001:db8:40:1::13', '2001:db8:40::12', {
      ...tcp,
      sport: 80,
      dport: 44268,
    });
    const reset = packet('2001:db8:40::12', '2001:db8:40:1::13', {
      ...tcp,
      sport: 44268,
      dport: 80,
    });
    expect(leaksOf([retry], { self })).toEqual([]);
    expect(leaksOf([retry, reset], { self }).map((l) => l.line)).toEqual([
      'tcp 2001:db8:40::12>[2001:db8:40:1::13]:80',
    ]);
    // Without the host's addresses the direction is unknown: both count.
    expect(leaksOf([retry, reset], {})).toHaveLength(2);
  });

  it('compares IPv6 addresses in any spelling and writes them bracketed with a port', () => {
    const p = packet('2001:db8:5::10', '2001:db8:5:1::10', { dport: 443, protocol: 'tcp' });
    expect(leaksOf([p], { addresses: ['2001:DB8:5:1:0:0:0:10'] })).toEqual([]);
    expect(leaksOf([p], { addresses: ['198.19.5.10'] }).map((l) => l.line)).toEqual([
      'tcp 2001:db8:5::10>[2001:db8:5:1::10]:443',
    ]);
    expect(leakSummary(leaksOf([p, p], {}))).toEqual([
      'tcp 2001:db8:5::10>[2001:db8:5:1::10]:443 x2',
    ]);
  });
});

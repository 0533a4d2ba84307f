// No leak, whatever happens: a laptop running netcli daemon with continuous traffic of every kind
// (ping, TCP, UDP, DNS to a foreign resolver and through the system resolver, IPv6) while its
// eth0 is captured; "no leak" is no packet there but to the current node's endpoint (and the
// nodes' probe responders), the control plane and the domestic set. Connected with split auto
// (dns auto and dns <ip>), connecting to a node that does not answer, a kill -9 of the daemon,
// the link going down and up and a new address; and a disconnect that leaves nothing behind.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ZONE } from './dns-authority.js';
import { HOME, ProtectionBed } from './protection-kit.js';

const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('protection: no leak', () => {
  let p: ProtectionBed;
  let originalResolv: string;
  const human = (...args: string[]) => p.laptop.human(...args);
  const json = (...args: string[]) => p.laptop.json(...args);
  const echoFrom = (url: string) => p.bed.echoFrom('laptop', 3, url);

  beforeAll(async () => {
    p = await ProtectionBed.start();
    p.setUp();
    originalResolv = p.resolvConf();
  }, 180_000);
  afterAll(async () => {
    await p?.stop();
  }, 60_000);

  it('connected with split auto: domestic traffic leaves directly, the rest through the relay, DNS only in the tunnel, no IPv6', async () => {
    const connected = json('connect', '--region', 'work');
    expect(connected.status).toBe('connected');
    const watch = await p.watch();
    expect(connected.protection).toMatchObject({
      kill_switch: 'active',
      split: 'by-country',
      home_country: HOME,
      dns: ['10.64.0.1'],
    });
    const relay = p.currentRelay();
    await settle(3_000);
    // The domestic server sees the laptop's own address, the foreign echo service the relay's.
    expect(echoFrom(p.domestic.url)).toBe(p.laptop.address);
    expect(echoFrom(p.bed.echoUrl)).toBe(relay.address);
    // The system resolver is the engine's (which asks the relay's through the tunnel).
    expect(p.resolvConf()).toMatch(/^nameserver 127\.102\.121\.53$/m);
    const result = await watch.stop();
    expect(p.leaks(result, [relay])).toEqual([]);
    // Traffic flowed through the tunnel meanwhile; DNS through the system resolver was answered
    // (by the relay's resolver), DNS straight to a foreign resolver and all IPv6 were not.
    expect(result.probes.tcp?.successes).toBeGreaterThan(3);
    expect(result.probes.udp?.successes).toBeGreaterThan(3);
    expect(result.probes.dnsSystem?.successes).toBeGreaterThan(3);
    expect(result.probes.dnsDirect?.successes ?? 0).toBe(0);
    expect(result.probes.icmp6?.successes ?? 0).toBe(0);
    expect(result.probes.tcp6?.successes ?? 0).toBe(0);
    // Every query of the zone reached the authority from the relay, none from the laptop.
    const askers = new Set(p.authority.askersUnder(TEST_ZONE));
    expect(askers.size).toBeGreaterThan(0);
    expect([...askers]).toEqual([relay.address]);
  }, 90_000);

  it('dns <ip>: the configured resolver, reached through the tunnel even though it is domestic', async () => {
    const before = p.authority.askersUnder(TEST_ZONE).length;
    expect(human('config', 'set', 'dns', p.authority.address)).toMatch(/dns/);
    expect(json('status').protection.dns).toEqual([p.authority.address]);
    const relay = p.currentRelay();
    const watch = await p.watch();
    await settle(3_000);
    const result = await watch.stop();
    expect(p.leaks(result, [relay])).toEqual([]);
    expect(result.probes.dnsSystem?.successes).toBeGreaterThan(3);
    // Straight to the authority now (no relay resolver), through the tunnel: it sees the relay.
    const askers = new Set(p.authority.askersUnder(TEST_ZONE).slice(before));
    expect([...askers]).toEqual([relay.address]);
    human('config', 'set', 'dns', 'auto');
  }, 60_000);

  it('with split rules in force (a domestic site through the tunnel, a foreign one directly, programs each way): nothing else leaves, no DNS but the engine resolver’s to the home resolver', async () => {
    const echo = new URL(p.bed.echoUrl);
    const port = echo.port;
    p.authority.setRecord('shop', p.domestic.address);
    p.authority.setRecord('video', echo.hostname);
    human('split', 'add', '--domain', `shop.${TEST_ZONE}`, '--via', 'tunnel');
    human('split', 'add', '--domain', `video.${TEST_ZONE}`, '--via', 'direct');
    const relay = p.currentRelay();
    const watch = await p.watch();
    await settle(1_000);
    const byName = (name: string) => echoFrom(`http://${name}.${TEST_ZONE}:${port}/`);
    expect(byName('shop')).toBe(relay.address);
    expect(byName('video')).toBe(p.laptop.address);
    const exec = (via: string, url: string) =>
      p.laptop.execVia(via, 'curl', '-s', '--max-time', '3', url).stdout.trim();
    expect(exec('direct', p.bed.echoUrl)).toBe(p.laptop.address);
    expect(exec('tunnel', p.domestic.url)).toBe(relay.address);
    await settle(2_000);
    const result = await watch.stop();
    // Besides what any protected laptop sends (the engine's resolver asking the home resolver
    // included): the foreign site its rule sends directly (the direct program's too).
    expect(p.leaks(result, [relay], undefined, { cidrs: [`${echo.hostname}/32`] })).toEqual([]);
    // The home resolver heard the direct rule's name from the laptop, and the tunnel rule's never.
    expect(p.authority.whoAsked(`video.${TEST_ZONE}`)).toContain(p.laptop.address);
    expect(p.authority.whoAsked(`shop.${TEST_ZONE}`)).not.toContain(p.laptop.address);
    expect(result.probes.dnsDirect?.successes ?? 0).toBe(0);
    human('split', 'remove', '--domain', `shop.${TEST_ZONE}`);
    human('split', 'remove', '--domain', `video.${TEST_ZONE}`);
  }, 90_000);

  it('disconnect leaves no table, set, rule, route or resolver change behind', () => {
    human('disconnect');
    expect(p.laptop.leftovers()).toEqual([]);
    expect(p.resolvConf()).toBe(originalResolv);
    expect(echoFrom(p.bed.echoUrl)).toBe(p.laptop.address);
  });

  it('connecting to nodes that do not answer: no leak for the whole attempt, then blocked until disconnect', async () => {
    for (const r of p.relays) p.bed.net.blackhole(r.host);
    try {
      const watch = await p.watch();
      const attempt = p.laptop.runAsync('connect', '--region', 'work');
      // From the moment the kill switch holds (the attempt's first step) to its end and after.
      const since = await p.killSwitchActive();
      expect((await attempt).code).not.toBe(0);
      expect(json('status')).toMatchObject({
        status: 'error',
        protection: { kill_switch: 'active' },
      });
      await settle(2_000);
      const result = await watch.stop();
      expect(p.leaks(result, p.relays, since)).toEqual([]);
      expect(human('status')).toMatch(/blocked while the kill switch is on/);
    } finally {
      await p.heal();
    }
    human('disconnect');
    expect(p.laptop.leftovers()).toEqual([]);
    expect(echoFrom(p.bed.echoUrl)).toBe(p.laptop.address);
  }, 90_000);

  it('kill -9 of the daemon while connected: no leak afterwards; the next start reconnects; disconnect restores everything', async () => {
    json('connect', '--region', 'work');
    const relayBefore = p.currentRelay();
    const watch = await p.watch();
    p.laptop.daemon!.child.kill('SIGKILL');
    await p.laptop.daemon!.exited;
    await settle(2_000);
    // With no engine running the rules stay in the kernel: what still gets out goes through the
    // tunnel's interface (wireguard-go outlives its parent) or not at all, never directly.
    const exit = echoFrom(p.bed.echoUrl);
    expect(exit === undefined || exit === relayBefore.address).toBe(true);
    const during = watch.tallies().tcp?.successes ?? 0;
    await p.laptop.startDaemon();
    await p.bed.net.waitFor('the reconnect after the crash', 30_000, () =>
      json('status').status === 'connected' ? true : undefined,
    );
    const relay = p.currentRelay();
    await settle(2_000);
    const result = await watch.stop();
    expect(p.leaks(result)).toEqual([]);
    expect(result.probes.tcp?.successes).toBeGreaterThan(during);
    expect(echoFrom(p.bed.echoUrl)).toBe(relay.address);
    human('disconnect');
    expect(p.laptop.leftovers()).toEqual([]);
    expect(p.resolvConf()).toBe(originalResolv);
    expect(echoFrom(p.bed.echoUrl)).toBe(p.laptop.address);
  }, 120_000);

  it('the link going down and up, then a new address: the tunnel recovers by itself, without a leak', async () => {
    const net = p.bed.net;
    json('connect', '--region', 'work');
    const watch = await p.watch();
    await settle(1_000);
    const flows = async (what: string) => {
      const now = watch.tallies().tcp?.successes ?? 0;
      await net.waitFor(what, 20_000, () =>
        (watch.tallies().tcp?.successes ?? 0) > now + 2 ? true : undefined,
      );
    };
    net.exec('laptop', ['ip', 'link', 'set', 'eth0', 'down']);
    await settle(3_000);
    net.exec('laptop', ['ip', 'link', 'set', 'eth0', 'up']);
    // The default route went with the link; a network's DHCP would give it back, on eth0.
    net.exec('laptop', [
      'ip',
      'route',
      'replace',
      'default',
      'via',
      net.accessGateway,
      'dev',
      'eth0',
    ]);
    await flows('traffic after the link came back');
    net.renumber('laptop');
    await flows('traffic from the new address');
    const result = await watch.stop();
    expect(p.leaks(result)).toEqual([]);
    expect(json('status').status).toBe('connected');
    human('disconnect');
    expect(p.laptop.leftovers()).toEqual([]);
  }, 120_000);
});

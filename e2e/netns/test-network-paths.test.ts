// The test internet's IPv6 and its path faults (blackhole, blockUdp, mtuBlackHole, restore), on
// the access bridge and across the router: traffic passes before, fails during and passes after.
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProbeTargets } from './leak-watch.js';
import { TestNetwork, requireTools, sh } from './test-network.js';

/** Receives one UDP datagram (IPv4 or IPv6) on a port, prints it, and ends after argv[2] ms. */
const UDP_LISTEN = `
const s = require('node:dgram').createSocket('udp6');
s.on('message', (m) => { console.log('got ' + m); process.exit(0); });
s.bind(Number(process.argv[1]), '::', () => console.log('ready'));
setTimeout(() => process.exit(0), Number(process.argv[2]));
`;
/** Sends one UDP datagram: argv = address, port, payload. */
const UDP_SEND = `
const [address, port, payload] = process.argv.slice(1);
const s = require('node:dgram').createSocket(address.includes(':') ? 'udp6' : 'udp4');
s.send(Buffer.from(payload), Number(port), address, (e) => { s.close(); if (e) process.exit(1); });
`;

describe('the test internet: IPv6 and path faults', () => {
  let net: TestNetwork;
  let nextPort = 41000;

  beforeAll(async () => {
    requireTools(['ip', 'nft', 'ping', 'curl']);
    net = TestNetwork.create();
    // a: the client; b: a relay beside it on the access bridge; srv and ctrl: behind the router.
    net.addAccessHost('a', { ipv6: true });
    net.addAccessHost('b');
    net.addServerHost('srv', { ipv6: true });
    net.addServerHost('ctrl');
    for (const h of ['b', 'srv', 'ctrl']) await startProbeTargets(net, h);
  }, 60_000);
  afterAll(async () => net?.destroyAsync(), 30_000);

  const succeeds = (host: string, argv: string[]) =>
    spawnSync('ip', ['netns', 'exec', net.host(host).ns, ...argv], { timeout: 10_000 }).status ===
    0;
  const pings = (from: string, to: string, ...opts: string[]) =>
    succeeds(from, ['ping', '-n', '-c1', '-W1', ...opts, to]);
  const fetches = (from: string, address: string) =>
    succeeds(from, [
      'curl',
      '-g',
      '-s',
      '-o',
      '/dev/null',
      '--max-time',
      '2',
      `http://${address.includes(':') ? `[${address}]` : address}/`,
    ]);
  /** Whether one UDP datagram from `from` reaches `address` (a host of `to`). */
  const udpArrives = async (from: string, to: string, address: string): Promise<boolean> => {
    const port = String(nextPort++);
    const token = `datagram-${port}`;
    const listener = net.spawn(to, `udp-listen-${port}`, [
      process.execPath,
      '-e',
      UDP_LISTEN,
      port,
      '1500',
    ]);
    await net.waitFor(`the UDP listener on ${to}`, 5000, () =>
      listener.output().includes('ready') ? true : undefined,
    );
    net.exec(from, [process.execPath, '-e', UDP_SEND, address, port, token]);
    await listener.exited;
    return listener.output().includes(`got ${token}`);
  };
  const v4 = (h: string) => net.host(h).address;
  const v6 = (h: string) => net.host(h).address6!;

  it('routes IPv6 between the access and the servers side for the hosts that ask for it', () => {
    expect(v6('a')).toMatch(new RegExp(`^2001:db8:${net.n}::`));
    expect(v6('srv')).toMatch(new RegExp(`^2001:db8:${net.n}:1::`));
    expect(pings('a', v6('srv'), '-6')).toBe(true);
    expect(pings('srv', v6('a'), '-6')).toBe(true);
    expect(fetches('a', v6('srv'))).toBe(true);
    const route = net.exec('a', ['ip', '-6', 'route', 'get', v6('srv')]);
    expect(route).toContain(`via ${net.accessGateway6}`);
    // The others are as before: no IPv6 beyond link-local, no IPv6 default route.
    expect(net.host('b').address6).toBeUndefined();
    expect(net.exec('b', ['ip', '-6', 'address', 'show', 'scope', 'global']).trim()).toBe('');
    expect(net.exec('b', ['ip', '-6', 'route', 'show', 'default']).trim()).toBe('');
    expect(net.exec('b', ['ip', 'route', 'show']).trim().split('\n')).toHaveLength(2);
  });

  it('gives a renumbered host a new IPv6 address and keeps its IPv6 route', () => {
    const phone = net.addAccessHost('phone', { ipv6: true });
    const before = phone.address6!;
    net.renumber('phone');
    expect(phone.address6).not.toBe(before);
    expect(net.exec('phone', ['ip', '-6', 'address', 'show', 'scope', 'global'])).toContain(
      `${phone.address6}/64`,
    );
    expect(pings('phone', v6('srv'), '-6')).toBe(true);
  });

  it('blackhole: a host on the access bridge goes silent for everything, until undone', async () => {
    expect([
      pings('a', v4('b')),
      fetches('a', v4('b')),
      await udpArrives('a', 'b', v4('b')),
    ]).toEqual([true, true, true]);
    const undo = net.blackhole('b');
    expect([
      pings('a', v4('b')),
      fetches('a', v4('b')),
      await udpArrives('a', 'b', v4('b')),
    ]).toEqual([false, false, false]);
    // Only b: a still reaches the rest of the internet.
    expect(pings('a', v4('srv'))).toBe(true);
    undo();
    expect([
      pings('a', v4('b')),
      fetches('a', v4('b')),
      await udpArrives('a', 'b', v4('b')),
    ]).toEqual([true, true, true]);
  }, 30_000);

  it('blackhole works across the router: a control plane behind it becomes unreachable', async () => {
    expect([pings('a', v4('ctrl')), fetches('a', v4('ctrl'))]).toEqual([true, true]);
    const undoCtrl = net.blackhole('ctrl');
    expect([
      pings('a', v4('ctrl')),
      fetches('a', v4('ctrl')),
      await udpArrives('a', 'ctrl', v4('ctrl')),
    ]).toEqual([false, false, false]);
    expect(fetches('a', v4('srv'))).toBe(true);
    undoCtrl();
    expect([pings('a', v4('ctrl')), fetches('a', v4('ctrl'))]).toEqual([true, true]);

    // A host with IPv6 is cut on both.
    const undoSrv = net.blackhole('srv');
    expect([pings('a', v4('srv')), pings('a', v6('srv'), '-6'), fetches('a', v6('srv'))]).toEqual([
      false,
      false,
      false,
    ]);
    undoSrv();
    expect([pings('a', v4('srv')), pings('a', v6('srv'), '-6'), fetches('a', v6('srv'))]).toEqual([
      true,
      true,
      true,
    ]);
  }, 30_000);

  it('blockUdp drops UDP between two hosts both ways, while TCP and ICMP pass', async () => {
    const undo = net.blockUdp('a', 'b');
    expect(await udpArrives('a', 'b', v4('b'))).toBe(false);
    expect(await udpArrives('b', 'a', v4('a'))).toBe(false);
    expect([fetches('a', v4('b')), pings('a', v4('b'))]).toEqual([true, true]);
    // Only between those two.
    expect(await udpArrives('a', 'srv', v4('srv'))).toBe(true);
    undo();
    expect(await udpArrives('a', 'b', v4('b'))).toBe(true);
    expect(await udpArrives('b', 'a', v4('a'))).toBe(true);
  }, 30_000);

  it('blockUdp across the router drops IPv4 and IPv6 UDP', async () => {
    expect(await udpArrives('a', 'srv', v6('srv'))).toBe(true);
    const undo = net.blockUdp('a', 'srv');
    expect(await udpArrives('a', 'srv', v4('srv'))).toBe(false);
    expect(await udpArrives('a', 'srv', v6('srv'))).toBe(false);
    expect(await udpArrives('srv', 'a', v6('a'))).toBe(false);
    expect([fetches('a', v4('srv')), fetches('a', v6('srv'))]).toEqual([true, true]);
    undo();
    expect(await udpArrives('a', 'srv', v4('srv'))).toBe(true);
    expect(await udpArrives('a', 'srv', v6('srv'))).toBe(true);
  }, 30_000);

  it('mtuBlackHole drops large IPv4 packets without a word and passes small ones', () => {
    for (const [peer, hole] of [
      ['b', 'bridged'],
      ['srv', 'routed'],
    ] as const) {
      const big = ['-M', 'do', '-s', '1400'];
      const small = ['-M', 'do', '-s', '1000'];
      expect(pings('a', v4(peer), ...big), hole).toBe(true);
      const undo = net.mtuBlackHole('a', peer, 1200);
      const r = spawnSync(
        'ip',
        ['netns', 'exec', net.host('a').ns, 'ping', '-n', '-c1', '-W1', ...big, v4(peer)],
        { encoding: 'utf8' },
      );
      expect(r.status, hole).not.toBe(0);
      // Silently: no "Frag needed" that would let path MTU discovery find the way round.
      expect(r.stdout + r.stderr, hole).not.toMatch(/frag|mtu/i);
      expect(pings('a', v4(peer), ...small), hole).toBe(true);
      expect(pings(peer, v4('a'), ...big), `${hole}, the other way`).toBe(false);
      undo();
      expect(pings('a', v4(peer), ...big), hole).toBe(true);
    }
  }, 30_000);

  it('restore lifts every fault at once', async () => {
    net.blackhole('b');
    net.blackhole('ctrl');
    net.blockUdp('a', 'srv');
    net.mtuBlackHole('a', 'srv', 600);
    const listed = sh('ip', [
      'netns',
      'exec',
      net.inet,
      'nft',
      'list',
      'table',
      'bridge',
      'ferry_faults',
    ]);
    expect(listed).toContain('blackhole ctrl');
    net.restore();
    expect([
      pings('a', v4('b')),
      fetches('a', v4('ctrl')),
      pings('a', v4('srv'), '-s', '1000'),
    ]).toEqual([true, true, true]);
    expect(await udpArrives('a', 'srv', v4('srv'))).toBe(true);
    for (const family of ['bridge', 'inet']) {
      const table = sh('ip', [
        'netns',
        'exec',
        net.inet,
        'nft',
        'list',
        'table',
        family,
        'ferry_faults',
      ]);
      expect(table).not.toContain('drop');
    }
  }, 30_000);
});

// The censor's profiles that nftables says alone: udp-block (net4people/bbs #274: WireGuard and
// today's Ferry/UDP stop, the home resolver still answers), udp-throttle (HyNetworks/hysteria
// #1267, #1380: a UDP flow is cut to a trickle after its grace period; a WireGuard tunnel's too) and port-block
// (net4people/bbs #511: one port dropped toward every foreign address).
import { afterEach, expect, it } from 'vitest';

import { TestNetwork, requireTools } from '../test-network.js';
import { Testbed } from '../testbed.js';
import { Censor } from './censor.js';
import { HTTP_GET, startTcpServer, tcpExchange } from './censor-test-kit.js';
import { lookup, startResolver } from './resolver.js';

let censor: Censor | undefined;
let net: TestNetwork | undefined;
let bed: Testbed | undefined;
afterEach(async () => {
  await censor?.stop();
  censor = undefined;
  await bed?.stop();
  bed = undefined;
  await net?.destroyAsync();
  net = undefined;
});

it('udp-block stops WireGuard and Ferry over UDP from home (the home resolver still answers); udp-throttle cuts both to a trickle', async () => {
  bed = await Testbed.start();
  const relay = await bed.addRelay('relay', 'eu-west', { ferry: true });
  const account = await bed.newAccount('premium');
  const wg = await bed.addClient('wg', await bed.newDevice(account, 'wg'), { home: true });
  await bed.connect(wg, { region: 'eu-west' });
  await bed.addFerryClient('fu', await bed.newDevice(account, 'fu'), { region: 'eu-west' }, 'udp', {
    home: true,
  });
  const resolver = bed.net.addHomeHost('resolver').address;
  await startResolver(bed.net, 'resolver', { 'cover.example': '198.51.100.7' });
  bed.net.addServerHost('dns-abroad');
  const abroad = bed.net.host('dns-abroad').address;
  await startResolver(bed.net, 'dns-abroad', { 'cover.example': '198.51.100.7' });
  // Before the censor: both tunnels carry traffic abroad, and both resolvers answer.
  for (const host of ['wg', 'fu'])
    expect(await bed.net.waitFor(`${host}'s tunnel`, 10_000, () => bed!.echoFrom(host, 2))).toBe(
      relay.address,
    );
  expect(lookup(bed.net, 'wg', abroad, 'cover.example')).toEqual(['198.51.100.7']);

  censor = await Censor.start(bed.net, { profiles: ['udp-block'] });
  expect(bed.echoFrom('wg', 3)).toBeUndefined();
  expect(bed.echoFrom('fu', 3)).toBeUndefined();
  expect(lookup(bed.net, 'wg', resolver, 'cover.example')).toEqual(['198.51.100.7']);
  expect(lookup(bed.net, 'wg', abroad, 'cover.example')).toBe('ETIMEOUT');
  // The control plane (TCP) is still reachable from home: only UDP is gone.
  expect(bed.echoFrom('wg', 3, `${bed.controlUrl}/health`) ?? 'no answer').not.toBe('no answer');

  await censor.stop();
  censor = undefined;
  expect(await bed.net.waitFor('WireGuard again', 10_000, () => bed!.echoFrom('wg', 2))).toBe(
    relay.address,
  );

  // udp-throttle on the same tunnel: one long-lived flow, cut to 64 kbit/s once its grace period
  // is over (Ferry's likewise). iperf3 in them runs at full speed before and at a trickle (or not
  // at all) after.
  bed.startIperfServer(5201);
  expect(await bed.iperf('wg', 5201, 2)).toBeGreaterThan(20e6);
  expect(await bed.net.waitFor('Ferry again', 10_000, () => bed!.echoFrom('fu', 2))).toBe(
    relay.address,
  );
  expect(await bed.iperf('fu', 5201, 2)).toBeGreaterThan(20e6);
  censor = await Censor.start(bed.net, { profiles: ['udp-throttle'], udpGraceSeconds: 1 });
  // The censor takes the tunnel for a new flow at its next packet (a keepalive each second):
  // its grace period starts then.
  await new Promise((r) => setTimeout(r, 2500));
  for (const host of ['wg', 'fu'])
    expect(await bed.iperf(host, 5201, 2).catch(() => 0), host).toBeLessThan(200e3);
}, 120_000);

it('udp-throttle cuts a long UDP flow to a trickle after its grace period', async () => {
  requireTools(['iperf3']);
  net = TestNetwork.create();
  net.addHomeHost('client');
  const server = net.addServerHost('abroad').address;
  net.spawn('abroad', 'iperf3', ['iperf3', '-s', '-1', '-J']);
  await net.waitFor('iperf3 server', 5000, () =>
    net!.exec('abroad', ['ss', '-Htln', 'sport = :5201']).trim() ? true : undefined,
  );
  censor = await Censor.start(net, {
    profiles: ['udp-throttle'],
    udpGraceSeconds: 3,
    udpRateKbit: 64,
  });
  const out = net.exec('client', [
    'iperf3',
    '-c',
    server,
    '-u',
    '-b',
    '2M',
    '-t',
    '8',
    '--json',
    '--get-server-output',
  ]);
  const report = JSON.parse(out) as {
    server_output_json: { intervals: { sum: { bytes: number; start: number } }[] };
  };
  const perSecond = report.server_output_json.intervals.map((i) => i.sum.bytes);
  // 2 Mbit/s is 250 kB/s: the first two seconds arrive whole, from the fifth on 64 kbit/s (8 kB/s).
  expect(perSecond[0], JSON.stringify(perSecond)).toBeGreaterThan(150_000);
  expect(perSecond[1], JSON.stringify(perSecond)).toBeGreaterThan(150_000);
  const late = perSecond.slice(4, 8);
  for (const bytes of late) expect(bytes, JSON.stringify(perSecond)).toBeLessThan(16_000);
  // A trickle, not a wall.
  expect(
    late.reduce((x, y) => x + y, 0),
    JSON.stringify(perSecond),
  ).toBeGreaterThan(0);
}, 40_000);

it('port-block drops one port toward every foreign address, and only that port', async () => {
  net = TestNetwork.create();
  net.addHomeHost('client');
  const a = net.addServerHost('a').address;
  const b = net.addServerHost('b').address;
  for (const [host, port] of [
    ['a', 443],
    ['a', 8443],
    ['b', 443],
  ] as const)
    startTcpServer(net, host, port, 'echo');
  await net.waitFor('servers', 5000, () =>
    tcpExchange(net!, 'client', b, 443, HTTP_GET).bytes ? true : undefined,
  );
  censor = await Censor.start(net, {
    profiles: ['port-block'],
    port: { protocol: 'tcp', port: 443 },
  });
  expect(tcpExchange(net, 'client', a, 443, HTTP_GET, 1000).connected).toBe(false);
  expect(tcpExchange(net, 'client', b, 443, HTTP_GET, 1000).connected).toBe(false);
  expect(tcpExchange(net, 'client', a, 8443, HTTP_GET).text).toMatch(/^ok /);
}, 30_000);

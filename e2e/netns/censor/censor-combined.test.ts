// udp-block, fet, prober and tls-fingerprint together (issue 20, done-when 2's combination)
// against today's transports from a home network: WireGuard and Ferry over UDP are cut, Ferry over
// TCP connects, is probed and blocked; a browser (chromium) still reaches the cover site, plain
// HTTP passes, and the servers that answer like servers are probed and never blocked.
import { afterEach, beforeAll, expect, it } from 'vitest';

import { requireTools } from '../test-network.js';
import { Testbed } from '../testbed.js';
import { Censor } from './censor.js';
import { curlFrom } from './censor-test-kit.js';
import { CHROMIUM, chromiumDom, captureChromeJa4 } from './chrome-hello.js';
import { startCoverSite } from './cover-site.js';

let bed: Testbed | undefined;
let censor: Censor | undefined;
beforeAll(() => requireTools(['curl', 'nginx', CHROMIUM]));
afterEach(async () => {
  await censor?.stop();
  censor = undefined;
  await bed?.stop();
  bed = undefined;
});

it("udp-block + fet + prober + tls-fingerprint stop today's tunnels, not the web", async () => {
  const chrome = await captureChromeJa4();
  bed = await Testbed.start();
  const net = bed.net;
  const relay = await bed.addRelay('relay', 'eu-west', { ferry: true });
  const cover = await startCoverSite(net);
  censor = await Censor.start(net, {
    profiles: ['udp-block', 'fet', 'prober', 'tls-fingerprint'],
    ja4Allow: [chrome],
    realServers: { [cover.serverName]: `${cover.address}:443` },
    probeTimeoutMs: 2000,
  });

  const account = await bed.newAccount('premium');
  const wg = await bed.addClient('wg', await bed.newDevice(account, 'wg'), { home: true });
  await bed.connect(wg, { region: 'eu-west' });
  const body = { region: 'eu-west' };
  await bed.addFerryClient('fu', await bed.newDevice(account, 'fu'), body, 'udp', { home: true });
  const tcp = await bed.addFerryClient('ft', await bed.newDevice(account, 'ft'), body, 'tcp', {
    home: true,
  });
  const ferryPort = tcp.answer.node.ferry_port!;
  // Ferry over TCP gets through at first: its first packet is exempt from Wu et al.'s rule.
  await censor.waitEvent('fet-pass', (e) => e.server === relay.address && e.port === ferryPort);
  const probe = await censor.waitEvent('probe', (e) => e.server === relay.address, 15_000);
  expect(probe.blocked, probe.reason).toBe(true);
  expect(censor.probeBlocked()).toContain(`${relay.address} . ${ferryPort}`);
  for (const host of ['wg', 'fu', 'ft']) expect(bed.echoFrom(host, 2), host).toBeUndefined();

  // The web from home: a browser to the cover site (curl is reset), plain HTTP.
  const home = net.addHomeHost('browser');
  expect(
    chromiumDom(home.ns, cover.serverName, cover.address),
    JSON.stringify(censor.events().filter((e) => e.kind !== 'probe')),
  ).toContain('Welcome.');
  expect(curlFrom(net, 'browser', cover.serverName, cover.address).status).toBe(0);
  expect(bed.echoFrom('browser')).toBe(home.address);
  const coverProbe = await censor.waitEvent('probe', (e) => e.server === cover.address, 15_000);
  expect(coverProbe.blocked, coverProbe.reason).toBe(false);
  const echoProbe = await censor.waitEvent('probe', (e) => e.server === net.host('echo').address);
  expect(echoProbe.blocked, echoProbe.reason).toBe(false);
  expect(censor.probeBlocked()).toEqual([`${relay.address} . ${ferryPort}`]);
}, 120_000);

// The censor's prober (IMC 2020) beside fet (USENIX Security 2023): today's Ferry over TCP passes
// Wu et al.'s rule (its printable preamble) but its port answers no probe, so the prober blocks
// it and the tunnel stops; a real HTTPS server (the nginx cover site) is probed, answers as the
// real server of its name does, and is never blocked, while a stand-in that swallows everything
// for the same name is. And tcp-budget (net4people/bbs #490) stalls today's Ferry TCP to a
// hosting prefix: it has no server name to allowlist.
import { spawnSync } from 'node:child_process';

import { afterEach, beforeAll, expect, it } from 'vitest';

import { pingServerTunnel } from '../ferry-pair-kit.js';
import { FERRY_TCP_PORT, FerryPair, SERVER_TUNNEL, requireFerryBuilt } from '../ferry-process.js';
import { TestNetwork, requireTools } from '../test-network.js';
import { Censor } from './censor.js';
import { curlFrom, startTcpServer } from './censor-test-kit.js';
import { startCoverSite } from './cover-site.js';
import type { Observations } from './prober.js';

let net: TestNetwork;
let censor: Censor | undefined;
beforeAll(() => {
  requireTools(['curl', 'nginx', 'ping']);
  requireFerryBuilt();
});
afterEach(async () => {
  await censor?.stop();
  censor = undefined;
  await net?.destroyAsync();
});

it("fet lets today's Ferry TCP through, the prober blocks its port and the tunnel stops", async () => {
  net = TestNetwork.create();
  const server = net.addAccessHost('server').address;
  net.addHomeHost('client');
  censor = await Censor.start(net, { profiles: ['fet', 'prober'], probeTimeoutMs: 2000 });
  const ferry = FerryPair.create(net, { server: 'server', client: 'client' });
  const srv = ferry.startServer(['--tcp-listen', `${server}:${FERRY_TCP_PORT}`]);
  await srv.waitFor((e) => e.type === 'state' && e.state === 'connected', 10_000, 'server up');
  const client = ferry.startClient(['--transport', 'tcp'], `${server}:${FERRY_TCP_PORT}`);
  await client.waitFor((e) => e.type === 'state' && e.state === 'connected', 10_000, 'connected');
  expect(pingServerTunnel(net, ['-c', '1', '-W', '2'])).toBe(0);
  await censor.waitEvent('fet-pass', (e) => e.port === FERRY_TCP_PORT);
  expect(censor.events().some((e) => e.kind === 'fet-flag')).toBe(false);

  const probe = await censor.waitEvent('probe', (e) => e.port === FERRY_TCP_PORT, 15_000);
  expect(probe.blocked, probe.reason).toBe(true);
  expect(probe.reason).toMatch(/answers no probe/);
  const seen = (probe.observations as { endpoint: Observations }).endpoint;
  expect(seen.raw.map((r) => r.probe)).toEqual([
    'replay',
    'random 8',
    'random 221',
    'random 600',
    'http',
  ]);
  expect(censor.probeBlocked()).toEqual([`${server} . ${FERRY_TCP_PORT}`]);
  expect(pingServerTunnel(net, ['-c', '2', '-W', '1'])).not.toBe(0);
}, 60_000);

it('never blocks the real HTTPS server, and blocks a stand-in that swallows what it is sent', async () => {
  net = TestNetwork.create();
  net.addHomeHost('client');
  const cover = await startCoverSite(net);
  const fake = net.addServerHost('fake').address;
  startTcpServer(net, 'fake', 443, 'swallow');
  censor = await Censor.start(net, {
    profiles: ['prober'],
    realServers: { [cover.serverName]: `${cover.address}:443` },
    probeTimeoutMs: 2000,
  });
  expect(curlFrom(net, 'client', cover.serverName, cover.address).status).toBe(200);
  const probe = await censor.waitEvent('probe', (e) => e.server === cover.address, 15_000);
  expect(probe.blocked, probe.reason).toBe(false);
  const { endpoint } = probe.observations as { endpoint: Observations };
  expect(endpoint.tls.outcome).toBe('handshake');
  expect(Buffer.from(endpoint.tls.chain[0]!, 'base64').equals(cover.certDer)).toBe(true);
  expect(endpoint.tls.http?.status).toBe(200);
  expect(endpoint.http?.status).toBe(400);
  expect(curlFrom(net, 'client', cover.serverName, cover.address).status).toBe(200);

  curlFrom(net, 'client', cover.serverName, fake, '/', 2);
  const fakeProbe = await censor.waitEvent('probe', (e) => e.server === fake, 15_000);
  expect(fakeProbe.blocked).toBe(true);
  expect(censor.probeBlocked()).toEqual([`${fake} . 443`]);
}, 60_000);

it("tcp-budget stalls today's Ferry TCP to a hosting prefix after 16 KB from the relay", async () => {
  net = TestNetwork.create();
  const server = net.addAccessHost('server').address;
  net.addHomeHost('client');
  censor = await Censor.start(net, { profiles: ['tcp-budget'], hosting: [`${server}/32`] });
  const ferry = FerryPair.create(net, { server: 'server', client: 'client' });
  const srv = ferry.startServer(['--tcp-listen', `${server}:${FERRY_TCP_PORT}`]);
  await srv.waitFor((e) => e.type === 'state' && e.state === 'connected', 10_000, 'server up');
  const client = ferry.startClient(['--transport', 'tcp'], `${server}:${FERRY_TCP_PORT}`);
  await client.waitFor((e) => e.type === 'state' && e.state === 'connected', 10_000, 'connected');
  // 30 echo replies of 1.4 KB each: some come back, then the relay's bytes pass 16 KB.
  const out = spawnSync(
    'ip',
    [
      'netns',
      'exec',
      net.host('client').ns,
      'ping',
      '-c',
      '30',
      '-s',
      '1400',
      '-i',
      '0.05',
      '-W',
      '1',
      SERVER_TUNNEL,
    ],
    { encoding: 'utf8' },
  ).stdout;
  const received = Number(/(\d+) received/.exec(out)?.[1]);
  expect(received, out).toBeGreaterThan(0);
  expect(received, out).toBeLessThan(15);
  expect(pingServerTunnel(net, ['-c', '2', '-W', '1'])).not.toBe(0);
}, 60_000);

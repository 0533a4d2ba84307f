// Ferry over TLS (ferry-tun --transport tls to a relay's TLS port, its cover site the nginx cover
// site) from the home network through every profile but port-block on its port (which stops it): it connects and
// carries traffic (well past tcp-budget's 16 KB, iperf3 in the tunnel), fet does not flag it, its
// hello's JA4 is the one computed from Debian's chromium, and the prober finds the relay's TLS
// port answering as the cover site (certificate chain byte for byte, HTTPS status and headers)
// and never blocks it.
import { afterEach, beforeAll, expect, it } from 'vitest';

import { requireFerryBuilt } from '../ferry-process.js';
import { requireTools } from '../test-network.js';
import { Testbed } from '../testbed.js';
import { Censor } from './censor.js';
import { CHROMIUM, captureChromeJa4 } from './chrome-hello.js';
import { startCoverSite } from './cover-site.js';
import type { Observations } from './prober.js';
import { BORDER_PROFILES } from './profiles.js';

const TLS_PORT = 8443;
let bed: Testbed | undefined;
let censor: Censor | undefined;
beforeAll(() => {
  requireTools(['nginx', 'iperf3', CHROMIUM]);
  requireFerryBuilt();
});
afterEach(async () => {
  await censor?.stop();
  censor = undefined;
  await bed?.stop();
  bed = undefined;
});

it('crosses udp-block, udp-throttle, fet, sni-block, prober, tls-fingerprint and tcp-budget', async () => {
  const chrome = await captureChromeJa4();
  bed = await Testbed.start();
  const net = bed.net;
  const cover = await startCoverSite(net);
  const relay = await bed.addRelay('relay', 'eu-west', {
    ferry: true,
    tls: {
      port: TLS_PORT,
      cover: { address: cover.address, port: cover.port, serverName: cover.serverName },
    },
  });
  censor = await Censor.start(net, {
    profiles: BORDER_PROFILES.filter((p) => p !== 'port-block'),
    ja4Allow: [chrome],
    sniBlock: ['blocked.example'],
    // The relays' subnet is a hosting provider's: only allowlisted names get past 16 KB.
    hosting: [`198.18.${net.n}.0/24`],
    sniAllow: [cover.serverName],
    realServers: { [cover.serverName]: `${cover.address}:${cover.port}` },
    probeTimeoutMs: 2000,
    udpGraceSeconds: 3,
  });

  const device = await bed.newDevice(await bed.newAccount('premium'), 'ft');
  await bed.addFerryClient('ft', device, { region: 'eu-west' }, 'tls', { home: true });
  expect(await net.waitFor('the TLS tunnel', 15_000, () => bed!.echoFrom('ft', 2))).toBe(
    relay.address,
  );
  const pass = await censor.waitEvent('ja4-pass', (e) => e.server === relay.address);
  expect(pass).toMatchObject({ ja4: chrome, port: TLS_PORT, serverName: cover.serverName });
  await censor.waitEvent('fet-pass', (e) => e.server === relay.address && e.port === TLS_PORT);
  await censor.waitEvent('budget-exempt', (e) => e.server === relay.address);

  const probe = await censor.waitEvent(
    'probe',
    (e) => e.server === relay.address && e.port === TLS_PORT,
    15_000,
  );
  expect(probe.blocked, probe.reason).toBe(false);
  const { endpoint, real } = probe.observations as { endpoint: Observations; real: Observations };
  expect(endpoint.tls.outcome).toBe('handshake');
  expect(Buffer.from(endpoint.tls.chain[0]!, 'base64').equals(cover.certDer)).toBe(true);
  expect(endpoint.tls.chain).toEqual(real.tls.chain);
  expect(endpoint.tls.http?.status).toBe(200);
  expect(endpoint.tls.http).toEqual(real.tls.http);
  expect(endpoint.http).toEqual(real.http);

  // Still connected after the probes, and carrying a bulk transfer through the tunnel.
  bed.startIperfServer(5201);
  expect(await bed.iperf('ft', 5201, 3)).toBeGreaterThan(10e6);
  expect(bed.echoFrom('ft', 2)).toBe(relay.address);
  expect(censor.probeBlocked()).toEqual([]);
  const refused = censor
    .events()
    .filter((e) => ['fet-flag', 'ja4-reset', 'sni-reset', 'quic-drop'].includes(e.kind));
  expect(refused).toEqual([]);

  // port-block on its port is the one profile it does not cross (it must look like HTTPS).
  await censor.stop();
  censor = await Censor.start(net, {
    profiles: ['port-block'],
    port: { protocol: 'tcp', port: TLS_PORT },
  });
  expect(bed.echoFrom('ft', 2)).toBeUndefined();
}, 120_000);

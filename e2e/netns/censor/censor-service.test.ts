// The censor's profiles against the VPN service itself (issue 21): allowlist (only listed
// foreign prefixes answer: Russian mobile networks in shutdowns, Iran; net4people/bbs #516,
// #579, #650) and service-block (the control plane blocked by address and by name: its
// hellos reset, DNS for it forged, as a first move against a VPN service; OutlineFoundation/
// outline-apps #2542).
import { afterEach, beforeAll, beforeEach, expect, it } from 'vitest';

import { TestNetwork, requireTools } from '../test-network.js';
import { Censor } from './censor.js';
import { HTTP_GET, curlFrom, startTcpServer, tcpExchange } from './censor-test-kit.js';
import { startCoverSite } from './cover-site.js';
import { lookup, startResolver } from './resolver.js';

let net: TestNetwork;
let censor: Censor | undefined;
beforeAll(() => requireTools(['curl', 'nginx']));
beforeEach(() => {
  net = TestNetwork.create();
  net.addHomeHost('client');
});
afterEach(async () => {
  await censor?.stop();
  censor = undefined;
  await net.destroyAsync();
});

/** Whether an HTTP request from home to address:9000 gets its echo. */
const answers = (address: string) =>
  /^ok /.test(tcpExchange(net, 'client', address, 9000, HTTP_GET, 1500).text);

it('allowlist: only the listed foreign prefixes answer', async () => {
  const entry = net.addServerHost('entry').address;
  const abroad = net.addServerHost('abroad').address;
  for (const host of ['entry', 'abroad']) startTcpServer(net, host, 9000, 'echo');
  await net.waitFor('servers', 5000, () => (answers(entry) && answers(abroad)) || undefined);
  censor = await Censor.start(net, { profiles: ['allowlist'], allow: [`${entry}/32`] });
  expect(answers(entry)).toBe(true);
  expect(answers(abroad)).toBe(false);
}, 60_000);

it('service-block: the control plane dropped by address, its name reset in hellos and forged in DNS', async () => {
  const service = net.addServerHost('ctrl').address;
  const other = net.addServerHost('abroad').address;
  for (const host of ['ctrl', 'abroad']) startTcpServer(net, host, 9000, 'echo');
  const cover = await startCoverSite(net);
  net.addServerHost('dns');
  await startResolver(net, 'dns', { 'ferry.test': service, 'cover.example': cover.address });
  const resolver = net.host('dns').address;
  await net.waitFor('servers', 5000, () => (answers(service) && answers(other)) || undefined);
  censor = await Censor.start(net, {
    profiles: ['service-block'],
    service: { addresses: [`${service}/32`], names: ['ferry.test'] },
    forgedAddress: '198.51.100.66',
  });
  // By address: nothing reaches it; another foreign host still answers.
  expect(answers(service)).toBe(false);
  expect(answers(other)).toBe(true);
  // By name: wherever it is served from (here: the cover site's address), and in DNS.
  expect(curlFrom(net, 'client', 'cover.example', cover.address).status).toBe(200);
  expect(curlFrom(net, 'client', 'api.ferry.test', cover.address).status).toBe(0);
  await censor.waitEvent('sni-reset', (e) => e.serverName === 'api.ferry.test');
  expect(lookup(net, 'client', resolver, 'ferry.test')).toEqual(['198.51.100.66']);
  expect(lookup(net, 'client', resolver, 'cover.example')).toEqual([cover.address]);
}, 60_000);

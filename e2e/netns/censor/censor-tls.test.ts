// The censor's profiles that read a ClientHello: sni-block (TLS reset, QUIC Initial dropped:
// USENIX Security 2025; DNS answers forged), tls-fingerprint (XTLS/Xray-core #6181, #6293: only a
// browser's JA4 passes; Chrome's is computed from a real hello of Debian's chromium) and
// tcp-budget (net4people/bbs #490: a hosting prefix stalls after 16 KB unless the name is
// allowlisted). The far end is the cover site, a real nginx.
import { randomBytes } from 'node:crypto';

import { afterEach, beforeAll, beforeEach, expect, it } from 'vitest';

import { TestNetwork, requireTools } from '../test-network.js';
import { Censor } from './censor.js';
import {
  curlFrom,
  helloMessage,
  nodeHandshake,
  opensslHandshake,
  sendUdp,
  startUdpCounter,
} from './censor-test-kit.js';
import { CHROMIUM, chromiumDom, captureChromeJa4 } from './chrome-hello.js';
import { startCoverSite, type CoverSite } from './cover-site.js';
import { sealInitial } from './quic-initial.js';
import { lookup, startResolver } from './resolver.js';

let net: TestNetwork;
let cover: CoverSite;
let censor: Censor | undefined;
beforeAll(() => requireTools(['curl', 'openssl', 'nginx', CHROMIUM]));
beforeEach(async () => {
  net = TestNetwork.create();
  net.addHomeHost('client');
  cover = await startCoverSite(net);
});
afterEach(async () => {
  await censor?.stop();
  censor = undefined;
  await net.destroyAsync();
});

it('sni-block resets a TLS hello, drops a QUIC Initial and forges a DNS answer for a blocked name only', async () => {
  const udp = startUdpCounter(net, cover.host, 443);
  net.addServerHost('dns');
  await startResolver(net, 'dns', {
    'blocked.example': cover.address,
    'cover.example': cover.address,
  });
  const resolver = net.host('dns').address;
  censor = await Censor.start(net, {
    profiles: ['sni-block'],
    sniBlock: ['blocked.example'],
    forgedAddress: '198.51.100.66',
  });

  expect(curlFrom(net, 'client', 'cover.example', cover.address).status).toBe(200);
  const blocked = curlFrom(net, 'client', 'www.blocked.example', cover.address);
  expect(blocked.status).toBe(0);
  expect([35, 56]).toContain(blocked.code);
  await censor.waitEvent('sni-reset', (e) => e.serverName === 'www.blocked.example');

  const initial = (name: string) =>
    sealInitial(randomBytes(8), randomBytes(8), 0, helloMessage(name));
  sendUdp(net, 'client', cover.address, 443, [initial('cover.example')]);
  await net.waitFor('the allowed Initial', 5000, () => (udp.received() === 1 ? true : undefined));
  sendUdp(net, 'client', cover.address, 443, [initial('blocked.example')]);
  await censor.waitEvent('quic-drop', (e) => e.serverName === 'blocked.example');
  sendUdp(net, 'client', cover.address, 443, [initial('cover.example')]);
  await net.waitFor('the second allowed Initial', 5000, () =>
    udp.received() === 2 ? true : undefined,
  );

  expect(lookup(net, 'client', resolver, 'cover.example')).toEqual([cover.address]);
  expect(lookup(net, 'client', resolver, 'blocked.example')).toEqual(['198.51.100.66']);
  await censor.waitEvent('dns-forged', (e) => e.name === 'blocked.example');
}, 60_000);

it('tls-fingerprint passes chromium, whose JA4 it allowlists, and resets curl, openssl and Node', async () => {
  const chrome = await captureChromeJa4();
  expect(chrome).toMatch(/^t13d\d{4}h2_/);
  censor = await Censor.start(net, { profiles: ['tls-fingerprint'], ja4Allow: [chrome] });

  expect(chromiumDom(net.host('client').ns, cover.serverName, cover.address)).toContain('Welcome.');
  const pass = await censor.waitEvent('ja4-pass');
  expect(pass.ja4).toBe(chrome);

  expect(curlFrom(net, 'client', cover.serverName, cover.address).status).toBe(0);
  expect(opensslHandshake(net, 'client', cover.serverName, cover.address)).toBe(false);
  expect(nodeHandshake(net, 'client', cover.serverName, cover.address)).toBe('ECONNRESET');
  const resets = await net.waitFor('three resets', 5000, () => {
    const r = censor!.events().flatMap((e) => (e.kind === 'ja4-reset' ? [e] : []));
    return r.length >= 3 ? r : undefined;
  });
  for (const r of resets) expect(r.ja4).not.toBe(chrome);
}, 90_000);

it('tcp-budget stalls a 1 MB download from a hosting address after 16 KB unless the name is allowlisted', async () => {
  const before = curlFrom(net, 'client', 'other.example', cover.address, '/1m.bin');
  expect(before.size).toBe(1 << 20);
  censor = await Censor.start(net, {
    profiles: ['tcp-budget'],
    hosting: [net.serverSubnet],
    sniAllow: ['cover.example'],
  });
  const stalled = curlFrom(net, 'client', 'other.example', cover.address, '/1m.bin', 3);
  expect(stalled.code).toBe(28);
  expect(stalled.size).toBeLessThan(32_768);
  const allowed = curlFrom(net, 'client', 'cover.example', cover.address, '/1m.bin');
  expect(allowed.size).toBe(1 << 20);
  await censor.waitEvent('budget-exempt', (e) => e.serverName === 'cover.example');
}, 60_000);

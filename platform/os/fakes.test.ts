// The fakes of the OS seams keep the contract (the same cases the namespace test runs on the
// Linux implementations), so what the engine and the relay are unit-tested on behaves as Linux.
import { beforeEach, describe, expect, it } from 'vitest';

import { Journal } from './journal.fake.js';
import { FakeLinks } from './links.fake.js';
import { FakeFirewall } from './nftables.fake.js';
import { FakeRoutes } from './routes.fake.js';
import {
  firewallContract,
  linksContract,
  routesContract,
  wireguardContract,
} from './seams.contract.js';
import { FakeSysctl } from './sysctl.fake.js';
import { FakeWireguardSystem } from './wireguard-go.fake.js';

let journal: Journal;
let links: FakeLinks;
let routes: FakeRoutes;
let firewall: FakeFirewall;
beforeEach(() => {
  journal = new Journal();
  links = new FakeLinks(journal);
  routes = new FakeRoutes(journal, links);
  firewall = new FakeFirewall(journal);
});

describe('fake links keep the contract', () => linksContract(() => links));
describe('fake routes keep the contract', () =>
  routesContract(
    () => links,
    () => routes,
  ));
describe('fake firewall keeps the contract', () => firewallContract(() => firewall));
describe('fake wireguard-go keeps the contract', () => {
  let wg: FakeWireguardSystem;
  beforeEach(() => {
    // A node that never answers: no handshake, as with the contract's unreachable endpoints.
    wg = new FakeWireguardSystem(links);
    wg.nodeAnswers = false;
  });
  wireguardContract(() => wg, 'fycontractwg');
});

describe('the fake firewall', () => {
  const t = { family: 'inet', name: 'relay' } as const;

  it('keeps elements in their set, given beside it or patched in, for the tests to read', async () => {
    await firewall.apply(t, [
      { set: { name: 'tunnels', type: 'ifname' } },
      { element: { name: 'tunnels', elem: ['wg0'] } },
    ]);
    await firewall.patch(t, [{ add: { element: { name: 'tunnels', elem: ['wg0s1', 'wg0'] } } }]);
    expect(firewall.elements(t, 'tunnels')).toEqual(['wg0', 'wg0s1']);
    expect(firewall.table(t)).toEqual([
      { set: { name: 'tunnels', type: 'ifname', elem: ['wg0', 'wg0s1'] } },
    ]);
    expect(journal.ops()).toEqual(['firewall.apply', 'firewall.patch']);
  });
});

describe('the fake sysctl', () => {
  it('keeps what was set, reads 0 for what was not, and fails on demand', async () => {
    const sysctl = new FakeSysctl(journal);
    expect(await sysctl.get('net.ipv4.ip_forward')).toBe('0');
    await sysctl.set('net.ipv4.ip_forward', '1');
    expect(await sysctl.get('net.ipv4.ip_forward')).toBe('1');
    sysctl.failNext('set');
    await expect(sysctl.set('net.ipv4.ip_forward', '0')).rejects.toThrow('injected failure');
    expect(sysctl.values.get('net.ipv4.ip_forward')).toBe('1');
    expect(journal.ops()).toEqual(['sysctl.get', 'sysctl.set', 'sysctl.get', 'sysctl.set']);
  });
});

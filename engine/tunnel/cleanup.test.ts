// What a crash left behind is told apart from everything else, and removed: never another
// program's interface, rule or socket, never a tunnel the manager holds.
import { beforeEach, describe, expect, it } from 'vitest';

import { createFakeOs, type FakeOs } from '../os/effects.fake.js';
import {
  leftoverLinks,
  leftoverProcesses,
  leftoverRules,
  leftoverSockets,
  leftoverTableRoutes,
  removeLeftovers,
  type HeldTunnels,
} from './cleanup.js';
import { FERRY_ROUTE_TABLE } from './names.js';
import { fullTunnelRules } from './routing.js';
import { FakeWireguardSystem } from '../../platform/os/wireguard-go.fake.js';

const none: HeldTunnels = { names: new Set(), fullTunnel: false };
const holding = (name: string, fullTunnel = true): HeldTunnels => ({
  names: new Set([name]),
  fullTunnel,
});
const link = (name: string) => ({ name, kind: 'tun', mtu: 1420, up: true, addresses: [] });

describe('the leftover selectors', () => {
  it('pick our interfaces and processes, not others’ nor held ones', () => {
    const links = ['eth0', 'wg0', 'fytmainaaaaaa', 'fytsvcbbbbbb', 'fy1a2b3cc0'].map(link);
    expect(leftoverLinks(links, none)).toEqual(['fytmainaaaaaa', 'fytsvcbbbbbb']);
    expect(leftoverLinks(links, holding('fytsvcbbbbbb'))).toEqual(['fytmainaaaaaa']);
    const procs = [
      { pid: 1, interfaceName: 'wg0' },
      { pid: 2, interfaceName: 'fytmainaaaaaa' },
    ];
    expect(leftoverProcesses(procs, none)).toEqual([{ pid: 2, interfaceName: 'fytmainaaaaaa' }]);
    expect(leftoverSockets(['wg0', 'fytmainaaaaaa'], holding('fytmainaaaaaa'))).toEqual([]);
  });

  it('pick our rules unless a held full tunnel needs them, and routes in our table no held tunnel made', () => {
    const rules = [
      ...fullTunnelRules(),
      { family: 4 as const, priority: 32765, table: 51820, fwmark: 51820, notFwmark: true },
    ];
    expect(leftoverRules(rules, none)).toEqual(fullTunnelRules());
    expect(leftoverRules(rules, holding('fytmainaaaaaa'))).toEqual([]);
    const routes = [
      { destination: '0.0.0.0/0', dev: 'fytmainaaaaaa', table: FERRY_ROUTE_TABLE },
      { destination: '0.0.0.0/0', dev: 'fytoldcccccc', table: FERRY_ROUTE_TABLE },
    ];
    expect(leftoverTableRoutes(routes, holding('fytmainaaaaaa'))).toEqual([routes[1]]);
  });
});

describe('removing leftovers', () => {
  let os: FakeOs;
  let wg: FakeWireguardSystem;
  beforeEach(() => {
    os = createFakeOs();
    wg = new FakeWireguardSystem(os.links);
  });

  it('ends the processes, deletes links, table routes and rules, and sockets nobody serves', async () => {
    // A crashed engine's full tunnel: wireguard-go still running, a Ferry link, our rules.
    wg.start('fytmainaaaaaa');
    await os.links.setUp('fytmainaaaaaa', true);
    os.links.addExisting('fytferrybbbbbb'.slice(0, 15));
    os.links.addExisting('eth0');
    await os.links.setUp('eth0', true);
    await os.routes.add({
      destination: '0.0.0.0/0',
      dev: 'fytmainaaaaaa',
      table: FERRY_ROUTE_TABLE,
    });
    await os.routes.add({ destination: '0.0.0.0/0', dev: 'eth0' });
    for (const r of fullTunnelRules()) await os.routes.addRule(r);
    await os.routes.addRule({ family: 4, priority: 100, table: 'main' });
    // A SIGKILLed wireguard-go's socket, and one another namespace's engine still serves.
    wg.start('fytdeaddddddd');
    wg.crash('fytdeaddddddd');
    const otherNs = new FakeWireguardSystem(createFakeOs().links);
    otherNs.start('fytlivedddddd');
    wg.socketFiles.add('fytlivedddddd');
    const exchange = wg.exchange.bind(wg);
    wg.exchange = (name, req) =>
      name === 'fytlivedddddd' ? otherNs.exchange(name, req) : exchange(name, req);

    await removeLeftovers({ links: os.links, routes: os.routes, wireguard: wg }, none);

    expect(await wg.processes()).toEqual([]);
    expect([...os.links.links.keys()]).toEqual(['eth0']);
    expect([...os.routes.routes.values()]).toMatchObject([
      { destination: '0.0.0.0/0', dev: 'eth0' },
    ]);
    expect(os.routes.rules).toEqual([{ family: 4, priority: 100, table: 'main' }]);
    expect([...wg.socketFiles]).toEqual(['fytlivedddddd']);
  });

  it('leaves a held tunnel and its rules alone', async () => {
    wg.start('fytmainaaaaaa');
    await os.links.setUp('fytmainaaaaaa', true);
    await os.routes.add({
      destination: '0.0.0.0/0',
      dev: 'fytmainaaaaaa',
      table: FERRY_ROUTE_TABLE,
    });
    for (const r of fullTunnelRules()) await os.routes.addRule(r);
    await removeLeftovers(
      { links: os.links, routes: os.routes, wireguard: wg },
      holding('fytmainaaaaaa'),
    );
    expect(wg.device('fytmainaaaaaa').running).toBe(true);
    expect(os.routes.routes.size).toBe(1);
    expect(os.routes.rules).toEqual(fullTunnelRules());
  });

  it('tries everything and reports the first failure', async () => {
    os.links.addExisting('fytaaaaaaaaaa');
    os.links.addExisting('fytbbbbbbbbbb');
    for (const r of fullTunnelRules()) await os.routes.addRule(r);
    os.links.failNext('delete');
    await expect(
      removeLeftovers({ links: os.links, routes: os.routes, wireguard: wg }, none),
    ).rejects.toThrow(/injected/);
    expect([...os.links.links.keys()]).toEqual(['fytaaaaaaaaaa']);
    expect(os.routes.rules).toEqual([]);
  });
});

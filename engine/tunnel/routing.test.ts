// From plan to routing steps, and applying them on the fake OS: a full tunnel the way wg-quick
// makes one, a service tunnel's plain routes, and every step taken back on undo or failure.
import { beforeEach, describe, expect, it } from 'vitest';

import { FerryError } from '../errors.js';
import { createFakeOs, type FakeOs } from '../os/effects.fake.js';
import { FERRY_FWMARK, FERRY_ROUTE_TABLE } from './names.js';
import { testPlan } from './plans.fake.js';
import {
  AppliedRouting,
  ensureFullTunnelRules,
  fullTunnelRules,
  isOurRule,
  removeFullTunnelRules,
  routingPlan,
} from './routing.js';

const DEV = 'fytmain0a1b2c';

describe('the routing plan', () => {
  it('of a WireGuard full tunnel: address, MTU, up, and the default route in our table', () => {
    expect(routingPlan(testPlan('wireguard'), true)).toEqual({
      fullTunnel: true,
      steps: [
        { kind: 'address', prefix: '10.64.0.7/32' },
        { kind: 'mtu', mtu: 1420 },
        { kind: 'up' },
        { kind: 'route', route: { destination: '0.0.0.0/0', dev: DEV, table: FERRY_ROUTE_TABLE } },
      ],
    });
  });

  it('of a Ferry tunnel leaves the link to the data plane, which sets it up itself', () => {
    expect(routingPlan(testPlan('ferry'), false).steps).toEqual([
      { kind: 'route', route: { destination: '0.0.0.0/0', dev: DEV, table: FERRY_ROUTE_TABLE } },
    ]);
  });

  it('of a service tunnel: plain routes in main, IPv6 address only when a route needs it', () => {
    const only = testPlan('wireguard', {
      routes: { kind: 'only', cidrs: ['198.51.100.0/24', '2001:db8::/32'] },
    });
    expect(routingPlan(only, true)).toEqual({
      fullTunnel: false,
      steps: [
        { kind: 'address', prefix: '10.64.0.7/32' },
        { kind: 'address', prefix: 'fd66:6572:7279::7/128' },
        { kind: 'mtu', mtu: 1420 },
        { kind: 'up' },
        { kind: 'route', route: { destination: '198.51.100.0/24', dev: DEV, table: 'main' } },
        // A full tunnel's table sends everything but the LAN ranges into the full tunnel: the
        // service's IPv4 routes are there too, so that they win over its default route.
        {
          kind: 'route',
          route: { destination: '198.51.100.0/24', dev: DEV, table: FERRY_ROUTE_TABLE },
        },
        { kind: 'route', route: { destination: '2001:db8::/32', dev: DEV, table: 'main' } },
      ],
    });
  });

  it('refuses IPv6 destinations for Ferry, which carries IPv4 only', () => {
    const plan = testPlan('ferry', { routes: { kind: 'only', cidrs: ['2001:db8::/32'] } });
    expect(() => routingPlan(plan, false)).toThrow(FerryError);
  });

  it('lets only the LAN ranges follow main’s routes, then sends the unmarked into our table', () => {
    // Not wg-quick's `lookup main suppress_prefixlength 0` for every destination: with it, a
    // link's on-link route for a public prefix (a rogue /15 lease, TunnelCrack's LocalNet) wins
    // over the tunnel. Only the private, link-local ranges may follow main's specific routes.
    const lan = (to: string) => ({
      family: 4,
      priority: 32700,
      to,
      table: 'main',
      suppressPrefixLength: 0,
    });
    expect(fullTunnelRules()).toEqual([
      lan('10.0.0.0/8'),
      lan('172.16.0.0/12'),
      lan('192.168.0.0/16'),
      lan('169.254.0.0/16'),
      {
        family: 4,
        priority: 32701,
        table: FERRY_ROUTE_TABLE,
        fwmark: FERRY_FWMARK,
        notFwmark: true,
      },
    ]);
    for (const r of fullTunnelRules()) expect(isOurRule(r)).toBe(true);
    expect(
      isOurRule({ family: 4, priority: 32765, table: 51820, fwmark: 51820, notFwmark: true }),
    ).toBe(false);
    expect(isOurRule({ family: 4, priority: 32700, table: 'main' })).toBe(false);
    // An older version's rule for every destination is a leftover of ours (removed at start).
    expect(isOurRule({ family: 4, priority: 32700, table: 'main', suppressPrefixLength: 0 })).toBe(
      true,
    );
  });
});

describe('applying it', () => {
  let os: FakeOs;
  beforeEach(() => {
    os = createFakeOs();
    os.links.addExisting(DEV, 'tun');
  });

  it('configures the link and routes, and undo removes the routes', async () => {
    const plan = testPlan('wireguard', { routes: { kind: 'only', cidrs: ['198.51.100.0/24'] } });
    const applied = await AppliedRouting.apply(os, DEV, routingPlan(plan, true).steps);
    expect(os.links.links.get(DEV)).toMatchObject({
      up: true,
      mtu: 1420,
      addresses: ['10.64.0.7/32'],
    });
    expect([...os.routes.routes.values()]).toMatchObject([
      { destination: '198.51.100.0/24', dev: DEV, table: 'main' },
      { destination: '198.51.100.0/24', dev: DEV, table: FERRY_ROUTE_TABLE },
    ]);
    await applied.undo();
    expect(os.routes.routes.size).toBe(0);
    await applied.undo(); // idempotent
  });

  it('takes back what it made when a step fails, and rethrows', async () => {
    const plan = testPlan('wireguard', {
      routes: { kind: 'only', cidrs: ['198.51.100.0/24', '203.0.113.0/24'] },
    });
    await os.routes.add({ destination: '203.0.113.0/24', type: 'blackhole' });
    const e = await AppliedRouting.apply(os, DEV, routingPlan(plan, true).steps).catch(
      (x: unknown) => x,
    );
    expect((e as FerryError).code).toBe('os-command-failed');
    expect([...os.routes.routes.values()]).toMatchObject([
      { destination: '203.0.113.0/24', type: 'blackhole' },
    ]);
  });

  it('needs no route removal once the link is gone (the kernel dropped them)', async () => {
    const applied = await AppliedRouting.apply(
      os,
      DEV,
      routingPlan(testPlan('wireguard'), true).steps,
    );
    await os.links.delete(DEV);
    const before = os.journal.entries.length;
    await applied.undo();
    expect(os.journal.ops().slice(before)).toEqual(['links.get']);
  });

  it('retries an undo that failed', async () => {
    await os.links.setUp(DEV, true); // the data plane's link is up already
    const applied = await AppliedRouting.apply(
      os,
      DEV,
      routingPlan(testPlan('ferry'), false).steps,
    );
    os.routes.failNext('delete');
    await expect(applied.undo()).rejects.toThrow(FerryError);
    expect(os.routes.routes.size).toBe(1);
    await applied.undo();
    expect(os.routes.routes.size).toBe(0);
  });

  it('adds the shared rules once and removes them all', async () => {
    await ensureFullTunnelRules(os.routes);
    await ensureFullTunnelRules(os.routes);
    expect(os.routes.rules).toEqual(fullTunnelRules());
    await os.routes.addRule({ family: 4, priority: 100, table: 'main' });
    await removeFullTunnelRules(os.routes);
    expect(os.routes.rules).toEqual([{ family: 4, priority: 100, table: 'main' }]);
    await removeFullTunnelRules(os.routes);
  });

  it('replaces an older version’s rule for every destination with the LAN ranges’ rules', async () => {
    await os.routes.addRule({ family: 4, priority: 32700, table: 'main', suppressPrefixLength: 0 });
    await ensureFullTunnelRules(os.routes);
    expect(os.routes.rules).toEqual(fullTunnelRules());
  });
});

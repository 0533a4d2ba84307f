// The EngineApi contract's cases of the account and the catalog, as vitest cases: sign-in and
// devices, phones added up to the plan's limit, regions with their latency, rules, latency-check,
// services. engine-api.contract.ts runs them with the connection's and configuration's cases, on
// the real Engine and on FakeEngine.
import { expect, it } from 'vitest';

import { ApiError, localRoutes } from '../contracts/index.js';
import {
  codeOf,
  fieldRefusal,
  signedIn,
  type EngineUnderTest,
} from './testing/engine-api-contract-kit.js';
import { engineRefusal } from './testing/refusal.js';

export function accountContract(subject: () => EngineUnderTest): void {
  it('signs in as a new device, and out again', async () => {
    const t = subject();
    const number = await signedIn(t);
    expect(number).toMatch(/^\d{16}$/);
    expect(localRoutes.status.response.parse(t.engine.status())).toMatchObject({
      status: 'disconnected',
      signed_in: true,
      service_configured: true,
    });
    const account = localRoutes.account.response.parse(await t.engine.account());
    expect(account.account_number).toBe(number);
    expect(account.device.current).toBe(true);
    const { devices } = localRoutes.listDevices.response.parse(await t.engine.listDevices());
    expect(devices.map((d) => [d.id, d.current, d.status])).toEqual([
      [account.device.id, true, 'disconnected'],
    ]);
    expect(await t.engine.logout()).toEqual({ signed_in: false });
    expect(t.engine.status().signed_in).toBe(false);
    expect(await codeOf(t.engine.account())).toBe('not-signed-in');
  });

  it('lists the regions with their latency and rules, and keeps rules by name', async () => {
    const t = subject();
    await signedIn(t);
    const listed = localRoutes.listRegions.response.parse(await t.engine.listRegions());
    const asia = listed.regions.find((r) => r.id === 'asia-east');
    expect(asia).toMatchObject({ area: 'asia', allowed: true });
    expect(asia!.nodes_healthy).toBeGreaterThan(0);
    // Nothing measured yet: no latency; connected there, the tunnel's.
    expect(listed.regions.map((r) => r.latency)).toEqual(listed.regions.map(() => null));
    await t.engine.connect({ region: 'asia-east' });
    const connected = (await t.engine.listRegions()).regions;
    expect(connected.find((r) => r.id === 'asia-east')!.latency).toBe(t.engine.status().latency);
    await t.engine.disconnect();
    expect(listed.rules).toEqual([]);
    await t.engine.addRegionRule({ area: 'asia', strategy: 'least-load', name: 'work' });
    expect((await t.engine.listRegions()).rules).toEqual([
      { name: 'work', area: 'asia', strategy: 'least-load' },
    ]);
    expect(
      await codeOf(t.engine.addRegionRule({ area: 'asia', strategy: 'fallback', name: 'work' })),
    ).toBe('rule-exists');
    const area = await fieldRefusal(
      t.engine.addRegionRule({ area: 'atlantis', strategy: 'fallback' }),
      'area',
    );
    expect(area.errors?.[0]?.allowed).toContain('asia');
    await fieldRefusal(
      t.engine.addRegionRule({ area: 'asia', strategy: 'fallback', name: 'asia-east' }),
      'name',
    );
    await fieldRefusal(
      t.engine.addRegionRule({ area: 'asia', strategy: 'fallback', name: 'auto' }),
      'name',
    );
    await t.engine.removeRegionRule('work');
    expect((await t.engine.listRegions()).rules).toEqual([]);
    expect(await codeOf(t.engine.removeRegionRule('work'))).toBe('rule-not-found');
  });

  it('measures latency: every node with all, the current node only when connected', async () => {
    const t = subject();
    await signedIn(t);
    expect(await codeOf(t.engine.latencyCheck({ all: false, count: 1 }))).toBe('not-connected');
    const all = localRoutes.latencyCheck.response.parse(
      await t.engine.latencyCheck({ all: true, count: 2 }),
    );
    expect(all.duration_ms).toBeGreaterThanOrEqual(0);
    for (const r of all.results) expect(r.samples).toBeLessThanOrEqual(2);
    await t.engine.connect({ region: 'asia-east' });
    const current = localRoutes.latencyCheck.response.parse(
      await t.engine.latencyCheck({ all: false, count: 2 }),
    );
    const node = t.engine.status().node!.id;
    expect(current.results.every((r) => r.node_id === node)).toBe(true);
  });

  it('keeps services: the shipped ones stay, the user’s are added once and removed', async () => {
    const t = subject();
    const shipped = localRoutes.listServices.response.parse(await t.engine.listServices());
    expect(shipped.services.length).toBeGreaterThan(0);
    expect(shipped.services.every((s) => s.builtin)).toBe(true);
    const added = await t.engine.addService({
      name: 'office',
      cidrs: ['10.20.0.0/16'],
      domains: ['intranet.example'],
    });
    expect(localRoutes.addService.response.parse(added)).toMatchObject({
      name: 'office',
      builtin: false,
    });
    expect((await t.engine.listServices()).services.map((s) => s.name)).toContain('office');
    expect(
      await codeOf(t.engine.addService({ name: 'office', cidrs: ['10.0.0.0/8'], domains: [] })),
    ).toBe('service-exists');
    const builtin = shipped.services[0]!.name;
    expect(await codeOf(t.engine.addService({ name: builtin, cidrs: [], domains: [] }))).toBe(
      'service-exists',
    );
    await fieldRefusal(t.engine.removeService(builtin), 'name');
    await t.engine.removeService('office');
    expect(await codeOf(t.engine.removeService('office'))).toBe('service-not-found');
    expect(await t.engine.listServices()).toEqual(shipped);
  });

  it('renames and revokes devices, and refuses one the account does not have', async () => {
    const t = subject();
    await signedIn(t);
    const me = (await t.engine.account()).device;
    const renamed = localRoutes.renameDevice.response.parse(
      await t.engine.renameDevice(me.id, 'work laptop'),
    );
    expect(renamed).toMatchObject({ id: me.id, name: 'work laptop', current: true });
    expect((await t.engine.listDevices()).devices[0]).toMatchObject({ name: 'work laptop' });
    const missing = await engineRefusal(t.engine.renameDevice('no-such-device', 'x'));
    expect(missing).toBeInstanceOf(ApiError);
    expect(missing.code).toBe('not-found');
    await t.engine.revokeDevice(me.id);
    expect(t.engine.status().signed_in).toBe(false);
  });

  it('adds a phone with a key pair made here, up to the plan’s limit, and then names the devices', async () => {
    const t = subject();
    await signedIn(t);
    const { limit } = (await t.engine.account()).devices;
    const added = localRoutes.addDevice.response.parse(
      await t.engine.addDevice({
        name: 'phone',
        kind: 'phone',
        allow_lan: false,
        region: 'asia-east',
      }),
    );
    expect(added).toMatchObject({ region: 'asia-east', device: { name: 'phone', kind: 'phone' } });
    expect(added.config).toMatch(/^\[Interface\]\n/);
    expect(added.config).toMatch(/\nPrivateKey = [A-Za-z0-9+/]{43}=\n/);
    expect(added.config).toContain(`Address = ${added.device.tunnel_ipv4}/32`);
    expect(added.config).toMatch(/\n\[Peer\]\n/);
    expect((await t.engine.account()).devices.used).toBe(2);
    for (let n = 3; n <= limit; n++)
      await t.engine.addDevice({ name: `phone ${n}`, kind: 'phone', allow_lan: false });
    const full = await engineRefusal(
      t.engine.addDevice({ name: 'one more', kind: 'tablet', allow_lan: false }),
    );
    expect(full).toBeInstanceOf(ApiError);
    expect(full.code).toBe('device-limit');
    const named = (full as ApiError).problem?.['devices'] as { name: string }[];
    expect(named.map((d) => d.name)).toContain('phone');
    expect(named).toHaveLength(limit);
    expect((await t.engine.listDevices()).devices).toHaveLength(limit);
  });
}

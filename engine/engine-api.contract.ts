// What every EngineApi must do for the faces, as vitest cases: engine.contract.test.ts runs them on
// the real Engine (the control plane in process, fakes at the OS seams), engine.fake.test.ts on
// FakeEngine, so that the faces' tests on the fake hold for the engine they ship with. The real
// engine is the truth: where the two differ, the fake is wrong.
import { expect, it } from 'vitest';

import {
  ApiError,
  CLIENT_CONFIG_DEFAULTS,
  localRoutes,
  type LocalStatus,
} from '../contracts/index.js';
import type { EngineApi, EngineEvent } from './engine-api.js';
import { FerryError } from './errors.js';
import { engineRefusal } from './testing/refusal.js';

export interface EngineUnderTest {
  /** Started, with no configuration and no sign-in. */
  engine: EngineApi;
  /** A URL of the control plane as `init --endpoint` takes it (a path like /api/v1 included). */
  endpoint: string;
  /** The service as the configuration then holds it. */
  service: string;
}

/** The code of the refusal `p` ends with (a FerryError's or the control plane's). */
async function codeOf(p: Promise<unknown>): Promise<string> {
  return (await engineRefusal(p)).code;
}

/** A FerryError config-invalid naming `field` among its errors. */
async function fieldRefusal(p: Promise<unknown>, field: string): Promise<FerryError> {
  const e = await engineRefusal(p);
  expect(e).toBeInstanceOf(FerryError);
  expect(e.code).toBe('config-invalid');
  expect((e as FerryError).errors?.map((x) => x.field)).toContain(field);
  return e as FerryError;
}

const statusOf = (e: EngineEvent) => (e.type === 'status' ? e.status.status : e.type);

async function signedIn(t: EngineUnderTest): Promise<string> {
  await t.engine.init({ endpoint: t.endpoint });
  return (await t.engine.createAccount({})).account_number;
}

export function engineApiContract(subject: () => EngineUnderTest): void {
  it('says what is missing before it can connect: the service, then the sign-in', async () => {
    const t = subject();
    const first = localRoutes.status.response.parse(t.engine.status());
    expect(first).toMatchObject({
      status: 'disconnected',
      signed_in: false,
      service_configured: false,
      latency: null,
      node: null,
      error: null,
      // The kill switch is on by default: armed, holding from the next connect.
      protection: { kill_switch: 'armed', lockdown: false, dns: [] },
    });
    expect(await codeOf(t.engine.connect({}))).toBe('service-not-configured');
    expect(await codeOf(t.engine.account())).toBe('service-not-configured');
    const init = await t.engine.init({ endpoint: t.endpoint, protocol: 'ferry' });
    expect(init).toMatchObject({
      changed: ['service', 'protocol'],
      effect: 'saved',
      config: { service: t.service, protocol: 'ferry' },
    });
    expect(t.engine.status()).toMatchObject({ signed_in: false, service_configured: true });
    for (const call of [
      () => t.engine.connect({}),
      () => t.engine.account(),
      () => t.engine.listDevices(),
      () => t.engine.listRegions(),
      () => t.engine.addRegionRule({ area: 'asia', strategy: 'lowest-latency' }),
      () => t.engine.latencyCheck({ all: true, count: 1 }),
    ])
      expect(await codeOf(call())).toBe('not-signed-in');
    expect(t.engine.status().status).toBe('disconnected');
  });

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

  it('connects, with latency, telling every status change in order, and disconnects', async () => {
    const t = subject();
    await signedIn(t);
    const events: EngineEvent[] = [];
    const stop = t.engine.subscribe((e) => events.push(e));
    const answer = localRoutes.connect.response.parse(
      await t.engine.connect({ region: 'asia-east', protocol: 'wireguard' }),
    );
    expect(answer).toMatchObject({
      status: 'connected',
      region: 'asia-east',
      node: { region: 'asia-east' },
      protocol: 'wireguard',
      cipher: 'ChaCha20-Poly1305',
      transport: 'udp',
      error: null,
      exit_ip: { before: expect.any(String), after: expect.any(String) },
      routing: { strategy: expect.any(String), reasons: expect.any(Array) },
    });
    expect(answer.latency).toMatch(/^\d+(\.\d)?ms$/);
    expect(answer.interface).toEqual(expect.any(String));
    const { exit_ip: _exit, routing: _routing, ...status } = answer;
    expect(t.engine.status()).toEqual(status);
    expect(events.filter((e) => e.type === 'status').map(statusOf)).toEqual([
      'connecting',
      'connected',
    ]);
    // Connecting already says where to and how; the kill switch holds once connected.
    expect(events[0]).toMatchObject({
      status: {
        status: 'connecting',
        region: 'asia-east',
        mode: 'secure',
        node: null,
        protection: { kill_switch: 'armed' },
      },
    });
    expect(answer.protection).toMatchObject({ kill_switch: 'active', dns: [expect.any(String)] });
    const last = events.filter((e) => e.type === 'status').at(-1) as { status: LocalStatus };
    expect(last.status).toEqual(t.engine.status());

    events.length = 0;
    const after = localRoutes.disconnect.response.parse(await t.engine.disconnect());
    expect(after).toMatchObject({
      status: 'disconnected',
      node: null,
      latency: null,
      region: null,
    });
    expect(t.engine.status()).toEqual(after);
    expect(events.map(statusOf)).toEqual(['disconnecting', 'disconnected']);
    // Disconnecting when disconnected changes nothing and tells nothing.
    events.length = 0;
    expect((await t.engine.disconnect()).status).toBe('disconnected');
    expect(events).toEqual([]);
    stop();
    await t.engine.connect({ region: 'asia-east' });
    expect(events).toEqual([]);
  });

  it('gives the latency as a number beside its text, and the tunnel’s history, until disconnected', async () => {
    const t = subject();
    await signedIn(t);
    const answer = await t.engine.connect({ region: 'asia-east' });
    expect(answer.latency).toBe(`${answer.latency_ms}ms`);
    expect(answer.latency_history).toEqual([answer.latency_ms]);
    expect(await t.engine.disconnect()).toMatchObject({ latency_ms: null, latency_history: [] });
  });

  it('connects by a region rule to a region of its area, and refuses a region there is not', async () => {
    const t = subject();
    await signedIn(t);
    const rule = await t.engine.addRegionRule({ area: 'asia', strategy: 'lowest-latency' });
    expect(localRoutes.addRegionRule.response.parse(rule)).toEqual({
      name: 'asia',
      area: 'asia',
      strategy: 'lowest-latency',
    });
    const answer = await t.engine.connect({ region: 'asia' });
    expect(answer).toMatchObject({ status: 'connected', region: 'asia-east' });
    await t.engine.disconnect();
    const refused = await engineRefusal(t.engine.connect({ region: 'atlantis' }));
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused.code).toBe('validation-failed');
    expect((refused as ApiError).errors?.map((e) => e.field)).toEqual(['region']);
    // The refusal leaves the engine in error, saying why; the kill switch holds there.
    expect(t.engine.status()).toMatchObject({
      status: 'error',
      region: 'atlantis',
      node: null,
      error: { code: 'validation-failed', message: expect.stringContaining('atlantis') },
      protection: { kill_switch: 'active' },
    });
    const closed = (await t.engine.listRegions()).regions.find((r) => !r.allowed)!;
    expect(await codeOf(t.engine.connect({ region: closed.id }))).toBe('region-not-in-plan');
    expect(t.engine.status()).toMatchObject({
      status: 'error',
      error: { code: 'region-not-in-plan' },
    });
    await t.engine.disconnect();
    expect(t.engine.status()).toMatchObject({ status: 'disconnected', error: null });
  });

  it('keeps its configuration, answering with what changed and what it did', async () => {
    const t = subject();
    const config = localRoutes.getConfig.response.parse(await t.engine.getConfig());
    expect(config).toEqual(CLIENT_CONFIG_DEFAULTS);
    expect(config).toMatchObject({ service: null, protocol: 'wireguard', kill_switch: true });
    const set = await t.engine.setConfigKey('Kill-Switch', 'off');
    expect(set).toMatchObject({ changed: ['kill_switch'], effect: 'saved' });
    expect(set.config.kill_switch).toBe(false);
    const again = await t.engine.setConfigKey('kill_switch', 'no');
    expect(again).toMatchObject({ changed: [], effect: 'saved' });
    const patch = await t.engine.patchConfig({ protocol: 'ferry', mtu: 1400 });
    expect(patch).toMatchObject({ changed: ['protocol', 'mtu'], effect: 'saved' });
    expect(await t.engine.getConfig()).toEqual(patch.config);
    expect(patch.config).toMatchObject({ kill_switch: false, protocol: 'ferry', mtu: 1400 });
  });

  it('refuses a bad setting with config-invalid naming the field, and keeps the old one', async () => {
    const t = subject();
    const before = await t.engine.getConfig();
    await fieldRefusal(t.engine.setConfigKey('protocol', 'carrier-pigeon'), 'protocol');
    await fieldRefusal(t.engine.setConfigKey('mtu', '9000'), 'mtu');
    expect((await engineRefusal(t.engine.setConfigKey('colour', 'blue'))).code).toBe(
      'config-invalid',
    );
    await fieldRefusal(t.engine.patchConfig({ mtu: 99 } as never), 'mtu');
    await fieldRefusal(t.engine.patchConfig({ mtu: 1400, protocol: 'x' } as never), 'protocol');
    expect(await t.engine.getConfig()).toEqual(before);
  });

  it('applies a changed setting to a live tunnel: reconnected, applied in place, or saved', async () => {
    const t = subject();
    await signedIn(t);
    await t.engine.connect({ region: 'asia-east' });
    const protocol = await t.engine.setConfigKey('protocol', 'ferry');
    expect(protocol).toMatchObject({ changed: ['protocol'], effect: 'reconnected' });
    expect(t.engine.status()).toMatchObject({
      status: 'connected',
      protocol: 'ferry',
      region: 'asia-east',
    });
    expect(t.engine.status().protection.kill_switch).toBe('active');
    const off = await t.engine.patchConfig({ kill_switch: false });
    expect(off).toMatchObject({ changed: ['kill_switch'], effect: 'applied' });
    expect(t.engine.status().protection.kill_switch).toBe('off');
    const on = await t.engine.setConfigKey('kill_switch', 'on');
    expect(on).toMatchObject({ changed: ['kill_switch'], effect: 'applied' });
    expect(t.engine.status().protection.kill_switch).toBe('active');
    const ui = await t.engine.setConfigKey('ui', 'graphical');
    expect(ui).toMatchObject({ changed: ['ui'], effect: 'saved' });
    // A connect's own option gives way when the user names the setting, even unchanged.
    await t.engine.connect({ region: 'asia-east', protocol: 'wireguard' });
    const named = await t.engine.setConfigKey('protocol', 'ferry');
    expect(named).toMatchObject({ changed: [], effect: 'reconnected' });
    expect(t.engine.status().protocol).toBe('ferry');
    await t.engine.disconnect();
    // Disconnected, a live setting is saved for the next connect; lockdown holds at once.
    expect(await t.engine.setConfigKey('allow_lan', 'on')).toMatchObject({ effect: 'saved' });
    expect(await t.engine.setConfigKey('lockdown', 'on')).toMatchObject({ effect: 'applied' });
    expect(t.engine.status().protection.lockdown).toBe(true);
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

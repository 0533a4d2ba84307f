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
import { accountContract } from './engine-api-account.contract.js';
import type { EngineEvent } from './engine-api.js';
import {
  codeOf,
  fieldRefusal,
  signedIn,
  type EngineUnderTest,
} from './testing/engine-api-contract-kit.js';
import { engineRefusal } from './testing/refusal.js';

export type { EngineUnderTest } from './testing/engine-api-contract-kit.js';

const statusOf = (e: EngineEvent) => (e.type === 'status' ? e.status.status : e.type);

export function engineApiContract(subject: () => EngineUnderTest): void {
  // The account, devices, regions, latency and services (engine-api-account.contract.ts).
  accountContract(subject);

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
    // Connecting already says where to and how; it is said once its policy blocks.
    expect(events[0]).toMatchObject({
      status: {
        status: 'connecting',
        region: 'asia-east',
        mode: 'secure',
        node: null,
        protection: { kill_switch: 'active' },
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
}

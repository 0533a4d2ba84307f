// Engine.diagnose against the real control plane in process, with the OS and tunnel fakes and
// fake host probes: what the engine hands each check (its state, its control client, the guard
// and the table in force, the tunnel, the exit address), the probes let through a kill switch
// that holds and the TCP one taken back, and the node a connect would pick.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  CLIENT_CONFIG_DEFAULTS,
  idleStatus,
  type DiagnosticsReport,
  type FetchLike,
  type Node,
} from '../../contracts/index.js';
import { injectFetch } from '../../server/testing/inject-fetch.js';
import { startControlPlane } from '../../server/testing/control-plane-harness.js';
import { FAKE_REGIONS } from '../engine.fake.js';
import { FerryError } from '../errors.js';
import { EngineFixture } from '../testing/engine-fixture.js';
import { nodeToProbe, type DiagnoseSources } from './engine-deps.js';
import type { HostProbes } from './host-probes.js';

/** The host's probes for the current test: each records what it was asked. */
const asked: string[] = [];
let host: HostProbes;
const probes: HostProbes = {
  connectTcp: (...a) => host.connectTcp(...a),
  lookupIpv4: (...a) => host.lookupIpv4(...a),
  ipv6RouteOutside: (...a) => host.ipv6RouteOutside(...a),
  ping: (...a) => host.ping(...a),
  probeUdp: (...a) => host.probeUdp(...a),
};

const fx = new EngineFixture({
  prefix: 'ferry-engine-diagnose-',
  startControlPlane: () =>
    startControlPlane('sqlite', {
      dnsLeakZone: 'whoami.ferry-test',
      ipv6Probe: '[2001:db8:53::2]:443',
    }),
  fetchOf: (h) => injectFetch(h.plane.app),
  engine: { diagnoseProbes: probes },
});
beforeAll(() => fx.startControlPlane());
afterAll(() => fx.closeControlPlane());
beforeEach(async () => {
  asked.length = 0;
  host = {
    connectTcp: async (address, port) => {
      asked.push(`tcp ${address}:${port}`);
      return 'connected';
    },
    lookupIpv4: async (name) => {
      asked.push(`lookup ${name}`);
      return [];
    },
    ipv6RouteOutside: async () => false,
    ping: async (iface, gateway, payload) => {
      asked.push(`ping ${iface} ${gateway} ${payload}`);
      return true;
    },
    probeUdp: async () => 12,
  };
  await fx.start();
});
afterEach(() => fx.stop());

const check = (r: DiagnosticsReport, id: string) => r.checks.find((c) => c.id === id)!;

describe('Engine.diagnose', () => {
  it('on a fresh engine: no control plane, so nothing to ask it, the kill switch armed', async () => {
    const r = await fx.engine.diagnose();
    expect(check(r, 'engine')).toMatchObject({ verdict: 'ok', summary: 'running (disconnected)' });
    expect(check(r, 'control-plane')).toMatchObject({
      verdict: 'problem',
      fix: 'netcli init --endpoint <url>',
    });
    expect(check(r, 'node-udp')).toMatchObject({
      verdict: 'skipped',
      summary: 'no control plane is configured',
    });
    expect(check(r, 'kill-switch')).toMatchObject({
      verdict: 'ok',
      summary: 'armed: holds from the next connect',
    });
    expect(r.problems).toBe(1);
    expect(asked).toEqual([]);
  });

  it('signed in and disconnected: the control plane and its clock, the node a connect would pick', async () => {
    await fx.signIn();
    const r = await fx.engine.diagnose();
    expect(check(r, 'control-plane')).toMatchObject({ verdict: 'ok' });
    expect(check(r, 'control-plane').summary).toMatch(
      /^control-plane\.test answers in \d+ ms \(version /,
    );
    expect(check(r, 'clock')).toMatchObject({ verdict: 'ok' });
    // The fixture's nodes run no probe responder; their Ferry port takes a TCP connect.
    expect(check(r, 'node-udp')).toMatchObject({ verdict: 'skipped' });
    expect(check(r, 'node-tcp')).toMatchObject({ verdict: 'ok' });
    expect(asked).toEqual(['tcp 192.0.2.10:51821']);
    for (const id of ['dns-leak', 'ipv6-leak', 'mtu']) expect(check(r, id).verdict).toBe('skipped');
  });

  it('in error under the kill switch: lets the TCP probe out for the probe only, and sees the table', async () => {
    await fx.signIn();
    fx.tunnels.failNext = new FerryError('tunnel-failed', 'wireguard-go stopped');
    await fx.engine.connect({}).catch(() => undefined);
    expect(fx.engine.status().status).toBe('error');
    const tcpLetOut = () =>
      fx.engine.guard.policy?.probes.some((p) => p.protocol === 'tcp' && p.port === 51821) ?? false;
    let whileProbing: boolean | null = null;
    host.connectTcp = async () => {
      whileProbing = tcpLetOut();
      return 'timeout';
    };
    const r = await fx.engine.diagnose();
    expect(whileProbing).toBe(true);
    expect(tcpLetOut()).toBe(false);
    expect(fx.engine.guard.policy?.block).toBe(true);
    expect(check(r, 'node-tcp')).toMatchObject({ verdict: 'warning' });
    expect(check(r, 'kill-switch')).toMatchObject({ verdict: 'ok' });
    expect(check(r, 'kill-switch').summary).toMatch(/^in force: \d+ rules$/);
  });

  it('connected: the tunnel’s evidence, the leak checks through the published zone and probe, the MTU', async () => {
    await fx.signIn();
    const answer = await fx.engine.connect({ region: 'asia-east' });
    host.lookupIpv4 = async (name) => {
      asked.push(`lookup ${name.replace(/^[0-9a-f]{12}\./, '<label>.')}`);
      return [answer.exit_ip.after!];
    };
    host.ipv6RouteOutside = async (address) => {
      asked.push(`route ${address}`);
      return true;
    };
    host.connectTcp = async (address, port) => {
      asked.push(`tcp ${address}:${port}`);
      return 'blocked';
    };
    host.ping = async (_iface, _gateway, payload) => payload <= 1252;
    const r = await fx.engine.diagnose();
    expect(check(r, 'engine').summary).toMatch(/^running \(connected to /);
    expect(check(r, 'node-udp')).toMatchObject({ verdict: 'ok' });
    expect(check(r, 'node-tcp')).toMatchObject({ verdict: 'skipped' });
    expect(check(r, 'dns-leak')).toMatchObject({ verdict: 'ok' });
    expect(check(r, 'ipv6-leak')).toMatchObject({ verdict: 'ok' });
    expect(asked.sort()).toEqual([
      'lookup <label>.whoami.ferry-test',
      'route 2001:db8:53::2',
      'tcp 2001:db8:53::2:443',
    ]);
    expect(check(r, 'mtu')).toMatchObject({
      verdict: 'problem',
      fix: 'set a smaller MTU: netcli config set mtu 1280',
    });
    expect(check(r, 'kill-switch').verdict).toBe('ok');

    host.lookupIpv4 = async () => ['203.0.113.53'];
    const leaking = await fx.engine.diagnose();
    expect(check(leaking, 'dns-leak')).toMatchObject({
      verdict: 'problem',
      summary: 'DNS queries leave outside the tunnel (they reach 203.0.113.53)',
    });
  });

  it('pings through the tunnel’s interface to its gateway', async () => {
    await fx.signIn();
    const answer = await fx.engine.connect({ region: 'asia-east' });
    await fx.engine.diagnose();
    expect(asked.filter((a) => a.startsWith('ping')).sort()).toContain(
      `ping ${answer.interface} 10.64.0.1 576`,
    );
  });
});

describe('the node a connect would pick', () => {
  const node = (id: string, region: string, healthy = true): Node => ({
    id,
    region,
    endpoint_host: `${id}.example`,
    wireguard_port: 51820,
    ferry_port: 51821,
    wireguard_public_key: null,
    ferry_public_key: null,
    load: 0.1,
    capacity_mbps: 1000,
    healthy,
    probe: null,
  });
  const nodes = [
    node('zrh-1', 'global'),
    node('hk-1', 'asia-east'),
    node('hk-2', 'asia-east', false),
    node('ams-1', 'europe-west'),
  ];
  const fetch: FetchLike = async (url) =>
    new Response(JSON.stringify(url.includes('/regions') ? { regions: FAKE_REGIONS } : { nodes }), {
      status: 200,
      headers: { 'content-type': 'application/json' },
    });
  const sources = (latencies: Record<string, number>): DiagnoseSources =>
    ({
      status: idleStatus(true, true),
      config: { ...CLIENT_CONFIG_DEFAULTS, service: 'https://ferry.example' },
      fetch,
      token: async () => 'ferry_d_test',
      latencies,
      resolveHost: async (h: string) => [h === 'hk-1.example' ? '192.0.2.11' : '192.0.2.12'],
    }) as unknown as DiagnoseSources;
  const signal = new AbortController().signal;

  it('is the healthy allowed node measured fastest', async () => {
    expect(
      await nodeToProbe(sources({ 'zrh-1': 40, 'hk-1': 12, 'hk-2': 1, 'ams-1': 2 }), signal),
    ).toMatchObject({ id: 'hk-1', address: '192.0.2.11', ferryPort: 51821 });
  });

  it('is the first one when none was measured', async () => {
    expect(await nodeToProbe(sources({}), signal)).toMatchObject({ id: 'zrh-1' });
  });

  it('is none, saying why, when the device is not signed in', async () => {
    const s = { ...sources({}), status: idleStatus(false, true) };
    expect(await nodeToProbe(s, signal)).toEqual({
      none: 'this device is not signed in: no node list to pick from',
      finding: 'signed-out',
    });
  });
});

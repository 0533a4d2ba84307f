// The engine's protections against the real control plane (in process) with fakes of the OS and
// the tunnels: the kill switch held from the start of a connect to an explicit disconnect (and
// across a crash), lockdown, the resolver set and put back, failover to another node of the
// region, and obfuscation's fallback to Ferry over TCP.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { injectFetch } from '../server/testing/inject-fetch.js';
import { startControlPlane } from '../server/testing/control-plane-harness.js';
import type { NetworkIdentity } from '../platform/os/network-identity.js';
import { FerryError } from './errors.js';
import { PROTECTION_TABLE } from './protection/firewall-policy.js';
import { isSplitRule } from './protection/protection.js';
import { EngineFixture, TEST_SERVICE_ADDRESS } from './testing/engine-fixture.js';
import { engineRefusal } from './testing/refusal.js';

/** The network the host is on (the transport autopilot's memory is per network). */
let network: NetworkIdentity | null = { gatewayMac: 'aa:bb:cc:00:11:22', prefix: '192.168.1.0/24' };
const fx = new EngineFixture({
  prefix: 'ferry-engine-protection-',
  startControlPlane: () => startControlPlane('sqlite'),
  fetchOf: (h) => injectFetch(h.plane.app),
  engine: {
    recovery: { backoffMs: [0, 50] },
    networkIdentity: { read: async () => network },
  },
});
beforeAll(() => fx.startControlPlane());
afterAll(() => fx.closeControlPlane());
beforeEach(() => fx.start());
afterEach(() => fx.stop());

const table = () => fx.os.firewall.table(PROTECTION_TABLE);
const policy = () => fx.engine.guard.policy;

/** Waits (bounded) until `check` holds. */
async function until(what: string, check: () => boolean, ms = 3_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('the kill switch', () => {
  it('holds from the start of a connect to an explicit disconnect, and only then goes', async () => {
    await fx.signIn();
    expect(table()).toBeUndefined();
    const release = fx.tunnels.holdNext();
    const connecting = fx.engine.connect({ region: 'asia-east' });
    await fx.tunnels.waitForPending();
    // Connecting: everything blocked but the control plane and the node, for the tunnel's socket.
    expect(policy()).toMatchObject({
      block: true,
      blockIpv6: true,
      controlPlane: [{ address: TEST_SERVICE_ADDRESS, port: 443, protocol: 'tcp' }],
      dns: [],
    });
    const plan = fx.tunnels.plans[0]!;
    expect(policy()!.nodes).toContainEqual({
      address: plan.answer.node.endpoint_host,
      port: plan.answer.node.wireguard_port,
      protocol: 'udp',
    });
    expect(fx.os.resolver.servers).toBeNull();
    release();
    const answer = await connecting;
    expect(answer.status).toBe('connected');
    // Connected: DNS only to the node's resolver, which the system now uses through the tunnel.
    expect(policy()).toMatchObject({ block: true, dns: ['10.64.0.1'] });
    expect(fx.os.resolver).toMatchObject({
      servers: ['10.64.0.1'],
      interfaceName: answer.interface,
    });
    await fx.engine.disconnect();
    expect(table()).toBeUndefined();
    expect(fx.os.resolver.servers).toBeNull();
    expect((await fx.os.routes.listRules(4)).filter(isSplitRule)).toEqual([]);
  });

  it('says connecting or reconnecting only while that state’s policy blocks', async () => {
    await fx.signIn();
    const seen: { status: string; blocks: boolean }[] = [];
    const stop = fx.engine.subscribe((e) => {
      if (e.type === 'status')
        seen.push({ status: e.status.status, blocks: policy()?.block === true });
    });
    try {
      await fx.engine.connect({ region: 'asia-east' });
      await fx.engine.connect({ region: 'global' });
    } finally {
      stop();
    }
    const said = seen.filter((s) => s.status === 'connecting' || s.status === 'reconnecting');
    expect(said.map((s) => s.status)).toEqual(['connecting', 'reconnecting']);
    expect(said.every((s) => s.blocks)).toBe(true);
  });

  it('keeps blocking after a failed connect, until the user disconnects', async () => {
    await fx.signIn();
    fx.tunnels.failNext = new FerryError('tunnel-failed', 'wireguard-go stopped');
    expect((await engineRefusal(fx.engine.connect({}))).code).toBe('tunnel-failed');
    expect(fx.engine.status().status).toBe('error');
    expect(policy()).toMatchObject({ block: true, nodes: [], dns: [] });
    expect(table()).toBeDefined();
    await fx.engine.disconnect();
    expect(table()).toBeUndefined();
  });

  it('without the kill switch: a failed connect leaves nothing, a tunnel blocks only IPv6', async () => {
    await fx.signIn();
    await fx.engine.setConfigKey('kill_switch', 'off');
    fx.tunnels.failNext = new FerryError('tunnel-failed', 'wireguard-go stopped');
    await engineRefusal(fx.engine.connect({}));
    expect(table()).toBeUndefined();
    await fx.engine.connect({});
    expect(policy()).toMatchObject({ block: false, blockIpv6: true });
    await fx.engine.disconnect();
    expect(table()).toBeUndefined();
  });

  it('follows kill_switch and allow_lan at once while connected, without a new session', async () => {
    await fx.signIn();
    await fx.engine.connect({});
    const lan = await fx.engine.setConfigKey('allow_lan', 'on');
    expect(lan.effect).toBe('applied');
    expect(policy()!.lan).not.toBeNull();
    const off = await fx.engine.setConfigKey('kill_switch', 'off');
    expect(off.effect).toBe('applied');
    expect(policy()).toMatchObject({ block: false });
    expect(fx.tunnels.plans).toHaveLength(1);
  });

  it('with lockdown, stays after a disconnect, letting out only the control plane', async () => {
    await fx.signIn();
    await fx.engine.setConfigKey('lockdown', 'on');
    // Lockdown holds at once, connected or not.
    expect(policy()).toMatchObject({ block: true, nodes: [] });
    await fx.engine.connect({});
    await fx.engine.disconnect();
    expect(policy()).toMatchObject({
      block: true,
      nodes: [],
      controlPlane: [{ address: TEST_SERVICE_ADDRESS, port: 443, protocol: 'tcp' }],
    });
    expect(fx.os.resolver.servers).toBeNull();
    await fx.engine.setConfigKey('lockdown', 'off');
    expect(table()).toBeUndefined();
  });

  it('holds across a crash: the next start reconnects, and a disconnect then opens up', async () => {
    await fx.signIn();
    await fx.engine.connect({ protocol: 'ferry' });
    const applied = fx.os.journal.entries.length;
    const engine = await fx.restartAfterCrash();
    // The kernel kept the table; the new engine never removed it on its way back.
    await until('the reconnect after the crash', () => engine.status().status === 'connected');
    expect(
      fx.os.journal.entries.slice(applied).some((e) => e.seam === 'firewall' && e.op === 'remove'),
    ).toBe(false);
    expect(table()).toBeDefined();
    expect(fx.tunnels.plans.at(-1)!.answer.protocol).toBe('ferry');
    await engine.disconnect();
    expect(table()).toBeUndefined();
    expect(fx.os.resolver.servers).toBeNull();
    // Disconnected on purpose: the next start stays disconnected.
    const again = await fx.restartAfterCrash();
    await new Promise((r) => setTimeout(r, 50));
    expect(again.status().status).toBe('disconnected');
  });

  it('puts the resolver back at the next start when a crash left it and no reconnect is due', async () => {
    await fx.signIn();
    await fx.os.resolver.set(['10.64.0.1'], 'fytmain0a1b2c');
    await fx.restartAfterCrash();
    expect(fx.os.resolver.servers).toBeNull();
    expect(table()).toBeUndefined();
  });
});

describe('failover', () => {
  it('moves to another node of the region when the node goes silent, telling both', async () => {
    await fx.signIn();
    const second = (await fx.controlPlane.addHealthyNode('asia-east', 0.9)) as { id: string };
    await fx.engine.connect({ region: 'asia-east' });
    const first = fx.tunnels.last();
    const firstNode = first.plan.answer.node.id;
    expect(firstNode).not.toBe(second.id);
    first.lose();
    expect(fx.engine.status().status).toBe('reconnecting');
    expect(policy()).toMatchObject({ block: true });
    await until('the failover', () => fx.engine.status().status === 'connected');
    const now = fx.tunnels.last();
    expect(now.plan.answer.node.id).toBe(second.id);
    expect(first.closed).toBe(true);
    const failover = fx.engine.status().notices.find((n) => n.code === 'failover');
    expect(failover?.message).toContain(firstNode);
    expect(failover?.message).toContain(second.id);
  });

  it('keeps trying while every node is silent, blocking, and recovers when one answers', async () => {
    await fx.signIn();
    await fx.engine.connect({ region: 'global' });
    fx.tunnels.refuse = () => new FerryError('node-unreachable', 'the node did not answer');
    fx.tunnels.last().lose();
    await until('two failed attempts', () => fx.tunnels.plans.length >= 3);
    expect(fx.engine.status().status).toBe('reconnecting');
    expect(policy()).toMatchObject({ block: true });
    fx.tunnels.refuse = null;
    await until('the recovery', () => fx.engine.status().status === 'connected');
  });

  it('stops when the user disconnects', async () => {
    await fx.signIn();
    await fx.engine.connect({});
    fx.tunnels.refuse = () => new FerryError('node-unreachable', 'the node did not answer');
    fx.tunnels.last().lose();
    await fx.engine.disconnect();
    const plans = fx.tunnels.plans.length;
    await new Promise((r) => setTimeout(r, 200));
    expect(fx.tunnels.plans.length).toBe(plans);
    expect(fx.engine.status().status).toBe('disconnected');
    expect(table()).toBeUndefined();
  });
});

describe('obfuscation', () => {
  const silentOverUdp = () => {
    fx.tunnels.refuse = (plan) =>
      plan.transport === 'tcp'
        ? null
        : new FerryError('node-unreachable', 'the node did not answer');
  };

  it('auto: Ferry goes over TCP when UDP gets no answer, with a notice', async () => {
    await fx.signIn();
    silentOverUdp();
    const answer = await fx.engine.connect({ protocol: 'ferry' });
    expect(answer).toMatchObject({ status: 'connected', protocol: 'ferry', transport: 'tcp' });
    expect(answer.notices.map((n) => n.code)).toContain('udp-blocked');
    // One session: UDP raced beside TCP (the nodes here serve no TLS), TCP's answer won.
    expect(fx.tunnels.plans.map((p) => `${p.transport}${p.raceUdp ? '+udp' : ''}`)).toEqual([
      'tcp+udp',
    ]);
    // Both were let out at once, for the tunnel's sockets only.
    const port = fx.tunnels.plans[0]!.answer.node.ferry_port;
    expect(policy()!.nodes.map((n) => `${n.protocol}:${n.port}`)).toEqual([
      `udp:${port}`,
      `tcp:${port}`,
    ]);
  });

  it('auto: WireGuard becomes Ferry over TCP, and the protocol setting stays', async () => {
    await fx.signIn();
    silentOverUdp();
    const answer = await fx.engine.connect({});
    expect(answer).toMatchObject({ protocol: 'ferry', transport: 'tcp' });
    expect(answer.notices.find((n) => n.code === 'udp-blocked')?.message).toMatch(/WireGuard/);
    expect((await fx.engine.getConfig()).protocol).toBe('wireguard');
  });

  it('off: no fallback; on: TCP from the start', async () => {
    await fx.signIn();
    silentOverUdp();
    await fx.engine.setConfigKey('obfuscation', 'off');
    expect((await engineRefusal(fx.engine.connect({ protocol: 'ferry' }))).code).toBe(
      'node-unreachable',
    );
    await fx.engine.setConfigKey('obfuscation', 'on');
    const answer = await fx.engine.connect({ protocol: 'ferry' });
    expect(answer.transport).toBe('tcp');
    expect(fx.tunnels.plans.at(-1)!.transport).toBe('tcp');
  });

  it('auto says why the tunnel runs over its transport, in the status too', async () => {
    await fx.signIn();
    await fx.engine.connect({ protocol: 'ferry' });
    expect(fx.engine.status()).toMatchObject({
      transport: 'udp',
      transport_reason: { code: 'first-choice', blocked: [] },
    });
    await fx.engine.disconnect();
    expect(fx.engine.status()).toMatchObject({ transport: null, transport_reason: null });
    silentOverUdp();
    await fx.engine.connect({ protocol: 'ferry' });
    expect(fx.engine.status().transport_reason).toEqual({
      code: 'fallback',
      blocked: [{ transport: 'udp', blockage: 'udp-unanswered' }],
      message: 'UDP looks blocked on this network: using TCP',
    });
  });

  it('auto remembers per network: the next connect there starts with what got through', async () => {
    await fx.signIn();
    silentOverUdp();
    await fx.engine.connect({});
    expect(fx.tunnels.plans.map((p) => `${p.answer.protocol}/${p.transport}`)).toEqual([
      'wireguard/udp',
      'ferry/tcp',
    ]);
    await fx.engine.disconnect();
    fx.tunnels.plans.length = 0;
    const again = await fx.engine.connect({});
    // Ferry asked for at once (WireGuard's answer would not be used), TCP first.
    expect(fx.tunnels.plans.map((p) => `${p.answer.protocol}/${p.transport}`)).toEqual([
      'ferry/tcp',
    ]);
    expect(again.transport_reason).toMatchObject({ code: 'remembered' });
    expect(again.notices.find((n) => n.code === 'transport-remembered')?.message).toMatch(
      /^TCP worked on this network before: using it; WireGuard has no TCP transport.*protocol setting stays wireguard$/,
    );
    expect((await fx.engine.getConfig()).protocol).toBe('wireguard');
    await fx.engine.disconnect();
    // Another network: nothing known there, UDP first again.
    network = { gatewayMac: 'de:ad:be:ef:00:01', prefix: '10.1.0.0/16' };
    try {
      fx.tunnels.plans.length = 0;
      fx.tunnels.refuse = null;
      expect((await fx.engine.connect({})).transport).toBe('udp');
      expect(fx.tunnels.plans.map((p) => p.transport)).toEqual(['udp']);
    } finally {
      network = { gatewayMac: 'aa:bb:cc:00:11:22', prefix: '192.168.1.0/24' };
    }
  });

  it('auto on a network whose remembered transport is blocked now: falls back and remembers anew', async () => {
    await fx.signIn();
    silentOverUdp();
    await fx.engine.connect({ protocol: 'ferry' });
    await fx.engine.disconnect();
    // The network's censor changed: TCP is silenced now, UDP gets through.
    fx.tunnels.refuse = (plan) =>
      plan.transport === 'tcp' ? new FerryError('node-unreachable', 'no answer') : null;
    fx.tunnels.plans.length = 0;
    const answer = await fx.engine.connect({ protocol: 'ferry' });
    expect(fx.tunnels.plans.map((p) => p.transport)).toEqual(['tcp', 'udp']);
    expect(answer.transport_reason).toMatchObject({
      code: 'fallback',
      blocked: [{ transport: 'tcp', blockage: 'tcp-silenced' }],
    });
    await fx.engine.disconnect();
    fx.tunnels.plans.length = 0;
    // UDP remembered: raced beside TCP in one session, and UDP wins.
    expect((await fx.engine.connect({ protocol: 'ferry' })).transport).toBe('udp');
    expect(fx.tunnels.plans.map((p) => `${p.transport}${p.raceUdp ? '+udp' : ''}`)).toEqual([
      'tcp+udp',
    ]);
  });

  it('on, in a region of WireGuard-only nodes: Ferry is asked for at once, then WireGuard over UDP as before', async () => {
    await fx.controlPlane.addHealthyNode('asia-southeast', 0.1, { ferry: false });
    const account = await fx.signIn();
    await fx.controlPlane.setPlan(account, 'premium');
    await fx.engine.setConfigKey('obfuscation', 'on');
    const answer = await fx.engine.connect({ region: 'asia-southeast' });
    expect(answer).toMatchObject({ status: 'connected', protocol: 'wireguard', transport: 'udp' });
  });

  it('tls: asks for a node that serves TLS, and is refused where none does (WireGuard cannot stand in)', async () => {
    await fx.signIn();
    await fx.engine.setConfigKey('obfuscation', 'tls');
    for (const protocol of ['ferry', 'wireguard'] as const) {
      const refusal = await engineRefusal(fx.engine.connect({ protocol }));
      expect(refusal).toMatchObject({ code: 'no-node-available' });
      expect(refusal.message).toMatch(/no healthy ferry node serving TLS/);
    }
  });
});

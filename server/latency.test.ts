// Latency in the control plane: each node's probe responder (port and key) in its record, and
// the status latency of a connected device: the client's fresh report, else the node's
// measurement through the tunnel, else the client's connect-time value.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT_LATENCY_FRESH_SECONDS } from '../contracts/index.js';
import {
  ADMIN_TOKEN,
  backends,
  newPublicKey,
  startControlPlane,
  type Harness,
} from './testing/control-plane-harness.js';

const KEY = /^[A-Za-z0-9+/]{43}=$/;

describe.each(backends())('latency on %s', (backend) => {
  let h: Harness;
  let now = Date.UTC(2026, 3, 1, 12);
  beforeAll(async () => {
    h = await startControlPlane(backend, { clock: { nowMs: () => now } });
  });
  afterAll(async () => h?.close());

  const nodeIn = async (token: string, id: string, region = 'global') =>
    (await h.client(token).listNodes({ query: { region } })).nodes.find((n) => n.id === id)!;

  describe('the probe responder in node records', () => {
    it('publishes the port the relay registers and the node’s key, to signed-in devices', async () => {
      const device = await h.signIn(await h.createAccount());
      const node = await h.addNode('global');
      // Not registered yet: no responder to speak of.
      expect((await nodeIn(device.token, node.id)).probe).toBeNull();

      const asNode = h.client(node.token);
      const registered = await asNode.nodeRegister({
        body: { wireguard_public_key: newPublicKey(), probe_port: 51884 },
      });
      expect(registered.probe_key).toMatch(KEY);
      expect(Buffer.from(registered.probe_key, 'base64')).toHaveLength(32);
      const beat = await asNode.nodeHeartbeat({ body: { load: 0, rx_bps: 0, tx_bps: 0 } });
      expect(beat.probe_key).toBe(registered.probe_key);
      expect((await nodeIn(device.token, node.id)).probe).toEqual({
        port: 51884,
        key: registered.probe_key,
      });

      // A restart registers again: the key stays (devices' copies keep working), the port follows.
      const again = await asNode.nodeRegister({
        body: { wireguard_public_key: newPublicKey(), probe_port: 40000 },
      });
      expect(again.probe_key).toBe(registered.probe_key);
      expect((await nodeIn(device.token, node.id)).probe).toEqual({
        port: 40000,
        key: registered.probe_key,
      });

      // A relay without a responder (an older one) says nothing: no probe is offered.
      await asNode.nodeRegister({ body: { wireguard_public_key: newPublicKey() } });
      expect((await nodeIn(device.token, node.id)).probe).toBeNull();
    });

    it('gives every node a key of its own', async () => {
      const keys = new Set<string>();
      for (let i = 0; i < 3; i++) {
        const node = await h.addNode('asia-east');
        const r = await h.client(node.token).nodeRegister({
          body: { wireguard_public_key: newPublicKey(), probe_port: 51884 },
        });
        keys.add(r.probe_key);
      }
      expect(keys.size).toBe(3);
    });

    it('lists nodes (and their probe keys) only to a signed-in device', async () => {
      expect((await h.call('GET', '/nodes')).status).toBe(401);
      const node = await h.addNode('global');
      expect((await h.call('GET', '/nodes', { token: node.token })).status).toBe(401);
      expect((await h.call('GET', '/nodes', { token: ADMIN_TOKEN })).status).toBe(401);
    });
  });

  describe('the status latency', () => {
    let node: { id: string; token: string };
    beforeAll(async () => {
      node = await h.addHealthyNode('eu-west');
    });

    async function connected(latencies?: Record<string, number>) {
      const account = await h.createAccount();
      await h.setPlan(account, 'premium');
      const device = await h.signIn(account);
      const session = await h.client(device.token).connect({
        body: { region: 'eu-west', ...(latencies ? { latencies } : {}) },
      });
      expect(session.node.id).toBe(node.id);
      return { device, session, status: () => h.client(device.token).status() };
    }

    it('carries "<n>ms" for a stock WireGuard client from the node’s measurement', async () => {
      const { device, status } = await connected();
      expect(await status()).toMatchObject({ status: 'connecting', latency: null });
      // The node saw the handshake before it measured the tunnel: connected waits for a latency
      // (the spec's status carries "<n>ms" whenever it says connected).
      await h.heartbeat(node.token, { fresh_handshakes: [{ device_id: device.device.id }] });
      expect(await status()).toMatchObject({
        status: 'connecting',
        latency: null,
        region: 'eu-west',
      });
      await h.heartbeat(node.token, {
        fresh_handshakes: [{ device_id: device.device.id, latency_ms: 17.4 }],
      });
      expect(await status()).toMatchObject({ status: 'connected', latency: '17ms' });
      // The node no longer measures it (the client stopped answering): no stale value stays,
      // and without one the status is not connected.
      await h.heartbeat(node.token, { fresh_handshakes: [{ device_id: device.device.id }] });
      expect(await status()).toMatchObject({ status: 'connecting', latency: null });
      // The client's own report is a latency too.
      const reported = await h.client(device.token).reportLatency({ body: { latency_ms: 8 } });
      expect(reported).toMatchObject({ status: 'connected', latency: '8ms' });
    });

    it('shows the client’s fresh report over the node’s, and the node’s again after it', async () => {
      const { device, session, status } = await connected({ [node.id]: 80 });
      // Before anything measured the tunnel: what the client measured before connecting.
      expect((await status()).latency).toBe('80ms');
      await h.heartbeat(node.token, {
        fresh_handshakes: [{ device_id: device.device.id, latency_ms: 40 }],
      });
      expect((await status()).latency).toBe('40ms');

      const reported = await h.client(device.token).reportLatency({
        body: { latency_ms: 9.6, session_id: session.session_id },
      });
      expect(reported).toMatchObject({ status: 'connected', latency: '10ms' });
      await h.heartbeat(node.token, {
        fresh_handshakes: [{ device_id: device.device.id, latency_ms: 41 }],
      });
      expect((await status()).latency).toBe('10ms');

      now += CLIENT_LATENCY_FRESH_SECONDS * 1000 + 1;
      // Keep the tunnel up across the jump: the node says so again.
      await h.heartbeat(node.token, {
        fresh_handshakes: [{ device_id: device.device.id, latency_ms: 42 }],
      });
      expect(await status()).toMatchObject({ status: 'connected', latency: '42ms' });

      // A report without a session id counts for the current session.
      await h.client(device.token).reportLatency({ body: { latency_ms: 5 } });
      expect((await status()).latency).toBe('5ms');
    });

    it('ignores reports for another session, and without one', async () => {
      const { device, session, status } = await connected();
      await h.heartbeat(node.token, {
        fresh_handshakes: [{ device_id: device.device.id, latency_ms: 30 }],
      });
      const stale = await h.client(device.token).reportLatency({
        body: { latency_ms: 1, session_id: 'ses_not_this_one' },
      });
      expect(stale).toMatchObject({ session_id: session.session_id, latency: '30ms' });

      await h.client(device.token).disconnect();
      const none = await h.client(device.token).reportLatency({ body: { latency_ms: 3 } });
      expect(none).toEqual({
        status: 'disconnected',
        latency: null,
        region: null,
        session_id: null,
        node_id: null,
        protocol: null,
        cipher: null,
        // The check-in's address: where the report came from.
        client_ip: expect.stringMatching(/^(127\.0\.0\.1|::1|::ffff:127\.0\.0\.1)$/),
      });
      // Nothing waits for the next session either: it starts unmeasured.
      await h.client(device.token).connect({ body: { region: 'eu-west' } });
      expect((await status()).latency).toBeNull();
    });

    it('forgets every measurement with the session', async () => {
      const { device, session, status } = await connected();
      await h.heartbeat(node.token, {
        fresh_handshakes: [{ device_id: device.device.id, latency_ms: 25 }],
      });
      await h.client(device.token).reportLatency({
        body: { latency_ms: 12, session_id: session.session_id },
      });
      await h.client(device.token).disconnect();
      expect(await status()).toMatchObject({ status: 'disconnected', latency: null });
      const again = await h.client(device.token).connect({ body: { region: 'eu-west' } });
      expect(again.session_id).not.toBe(session.session_id);
      expect((await status()).latency).toBeNull();
    });

    it('refuses reports that are no latency', async () => {
      const { device } = await connected();
      for (const body of [
        { latency_ms: -1 },
        { latency_ms: 60_001 },
        { latency_ms: '12ms' },
        {},
        { latency_ms: 5, extra: 1 },
        { latency_ms: 5, session_id: '' },
      ]) {
        const r = await h.call('PUT', '/status/latency', { token: device.token, body });
        expect(r.status, JSON.stringify(body)).toBe(400);
        expect(r.body.code).toBe('validation-failed');
      }
      const anonymous = await h.call('PUT', '/status/latency', { body: { latency_ms: 1 } });
      expect(anonymous.status).toBe(401);
    });
  });
});

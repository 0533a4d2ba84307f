// The whole user journey (issue done-when 2): account, three devices, connect on both
// prefixes, connecting → connected via the node's heartbeat, disconnect.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, startControlPlane, type Harness } from './testing/control-plane-harness.js';

const SPEC_CONNECT_BODY = {
  encryption: 'AES-256-GCM',
  protocol: 'WireGuard',
  region: 'auto',
  usage: 'remote-work',
};

describe.each(backends())('the user journey on %s', (backend) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startControlPlane(backend);
  });
  afterAll(async () => h?.close());

  it('goes from a new account to connected and back to disconnected', async () => {
    const node = await h.addHealthyNode('global');
    const account = await h.createAccount();
    expect(account).toMatch(/^\d{16}$/);

    const phone = await h.signIn(account, { name: 'phone', kind: 'phone' });
    const laptop = await h.signIn(account, { name: 'laptop', kind: 'Laptop' });
    const desktop = await h.signIn(account, { name: 'desktop', kind: 'desktop' });
    for (const d of [phone, laptop, desktop]) expect(d.reply.status).toBe(201);
    const devices = [phone, laptop, desktop];
    expect(new Set(devices.map((d) => d.token)).size).toBe(3);
    expect(new Set(devices.map((d) => d.device.tunnel_ipv4)).size).toBe(3);
    expect(new Set(devices.map((d) => d.device.tunnel_ipv6)).size).toBe(3);
    expect(laptop.device.kind).toBe('laptop');
    for (const d of devices)
      expect(d.device.tunnel_ipv4).toMatch(/^10\.(6[4-9]|[7-9]\d|1[01]\d|12[0-7])\.\d+\.\d+$/);

    // The spec's exact body, on both address forms.
    const viaApi = await h.call('POST', '/connect', {
      token: phone.token,
      body: SPEC_CONNECT_BODY,
      prefix: '/api/v1',
    });
    expect(viaApi.status).toBe(200);
    const viaV1 = await h.call('POST', '/connect', {
      token: laptop.token,
      body: SPEC_CONNECT_BODY,
      prefix: '/v1',
    });
    expect(viaV1.status).toBe(200);
    for (const r of [viaApi, viaV1]) {
      expect(r.body).toMatchObject({
        status: 'connecting',
        protocol: 'wireguard',
        cipher: 'ChaCha20-Poly1305',
        usage: 'remote-work',
        mode: 'secure',
        region: 'global',
        node: { id: node.id, region: 'global', wireguard_port: 51820 },
      });
      expect(r.body.notices.map((n: { code: string }) => n.code)).toContain('cipher-substituted');
    }
    expect(viaApi.body.tunnel.ipv4).toBe(phone.device.tunnel_ipv4);
    expect(viaV1.body.tunnel.ipv4).toBe(laptop.device.tunnel_ipv4);

    const connecting = await h.call('GET', '/status', { token: phone.token });
    expect(connecting.body).toMatchObject({ status: 'connecting', region: 'global' });

    // The node reports a fresh handshake (with its RTT) for the phone only.
    const hb = await h.heartbeat(node.token, {
      fresh_handshakes: [{ device_id: phone.device.id, latency_ms: 41.6 }],
    });
    expect(hb.status).toBe(200);
    for (const prefix of ['/api/v1', '/v1'] as const) {
      const connected = await h.call('GET', '/status', { token: phone.token, prefix });
      expect(connected.status).toBe(200);
      expect(connected.body.status).toBe('connected');
      expect(connected.body.latency).toMatch(/^\d+ms$/);
      expect(connected.body.latency).toBe('42ms');
      expect(connected.body.region).toBe('global');
    }
    // The laptop's tunnel is not up yet; the desktop never connected.
    expect((await h.call('GET', '/status', { token: laptop.token })).body.status).toBe(
      'connecting',
    );
    expect((await h.call('GET', '/status', { token: desktop.token })).body).toMatchObject({
      status: 'disconnected',
      latency: null,
      region: null,
    });

    // A later heartbeat that no longer lists the phone: its tunnel is gone.
    await h.heartbeat(node.token, {
      fresh_handshakes: [{ device_id: laptop.device.id, latency_ms: 30 }],
    });
    expect((await h.call('GET', '/status', { token: phone.token })).body.status).toBe('connecting');
    expect((await h.call('GET', '/status', { token: laptop.token })).body.status).toBe('connected');
    await h.heartbeat(node.token, {
      fresh_handshakes: [
        { device_id: phone.device.id, latency_ms: 40 },
        { device_id: laptop.device.id, latency_ms: 30 },
      ],
    });

    const bye = await h.call('POST', '/disconnect', { token: phone.token });
    expect(bye.status).toBe(200);
    expect(bye.body).toEqual({ status: 'disconnected' });
    expect((await h.call('GET', '/status', { token: phone.token })).body.status).toBe(
      'disconnected',
    );
    // The other device's tunnel is untouched.
    expect((await h.call('GET', '/status', { token: laptop.token })).body.status).toBe('connected');
  });
});

// Phones and tablets on the official WireGuard apps, set up from a signed-in device: POST
// /devices adds one with public keys made elsewhere (within the plan's device limit),
// POST /devices/:id/wireguard-config renders its config without the private key (one sent is
// refused, saying why), and GET /devices/:id/status shows its connection.
import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PRIVATE_KEY_REFUSED, WIREGUARD_PRIVATE_KEY_PLACEHOLDER } from '../contracts/index.js';
import {
  backends,
  newPublicKey,
  startControlPlane,
  type Harness,
} from './testing/control-plane-harness.js';

function keyPair() {
  const { privateKey, publicKey } = generateKeyPairSync('x25519');
  return {
    privateKey: privateKey
      .export({ type: 'pkcs8', format: 'der' })
      .subarray(-32)
      .toString('base64'),
    publicKey: publicKey.export({ type: 'spki', format: 'der' }).subarray(-32).toString('base64'),
  };
}

describe.each(backends())('wireguard configs on %s', (backend) => {
  let h: Harness;
  let node: { id: string; token: string };
  beforeAll(async () => {
    h = await startControlPlane(backend);
    node = await h.addHealthyNode('asia-east');
  });
  afterAll(async () => h?.close());

  const addPhone = (token: string, name = 'phone', wg = keyPair().publicKey) =>
    h.call('POST', '/devices', {
      token,
      body: { name, kind: 'phone', wireguard_public_key: wg, ferry_public_key: newPublicKey() },
    });

  it('adds a phone from the desktop and renders its config with a placeholder for the key', async () => {
    const account = await h.createAccount();
    const desktop = await h.signIn(account, { name: 'desktop', kind: 'desktop' });
    const keys = keyPair();
    const added = await addPhone(desktop.token, 'phone', keys.publicKey);
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({
      name: 'phone',
      kind: 'phone',
      wireguard_public_key: keys.publicKey,
      current: false,
    });
    const id = added.body.id;
    const devices = await h.call('GET', '/devices', { token: desktop.token });
    expect(devices.body.devices.map((d: { id: string }) => d.id)).toEqual([desktop.device.id, id]);

    const answer = await h.call('POST', `/devices/${id}/wireguard-config`, {
      token: desktop.token,
      body: { region: 'asia-east' },
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ node_id: node.id, region: 'asia-east' });
    expect(Object.keys(answer.body).sort()).toEqual(['config', 'node_id', 'region', 'session_id']);
    const config: string = answer.body.config;
    expect(config.split('\n').filter((l) => l === WIREGUARD_PRIVATE_KEY_PLACEHOLDER)).toHaveLength(
      1,
    );
    expect(config).not.toMatch(/^PrivateKey/m);
    expect(config).toContain(`Address = ${added.body.tunnel_ipv4}/32`);
    expect(config).toContain('DNS = 10.64.0.1\n');
    expect(config).toContain('AllowedIPs = 0.0.0.0/0, ::/0\n');
    expect(config).toContain('Endpoint = 192.0.2.10:51820');

    // The phone now has a session of its own, waiting for its handshake: the desktop sees it.
    const status = await h.call('GET', `/devices/${id}/status`, { token: desktop.token });
    expect(status.status).toBe(200);
    expect(status.body).toMatchObject({
      status: 'connecting',
      latency: null,
      node_id: node.id,
      session_id: answer.body.session_id,
    });
    // Its own status is still its own; the desktop has none.
    const mine = await h.call('GET', `/devices/${desktop.device.id}/status`, {
      token: desktop.token,
    });
    expect(mine.body).toMatchObject({ status: 'disconnected', session_id: null });

    // Options: the LAN left out, the account holder's resolver.
    const lan = await h.call('POST', `/devices/${id}/wireguard-config`, {
      token: desktop.token,
      body: { region: 'asia-east', allow_lan: true, dns: ['9.9.9.9'] },
    });
    expect(lan.status).toBe(200);
    expect(lan.body.config).toContain('DNS = 9.9.9.9\n');
    const allowed = /^AllowedIPs = (.*)$/m.exec(lan.body.config)![1]!.split(', ');
    expect(allowed).not.toContain('0.0.0.0/0');
    expect(allowed).toContain('11.0.0.0/8');
    // The chosen resolver is in the tunnel already (8.0.0.0/7); the relay's gateway is put back.
    expect(allowed).toContain('8.0.0.0/7');
    expect(allowed).not.toContain('9.9.9.9/32');
    expect(allowed).toContain('10.64.0.1/32');
  });

  it('refuses a private key, saying why and what to do instead', async () => {
    const account = await h.createAccount();
    const desktop = await h.signIn(account);
    const phone = (await addPhone(desktop.token)).body;
    for (const privateKey of [keyPair().privateKey, 'abc', null]) {
      const r = await h.call('POST', `/devices/${phone.id}/wireguard-config`, {
        token: desktop.token,
        body: { region: 'asia-east', private_key: privateKey },
      });
      expect(r.status).toBe(400);
      expect(r.body.code).toBe('validation-failed');
      expect(r.body.errors).toEqual([{ field: 'private_key', message: PRIVATE_KEY_REFUSED }]);
      expect(r.body.errors[0].message).toMatch(/never leave the device.*netcli devices add/);
    }
    // Nothing was started for it.
    const status = await h.call('GET', `/devices/${phone.id}/status`, { token: desktop.token });
    expect(status.body.status).toBe('disconnected');
  });

  it('keeps to the plan’s device limit, keys unique, and the account’s own devices', async () => {
    const account = await h.createAccount();
    const laptop = await h.signIn(account, { name: 'laptop' });
    const first = await addPhone(laptop.token, 'one');
    expect(first.status).toBe(201);
    const taken = await addPhone(laptop.token, 'two', first.body.wireguard_public_key);
    expect(taken.status).toBe(409);
    expect(taken.body.code).toBe('key-in-use');
    expect(taken.body.errors[0].field).toBe('wireguard_public_key');
    expect((await addPhone(laptop.token, 'two')).status).toBe(201);
    // The basic plan's three devices are taken: the fourth is refused with the devices listed.
    const full = await addPhone(laptop.token, 'three');
    expect(full.status).toBe(409);
    expect(full.body).toMatchObject({ code: 'device-limit', device_limit: 3 });
    expect(full.body.devices.map((d: { name: string }) => d.name)).toEqual([
      'laptop',
      'one',
      'two',
    ]);
    // A device added this way has no token: no bearer token authenticates as it.
    const stranger = await h.signIn(await h.createAccount());
    for (const [method, route] of [
      ['POST', `/devices/${first.body.id}/wireguard-config`],
      ['GET', `/devices/${first.body.id}/status`],
    ] as const) {
      const r = await h.call(method, route, {
        token: stranger.token,
        ...(method === 'POST' ? { body: {} } : {}),
      });
      expect(r.status).toBe(404);
    }
    // Revoking it frees the slot.
    expect(
      (await h.call('DELETE', `/devices/${first.body.id}`, { token: laptop.token })).status,
    ).toBe(204);
    expect((await addPhone(laptop.token, 'three')).status).toBe(201);
  });
});

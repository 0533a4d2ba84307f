// POST /devices/:id/wireguard-config: a wg-quick config and QR code for the official apps.
import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

  it("renders a phone's config from the desktop, with a QR code when the key is given", async () => {
    const account = await h.createAccount();
    const desktop = await h.signIn(account, { name: 'desktop', kind: 'desktop' });
    const keys = keyPair();
    const phone = await h.call('POST', '/sessions', {
      body: {
        account_number: account,
        device: {
          name: 'phone',
          kind: 'phone',
          wireguard_public_key: keys.publicKey,
          ferry_public_key: newPublicKey(),
        },
      },
    });
    expect(phone.status).toBe(201);
    const id = phone.body.device.id;

    const full = await h.call('POST', `/devices/${id}/wireguard-config`, {
      token: desktop.token,
      body: { region: 'asia-east', private_key: keys.privateKey },
    });
    expect(full.status).toBe(200);
    expect(full.body).toMatchObject({ node_id: node.id, region: 'asia-east' });
    expect(full.body.config).toContain(`PrivateKey = ${keys.privateKey}\n`);
    expect(full.body.config).toContain(`Address = ${phone.body.device.tunnel_ipv4}/32`);
    expect(full.body.config).toContain('Endpoint = 192.0.2.10:51820');
    expect(full.body.qr_svg).toMatch(/^<svg /);
    // The phone now has a session of its own, waiting for its handshake.
    const status = await h.call('GET', '/status', { token: phone.body.token });
    expect(status.body).toMatchObject({
      status: 'connecting',
      node_id: node.id,
      session_id: full.body.session_id,
    });

    const bare = await h.call('POST', `/devices/${id}/wireguard-config`, {
      token: desktop.token,
      body: {},
    });
    expect(bare.status).toBe(200);
    expect(bare.body.qr_svg).toBeNull();
    expect(bare.body.config).not.toMatch(/^PrivateKey/m);
  });

  it('refuses a private key that is not the device’s, and other accounts’ devices', async () => {
    const account = await h.createAccount();
    const a = await h.signIn(account);
    const wrong = await h.call('POST', `/devices/${a.device.id}/wireguard-config`, {
      token: a.token,
      body: { private_key: keyPair().privateKey },
    });
    // Well-formed but another key: a conflict with the device's registered key, not bad input.
    expect(wrong.status).toBe(409);
    expect(wrong.body.code).toBe('key-mismatch');
    expect(wrong.body.errors[0].field).toBe('private_key');
    const malformed = await h.call('POST', `/devices/${a.device.id}/wireguard-config`, {
      token: a.token,
      body: { private_key: 'abc' },
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body.code).toBe('validation-failed');
    const stranger = await h.signIn(await h.createAccount());
    const foreign = await h.call('POST', `/devices/${a.device.id}/wireguard-config`, {
      token: stranger.token,
      body: {},
    });
    expect(foreign.status).toBe(404);
  });
});

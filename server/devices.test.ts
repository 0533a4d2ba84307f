// Devices: the plan's device limit, revoking, renaming, key rotation, and account isolation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  backends,
  newPublicKey,
  startControlPlane,
  type Harness,
} from './testing/control-plane-harness.js';

describe.each(backends())('devices on %s', (backend) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startControlPlane(backend);
  });
  afterAll(async () => h?.close());

  it('answers 409 device-limit over the plan limit, and revoking frees the slot', async () => {
    const account = await h.createAccount();
    const signed = [];
    for (const kind of ['phone', 'tablet', 'laptop'])
      signed.push(await h.signIn(account, { kind, name: kind }));
    expect(signed.map((s) => s.reply.status)).toEqual([201, 201, 201]);

    const over = await h.signIn(account, { kind: 'desktop', name: 'desktop' });
    expect(over.reply.status).toBe(409);
    expect(over.reply.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(over.reply.body).toMatchObject({ code: 'device-limit', status: 409, device_limit: 3 });
    expect(over.reply.body.devices.map((d: { name: string }) => d.name).sort()).toEqual([
      'laptop',
      'phone',
      'tablet',
    ]);

    const [phone, tablet] = signed;
    const revoke = await h.call('DELETE', `/devices/${tablet!.device.id}`, { token: phone!.token });
    expect(revoke.status).toBe(204);
    // The revoked device's token is dead at once.
    expect((await h.call('GET', '/status', { token: tablet!.token })).status).toBe(401);
    const again = await h.signIn(account, { kind: 'desktop', name: 'desktop' });
    expect(again.reply.status).toBe(201);
    // A new device gets a new address; no two devices ever share one.
    expect(again.device.tunnel_ipv4).not.toBe(tablet!.device.tunnel_ipv4);

    const account_ = await h.call('GET', '/account', { token: phone!.token });
    expect(account_.body).toMatchObject({
      account_number: account,
      plan: { id: 'basic' },
      devices: { used: 3, limit: 3 },
    });
  });

  it('lets a premium account have more devices', async () => {
    const account = await h.createAccount();
    expect((await h.setPlan(account, 'premium')).status).toBe(200);
    for (let i = 0; i < 5; i++)
      expect((await h.signIn(account, { name: `d${i}` })).reply.status).toBe(201);
  });

  it('lists, renames and rotates keys of its own devices', async () => {
    const account = await h.createAccount();
    const a = await h.signIn(account, { name: 'old name' });
    const b = await h.signIn(account, { name: 'other' });
    const list = await h.call('GET', '/devices', { token: a.token });
    expect(list.status).toBe(200);
    expect(list.body.devices).toHaveLength(2);
    expect(list.body.devices.find((d: { id: string }) => d.id === a.device.id).current).toBe(true);
    expect(list.body.devices.find((d: { id: string }) => d.id === b.device.id).current).toBe(false);

    const renamed = await h.call('PATCH', `/devices/${b.device.id}`, {
      token: a.token,
      body: { name: '  new name ' },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body.name).toBe('new name');
    expect((await h.call('GET', `/devices/${b.device.id}`, { token: b.token })).body.name).toBe(
      'new name',
    );

    const key = newPublicKey();
    const rotated = await h.call('PUT', `/devices/${a.device.id}/keys`, {
      token: a.token,
      body: { wireguard_public_key: key },
    });
    expect(rotated.status).toBe(200);
    expect(rotated.body.wireguard_public_key).toBe(key);
    expect(rotated.body.ferry_public_key).toBe(a.device.ferry_public_key);
    expect(rotated.body.tunnel_ipv4).toBe(a.device.tunnel_ipv4);

    // A key can belong to one device only.
    const taken = await h.call('PUT', `/devices/${b.device.id}/keys`, {
      token: a.token,
      body: { wireguard_public_key: key },
    });
    expect(taken.status).toBe(409);
    expect(taken.body.code).toBe('key-in-use');
    const empty = await h.call('PUT', `/devices/${b.device.id}/keys`, { token: a.token, body: {} });
    expect(empty.status).toBe(400);
  });

  it('lists each device with its live state, latency and region, as its status shows them', async () => {
    const node = await h.addHealthyNode('asia-east');
    const account = await h.createAccount();
    const laptop = await h.signIn(account, { kind: 'laptop', name: 'laptop' });
    const desktop = await h.signIn(account, { kind: 'desktop', name: 'desktop' });
    const asLaptop = h.client(laptop.token);
    // A phone on the official app: added from the laptop, its session started by its config.
    const phone = await asLaptop.addDevice({
      body: {
        name: 'phone',
        kind: 'phone',
        wireguard_public_key: newPublicKey(),
        ferry_public_key: newPublicKey(),
      },
    });
    await asLaptop.wireguardConfig({ params: { id: phone.id }, body: { region: 'asia-east' } });
    await asLaptop.connect({ body: { region: 'asia-east' } });
    // The node sees both tunnels; it has measured the laptop's only.
    await h.heartbeat(node.token, {
      fresh_handshakes: [
        { device_id: laptop.device.id, latency_ms: 21.2 },
        { device_id: phone.id },
      ],
    });

    const listed = async () => {
      const r = await h.call('GET', '/devices', { token: laptop.token });
      expect(r.status).toBe(200);
      return new Map<string, Record<string, unknown>>(
        r.body.devices.map((d: { name: string }) => [d.name, d]),
      );
    };
    const first = await listed();
    expect(first.get('laptop')).toMatchObject({
      current: true,
      status: 'connected',
      latency: '21ms',
      region: 'asia-east',
    });
    // Up, but nothing measured it yet: connecting, as its status says.
    expect(first.get('phone')).toMatchObject({
      current: false,
      status: 'connecting',
      latency: null,
      region: 'asia-east',
    });
    expect(first.get('desktop')).toMatchObject({
      status: 'disconnected',
      latency: null,
      region: null,
    });
    // The record and its live state; nothing else (no address it came from, no time).
    expect(Object.keys(first.get('phone')!).sort()).toEqual(
      [
        'current',
        'ferry_public_key',
        'id',
        'kind',
        'latency',
        'name',
        'region',
        'status',
        'tunnel_ipv4',
        'tunnel_ipv6',
        'wireguard_public_key',
      ].sort(),
    );

    await h.heartbeat(node.token, {
      fresh_handshakes: [
        { device_id: laptop.device.id, latency_ms: 21.2 },
        { device_id: phone.id, latency_ms: 48.6 },
      ],
    });
    const typed = (await h.client(desktop.token).listDevices()).devices;
    const phoneNow = typed.find((d) => d.id === phone.id)!;
    expect(phoneNow).toMatchObject({ status: 'connected', latency: '49ms', region: 'asia-east' });
    // The same live data GET /devices/:id/status shows.
    const status = await h.client(desktop.token).deviceStatus({ params: { id: phone.id } });
    expect({ status: phoneNow.status, latency: phoneNow.latency, region: phoneNow.region }).toEqual(
      {
        status: status.status,
        latency: status.latency,
        region: status.region,
      },
    );
    expect(typed.find((d) => d.id === desktop.device.id)).toMatchObject({ current: true });

    // The laptop disconnects: its entry says so at once.
    await asLaptop.disconnect();
    expect((await listed()).get('laptop')).toMatchObject({
      status: 'disconnected',
      latency: null,
      region: null,
    });
  });

  it("never lets one account read, rename, revoke or re-key another's devices", async () => {
    const mine = await h.signIn(await h.createAccount(), { name: 'mine' });
    const theirs = await h.signIn(await h.createAccount(), { name: 'theirs' });
    const id = theirs.device.id;
    const attempts = [
      await h.call('GET', `/devices/${id}`, { token: mine.token }),
      await h.call('PATCH', `/devices/${id}`, { token: mine.token, body: { name: 'pwned' } }),
      await h.call('PUT', `/devices/${id}/keys`, {
        token: mine.token,
        body: { wireguard_public_key: newPublicKey() },
      }),
      await h.call('DELETE', `/devices/${id}`, { token: mine.token }),
    ];
    for (const r of attempts) {
      expect(r.status).toBe(404);
      expect(r.body.code).toBe('not-found');
    }
    const list = await h.call('GET', '/devices', { token: mine.token });
    expect(list.body.devices.map((d: { id: string }) => d.id)).toEqual([mine.device.id]);
    // Theirs is untouched.
    const still = await h.call('GET', `/devices/${id}`, { token: theirs.token });
    expect(still.body).toMatchObject({
      name: 'theirs',
      wireguard_public_key: theirs.device.wireguard_public_key,
    });
  });

  it('protects an account with a password when one was set', async () => {
    const account = await h.createAccount('correct horse battery');
    expect((await h.signIn(account, {})).reply.status).toBe(401);
    const wrong = await h.signIn(account, {}, 'wrong password!!');
    expect(wrong.reply.status).toBe(401);
    expect(wrong.reply.body.code).toBe('invalid-credentials');
    expect((await h.signIn(account, {}, 'correct horse battery')).reply.status).toBe(201);
    // An unknown account number gets the same answer as a wrong password.
    const unknown = await h.signIn('1234567890123456', {});
    expect(unknown.reply.status).toBe(401);
    expect(unknown.reply.body.code).toBe('invalid-credentials');
  });

  it('accepts an account number typed with spaces or dashes', async () => {
    const account = await h.createAccount();
    const spaced = account.replace(/(\d{4})(?=\d)/g, '$1 ');
    expect((await h.signIn(spaced, {})).reply.status).toBe(201);
  });
});

// Device tunnels (service tunnels): registered with their own keys and stable addresses, not
// device slots, capped per device, peers of their own in the feed, connected on their own
// session beside the device's, removed alone or with their device.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  backends,
  newPublicKey,
  startControlPlane,
  type Harness,
} from './testing/control-plane-harness.js';

describe.each(backends())('device tunnels on %s', (backend) => {
  let h: Harness;
  let tokyo: { id: string; token: string };
  beforeAll(async () => {
    h = await startControlPlane(backend);
    tokyo = await h.addHealthyNode('asia-east');
  });
  afterAll(async () => h?.close());

  const register = (token: string, deviceId: string, tag: string, keys: object = {}) =>
    h.call('POST', `/devices/${deviceId}/tunnels`, {
      token,
      body: {
        tag,
        wireguard_public_key: newPublicKey(),
        ferry_public_key: newPublicKey(),
        ...keys,
      },
    });
  const peers = async (after = 0) =>
    (await h.call('GET', `/node/peers?after=${after}&wait=0`, { token: tokyo.token })).body;

  it('gives a tunnel its own keys and addresses, and takes no device slot', async () => {
    const account = await h.createAccount();
    // The basic plan's three devices, each with a tunnel: the device limit counts devices only.
    const devices = [];
    for (const name of ['a', 'b', 'c']) devices.push(await h.signIn(account, { name }));
    const tunnels = [];
    for (const d of devices) {
      const r = await register(d.token, d.device.id, 'Work');
      expect(r.status).toBe(201);
      tunnels.push(r.body);
    }
    expect(tunnels[0]).toMatchObject({ tag: 'work', device_id: devices[0]!.device.id });
    const account_ = await h.call('GET', '/account', { token: devices[0]!.token });
    expect(account_.body.devices).toEqual({ used: 3, limit: 3 });
    // Every address is its holder's alone, also those of a device signed in afterwards.
    const another = await h.signIn(await h.createAccount(), { name: 'later' });
    const v4 = [
      ...devices.map((d) => d.device.tunnel_ipv4),
      ...tunnels.map((t) => t.tunnel_ipv4),
      another.device.tunnel_ipv4,
    ];
    const v6 = [
      ...devices.map((d) => d.device.tunnel_ipv6),
      ...tunnels.map((t) => t.tunnel_ipv6),
      another.device.tunnel_ipv6,
    ];
    expect(new Set(v4).size).toBe(v4.length);
    expect(new Set(v6).size).toBe(v6.length);
    for (const a of v4) expect(a).toMatch(/^10\.(6[4-9]|[7-9]\d|1[01]\d|12[0-7])\./);

    const list = await h.call('GET', `/devices/${devices[0]!.device.id}/tunnels`, {
      token: devices[1]!.token,
    });
    expect(list.status).toBe(200);
    expect(list.body).toEqual({ tunnels: [tunnels[0]] });
  });

  it('refuses a second tunnel of one tag, a ninth one, and a key someone holds', async () => {
    const d = await h.signIn(await h.createAccount());
    expect((await register(d.token, d.device.id, 'work')).status).toBe(201);
    const again = await register(d.token, d.device.id, 'WORK');
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('tunnel-exists');

    for (let i = 1; i < 8; i++)
      expect((await register(d.token, d.device.id, `t${i}`)).status).toBe(201);
    const ninth = await register(d.token, d.device.id, 'ninth');
    expect(ninth.status).toBe(409);
    expect(ninth.body).toMatchObject({ code: 'tunnel-limit', tunnel_limit: 8 });
    expect(ninth.body.tunnels).toHaveLength(8);
    // Removing one makes room.
    expect(
      (await h.call('DELETE', `/devices/${d.device.id}/tunnels/t1`, { token: d.token })).status,
    ).toBe(204);
    expect((await register(d.token, d.device.id, 'ninth')).status).toBe(201);

    const other = await h.signIn(await h.createAccount());
    const held = (await register(other.token, other.device.id, 'x')).body;
    for (const keys of [
      { wireguard_public_key: d.device.wireguard_public_key },
      { ferry_public_key: held.wireguard_public_key },
      { wireguard_public_key: held.wireguard_public_key },
    ]) {
      const r = await register(other.token, other.device.id, 'y', keys);
      expect(r.status).toBe(409);
      expect(r.body.code).toBe('key-in-use');
    }
    const same = newPublicKey();
    const both = await register(other.token, other.device.id, 'y', {
      wireguard_public_key: same,
      ferry_public_key: same,
    });
    expect(both.body.code).toBe('key-in-use');
    // A device cannot sign in with a tunnel's key either.
    const signIn = await h.call('POST', '/sessions', {
      body: {
        account_number: await h.createAccount(),
        device: {
          name: 'thief',
          kind: 'phone',
          wireguard_public_key: held.wireguard_public_key,
          ferry_public_key: newPublicKey(),
        },
      },
    });
    expect(signIn.body.code).toBe('key-in-use');
  });

  it("never shows or touches another account's tunnels", async () => {
    const mine = await h.signIn(await h.createAccount());
    const theirs = await h.signIn(await h.createAccount());
    await register(theirs.token, theirs.device.id, 'work');
    const id = theirs.device.id;
    for (const r of [
      await register(mine.token, id, 'mine'),
      await h.call('GET', `/devices/${id}/tunnels`, { token: mine.token }),
      await h.call('DELETE', `/devices/${id}/tunnels/work`, { token: mine.token }),
    ]) {
      expect(r.status).toBe(404);
      expect(r.body.code).toBe('not-found');
    }
    const still = await h.call('GET', `/devices/${id}/tunnels`, { token: theirs.token });
    expect(still.body.tunnels.map((t: { tag: string }) => t.tag)).toEqual(['work']);
  });

  it('connects a tunnel on its own session, beside the device’s', async () => {
    const d = await h.signIn(await h.createAccount());
    const tunnel = (await register(d.token, d.device.id, 'office')).body;
    const main = await h.call('POST', '/connect', { token: d.token, body: { region: 'auto' } });
    expect(main.status).toBe(200);
    const office = await h.call('POST', '/connect', {
      token: d.token,
      body: { region: 'asia-east', tunnel: 'OFFICE', protocol: 'ferry' },
    });
    expect(office.status).toBe(200);
    expect(office.body.tunnel).toMatchObject({
      ipv4: tunnel.tunnel_ipv4,
      ipv6: tunnel.tunnel_ipv6,
    });
    expect(main.body.tunnel.ipv4).toBe(d.device.tunnel_ipv4);
    expect(office.body.session_id).not.toBe(main.body.session_id);
    // The device's own session is untouched by the tunnel's.
    const status = await h.call('GET', '/status', { token: d.token });
    expect(status.body).toMatchObject({
      session_id: main.body.session_id,
      protocol: 'wireguard',
    });

    const unknown = await h.call('POST', '/connect', {
      token: d.token,
      body: { tunnel: 'home' },
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('not-found');
    // Another device's tunnel is not this device's to connect.
    const sibling = await h.signIn(await h.createAccount());
    await register(sibling.token, sibling.device.id, 'office2');
    expect(
      (await h.call('POST', '/connect', { token: d.token, body: { tunnel: 'office2' } })).status,
    ).toBe(404);
  });

  it('makes a tunnel a peer of its own in the feed, gone when removed or with its device', async () => {
    const account = await h.createAccount();
    const a = await h.signIn(account, { name: 'a' });
    const b = await h.signIn(account, { name: 'b' });
    const start = (await peers()).version;
    const work = (await register(a.token, a.device.id, 'work')).body;
    const home = (await register(a.token, a.device.id, 'home')).body;
    const added = await peers(start);
    expect(added.peers).toEqual([
      {
        device_id: work.id,
        op: 'upsert',
        wireguard_public_key: work.wireguard_public_key,
        ferry_public_key: work.ferry_public_key,
        tunnel_ipv4: work.tunnel_ipv4,
        tunnel_ipv6: work.tunnel_ipv6,
        bandwidth_limit_mbps: 20,
        data_cap_bytes: 10 * 1024 ** 3,
      },
      expect.objectContaining({ device_id: home.id, op: 'upsert' }),
    ]);
    const snapshot = await peers();
    const ids = snapshot.peers.map((p: { device_id: string }) => p.device_id);
    expect(ids).toEqual(expect.arrayContaining([a.device.id, work.id, home.id]));

    // Removed on its own: its peer leaves, the device's stays.
    expect(
      (await h.call('DELETE', `/devices/${a.device.id}/tunnels/home`, { token: a.token })).status,
    ).toBe(204);
    expect(
      (await h.call('DELETE', `/devices/${a.device.id}/tunnels/home`, { token: a.token })).status,
    ).toBe(404);
    const removed = await peers(added.version);
    expect(removed.peers).toEqual([{ device_id: home.id, op: 'remove' }]);

    // Revoked by another device of the account: the device's peer and its tunnels' leave.
    const tunnelSession = await h.call('POST', '/connect', {
      token: a.token,
      body: { tunnel: 'work' },
    });
    expect(tunnelSession.status).toBe(200);
    expect((await h.call('DELETE', `/devices/${a.device.id}`, { token: b.token })).status).toBe(
      204,
    );
    const revoked = await peers(removed.version);
    expect(revoked.peers).toEqual(
      expect.arrayContaining([
        { device_id: a.device.id, op: 'remove' },
        { device_id: work.id, op: 'remove' },
      ]),
    );
    const after = (await peers()).peers.map((p: { device_id: string }) => p.device_id);
    expect(after).not.toContain(work.id);
    expect(after).not.toContain(a.device.id);
    // Its key is free again (the tunnel is gone from the database, not hidden).
    const reuse = await register(b.token, b.device.id, 'work', {
      wireguard_public_key: work.wireguard_public_key,
    });
    expect(reuse.status).toBe(201);
  });

  it("counts a tunnel's traffic to its account, and takes it off the nodes with the plan", async () => {
    const account = await h.createAccount();
    const d = await h.signIn(account);
    const tunnel = (await register(d.token, d.device.id, 'work')).body;
    await h.heartbeat(tokyo.token, { usage: [{ device_id: tunnel.id, bytes: 4096 }] });
    const usage = (await h.call('GET', '/account', { token: d.token })).body.usage;
    expect(usage.bytes).toBe(4096);

    // eu-west is a premium region: the tunnel is on its node only while the plan allows it.
    const paris = await h.addHealthyNode('eu-west');
    const onParis = async (after = 0) =>
      (await h.call('GET', `/node/peers?after=${after}&wait=0`, { token: paris.token })).body;
    const before = await onParis();
    expect(before.peers.map((p: { device_id: string }) => p.device_id)).not.toContain(tunnel.id);
    await h.setPlan(account, 'premium');
    const upgraded = await onParis(before.version);
    expect(upgraded.peers).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ device_id: tunnel.id, op: 'upsert', data_cap_bytes: null }),
      ]),
    );
    await h.setPlan(account, 'basic');
    const downgraded = await onParis(upgraded.version);
    expect(downgraded.peers).toEqual(
      expect.arrayContaining([{ device_id: tunnel.id, op: 'remove' }]),
    );
  });

  it('refuses bad tags and keys with the fields named', async () => {
    const d = await h.signIn(await h.createAccount());
    const bad = await h.call('POST', `/devices/${d.device.id}/tunnels`, {
      token: d.token,
      body: { tag: 'no spaces!', wireguard_public_key: 'x', ferry_public_key: newPublicKey() },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { field: string }) => e.field).sort()).toEqual([
      'tag',
      'wireguard_public_key',
    ]);
    const extra = await h.call('POST', `/devices/${d.device.id}/tunnels`, {
      token: d.token,
      body: {
        tag: 'ok',
        wireguard_public_key: newPublicKey(),
        ferry_public_key: newPublicKey(),
        service: 'office',
      },
    });
    expect(extra.status).toBe(400);
  });
});

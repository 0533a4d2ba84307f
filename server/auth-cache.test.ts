// Device tokens answered from memory (SQLite) or the database (PostgreSQL): a revocation or a
// plan change holds at once for a token that was just used, on every route.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, startControlPlane, type Harness } from './testing/control-plane-harness.js';

describe.each(backends())('device tokens on %s', (backend) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startControlPlane(backend);
    await h.addHealthyNode('global');
    await h.addHealthyNode('eu-west');
  });
  afterAll(async () => h?.close());

  const statusOf = async (token: string) => (await h.call('GET', '/status', { token })).status;
  const connect = (token: string, region: string) =>
    h.call('POST', '/connect', { token, body: { region } });

  it('refuses a token that was in use the moment its device is revoked', async () => {
    const account = await h.createAccount();
    const keep = await h.signIn(account);
    const gone = await h.signIn(account);
    for (let i = 0; i < 3; i++) {
      expect(await statusOf(gone.token)).toBe(200);
      expect((await connect(gone.token, 'global')).status).toBe(200);
    }
    expect(
      (await h.call('DELETE', `/devices/${gone.device.id}`, { token: keep.token })).status,
    ).toBe(204);
    expect(await statusOf(gone.token)).toBe(401);
    expect((await connect(gone.token, 'global')).status).toBe(401);
    expect((await h.call('GET', '/devices', { token: gone.token })).status).toBe(401);
    // The account's other device is unaffected.
    expect(await statusOf(keep.token)).toBe(200);
    expect((await connect(keep.token, 'global')).status).toBe(200);
  });

  it('applies a plan change at once to a token that was in use', async () => {
    const account = await h.createAccount();
    const d = await h.signIn(account);
    expect((await connect(d.token, 'eu-west')).status).toBe(403);
    expect((await connect(d.token, 'eu-west')).status).toBe(403);
    expect((await h.setPlan(account, 'premium')).status).toBe(200);
    const premium = await connect(d.token, 'eu-west');
    expect(premium.status).toBe(200);
    expect(premium.body.region).toBe('eu-west');
    expect((await h.call('GET', '/account', { token: d.token })).body.plan.id).toBe('premium');
    expect((await h.setPlan(account, 'basic')).status).toBe(200);
    expect((await connect(d.token, 'eu-west')).status).toBe(403);
    expect((await h.call('GET', '/account', { token: d.token })).body.plan.id).toBe('basic');
  });

  it('answers connect with the tunnel addresses the device was given at sign-in', async () => {
    const d = await h.signIn(await h.createAccount());
    for (let i = 0; i < 2; i++) {
      const r = await connect(d.token, 'global');
      expect(r.body.tunnel).toMatchObject({
        ipv4: d.device.tunnel_ipv4,
        ipv6: d.device.tunnel_ipv6,
      });
    }
  });
});

// Two control-plane instances sharing one PostgreSQL: live sessions, the peer feed's long
// polls, revocations and plan changes are seen by both at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN_TOKEN,
  backends,
  startControlPlane,
  type Harness,
} from './testing/control-plane-harness.js';

describe.skipIf(!backends().includes('postgres'))('two instances on one PostgreSQL', () => {
  let a: Harness;
  let b: Harness;
  beforeAll(async () => {
    a = await startControlPlane('postgres');
    b = await startControlPlane('postgres', { databaseUrl: a.databaseUrl! });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('wakes a long poll on one instance for a change made on the other', async () => {
    const node = await a.addHealthyNode('global');
    const { body } = await b.call('GET', '/node/peers?after=0', { token: node.token });
    const started = Date.now();
    const poll = b.call('GET', `/node/peers?after=${body.version}&wait=20`, { token: node.token });
    await new Promise((r) => setTimeout(r, 200));
    const device = await a.signIn(await a.createAccount());
    const answer = await poll;
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(answer.body.peers).toEqual([
      expect.objectContaining({ device_id: device.device.id, op: 'upsert' }),
    ]);
  });

  it('shares live sessions: connect on one, handshake and status on the other', async () => {
    const node = await a.addHealthyNode('asia-east');
    const device = await a.signIn(await a.createAccount());
    const connected = await a.call('POST', '/connect', {
      token: device.token,
      body: { region: 'asia-east' },
    });
    expect(connected.body.node.id).toBe(node.id);
    expect((await b.call('GET', '/status', { token: device.token })).body.status).toBe(
      'connecting',
    );
    await b.heartbeat(node.token, {
      fresh_handshakes: [{ device_id: device.device.id, latency_ms: 7 }],
    });
    expect((await a.call('GET', '/status', { token: device.token })).body).toMatchObject({
      status: 'connected',
      latency: '7ms',
    });
    await b.call('POST', '/disconnect', { token: device.token });
    expect((await a.call('GET', '/status', { token: device.token })).body.status).toBe(
      'disconnected',
    );
  });

  it('shares the nodes’ platform checks: reported to one, chosen by and shown on the other', async () => {
    const verified = await a.addHealthyNode('asia-southeast');
    const flagged = await a.addHealthyNode('asia-southeast');
    const at = Math.floor(Date.now() / 1000);
    const result = (verdict: string) => [
      { platform: 'netflix', reachable: true, region: null, verdict, checked_at: at },
    ];
    await b.heartbeat(verified.token, { platforms: result('ok') });
    await b.heartbeat(flagged.token, { platforms: result('proxy-detected') });
    const device = await a.signIn(await a.createAccount());
    await a.setPlan(
      (await a.call('GET', '/account', { token: device.token })).body.account_number,
      'premium',
    );
    const body = { usage: 'streaming', platform: 'netflix', region: 'asia-southeast' };
    // Each instance reads regions and nodes from memory for up to a second.
    await expect
      .poll(
        async () => (await a.call('POST', '/connect', { token: device.token, body })).body.node?.id,
      )
      .toBe(verified.id);
    const shown = (await a.call('GET', '/nodes?region=asia-southeast', { token: device.token }))
      .body.nodes as any[];
    expect(shown.find((n) => n.id === verified.id).platforms[0]).toMatchObject({
      platform: 'netflix',
      verified: true,
    });
    await b.heartbeat(verified.token, { platforms: result('proxy-detected') });
    await expect
      .poll(async () => (await a.call('POST', '/connect', { token: device.token, body })).body.code)
      .toBe('platform-unverified');
    // An operator's request on one instance reaches the node through the other.
    await a.call('POST', `/admin/nodes/${flagged.id}/check-platforms`, { token: ADMIN_TOKEN });
    expect((await b.heartbeat(flagged.token)).body.check_platforms).toBe(true);
  });

  it('makes a revocation and a plan change hold on both instances at once', async () => {
    await a.addHealthyNode('eu-west');
    const account = await a.createAccount();
    const keep = await a.signIn(account);
    const gone = await a.signIn(account);
    // Both instances have seen both tokens.
    for (const h of [a, b])
      for (const d of [keep, gone])
        expect((await h.call('GET', '/status', { token: d.token })).status).toBe(200);
    expect(
      (await b.call('POST', '/connect', { token: keep.token, body: { region: 'eu-west' } })).status,
    ).toBe(403);

    expect(
      (await a.call('DELETE', `/devices/${gone.device.id}`, { token: keep.token })).status,
    ).toBe(204);
    expect((await b.call('GET', '/status', { token: gone.token })).status).toBe(401);
    expect((await a.call('GET', '/status', { token: gone.token })).status).toBe(401);

    expect((await b.setPlan(account, 'premium')).status).toBe(200);
    expect(
      (await a.call('POST', '/connect', { token: keep.token, body: { region: 'eu-west' } })).status,
    ).toBe(200);
    expect((await a.setPlan(account, 'basic')).status).toBe(200);
    expect(
      (await b.call('POST', '/connect', { token: keep.token, body: { region: 'eu-west' } })).status,
    ).toBe(403);
  });
});

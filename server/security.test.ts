// Abuse and bad input: tokens, malformed and oversized requests, unknown fields, wrong values,
// rate limits. Every failure is problem+json with a stable code; nothing is a 500.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN_TOKEN,
  backends,
  newPublicKey,
  startControlPlane,
  type Harness,
  type Reply,
} from './testing/control-plane-harness.js';

function expectProblem(r: Reply, status: number, code: string) {
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expect(r.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(r.body).toMatchObject({ status, code, type: `urn:ferry:problem:${code}` });
  expect(typeof r.body.title).toBe('string');
  expect(typeof r.body.detail).toBe('string');
}

describe.each(backends())('bad input on %s', (backend) => {
  let h: Harness;
  let token: string;
  let nodeToken: string;
  beforeAll(async () => {
    h = await startControlPlane(backend);
    token = (await h.signIn(await h.createAccount())).token;
    nodeToken = (await h.addHealthyNode('global')).token;
  });
  afterAll(async () => h?.close());

  it('answers 401 to missing, malformed, unknown and wrong-kind tokens', async () => {
    const cases: (string | undefined)[] = [
      undefined,
      'x',
      'ferry_d_' + 'A'.repeat(43),
      nodeToken,
      ADMIN_TOKEN,
    ];
    for (const t of cases) {
      const r = await h.call('GET', '/status', { token: t });
      expectProblem(r, 401, 'unauthorized');
      expect(r.headers['www-authenticate']).toBe('Bearer');
    }
    expectProblem(
      await h.call('GET', '/status', { headers: { authorization: `Basic ${token}` } }),
      401,
      'unauthorized',
    );
    // Device tokens open no node or admin route.
    expectProblem(await h.call('GET', '/node/peers', { token }), 401, 'unauthorized');
    expectProblem(
      await h.call('POST', '/admin/regions', {
        token,
        body: { id: 'x-y', name: 'X', area: 'x', country: 'XX' },
      }),
      401,
      'unauthorized',
    );
    expectProblem(await h.call('POST', '/admin/nodes', { body: {} }), 401, 'unauthorized');
  });

  it('answers 400 invalid-json to malformed JSON', async () => {
    for (const raw of ['{', '{"region": }', 'null x', '\u0000']) {
      expectProblem(await h.call('POST', '/connect', { token, raw }), 400, 'invalid-json');
    }
  });

  it('rejects unknown fields by name, never dropping them silently', async () => {
    const r = await h.call('POST', '/connect', {
      token,
      body: { region: 'auto', regoin: 'global', __proto__x: 1 },
    });
    expectProblem(r, 400, 'validation-failed');
    expect(r.body.errors.map((e: { field: string }) => e.field).sort()).toEqual([
      '__proto__x',
      'regoin',
    ]);
    const nested = await h.call('POST', '/sessions', {
      body: {
        account_number: '1234567890123456',
        device: {
          name: 'x',
          kind: 'phone',
          wireguard_public_key: newPublicKey(),
          ferry_public_key: newPublicKey(),
          color: 'red',
        },
      },
    });
    expectProblem(nested, 400, 'validation-failed');
    expect(nested.body.errors).toEqual([expect.objectContaining({ field: 'device.color' })]);
    expectProblem(
      await h.call('GET', '/nodes?region=global&x=1', { token }),
      400,
      'validation-failed',
    );
  });

  it('lists the allowed values when a value is wrong', async () => {
    const r = await h.call('POST', '/connect', {
      token,
      body: { protocol: 'openvpn', encryption: 'DES', usage: 'gaming' },
    });
    expectProblem(r, 400, 'validation-failed');
    const byField = Object.fromEntries(
      r.body.errors.map((e: { field: string; allowed?: string[] }) => [e.field, e.allowed]),
    );
    expect(byField.protocol).toEqual(['wireguard', 'ferry']);
    expect(byField.encryption).toEqual(['AES-256-GCM', 'ChaCha20-Poly1305']);
    expect(byField.usage).toEqual(['remote-work', 'streaming', 'general']);

    const region = await h.call('POST', '/connect', { token, body: { region: 'mars-north' } });
    expectProblem(region, 400, 'validation-failed');
    expect(region.body.errors[0].allowed).toEqual(
      expect.arrayContaining(['auto', 'global', 'asia-east', 'eu-west']),
    );

    const kind = await h.call('POST', '/sessions', {
      body: {
        account_number: '1234567890123456',
        device: {
          name: 'x',
          kind: 'fridge',
          wireguard_public_key: 'bad',
          ferry_public_key: newPublicKey(),
        },
      },
    });
    expectProblem(kind, 400, 'validation-failed');
    expect(kind.body.errors.map((e: { field: string }) => e.field).sort()).toEqual([
      'device.kind',
      'device.wireguard_public_key',
    ]);
    expectProblem(
      await h.call('PUT', '/admin/accounts/1234/plan', {
        token: ADMIN_TOKEN,
        body: { plan: 'basic' },
      }),
      400,
      'validation-failed',
    );
    const plan = await h.setPlan(await h.createAccount(), 'platinum');
    expectProblem(plan, 400, 'validation-failed');
    expect(plan.body.errors[0].allowed).toEqual(['basic', 'premium']);
    expectProblem(
      await h.call('POST', '/accounts', { body: { password: 'short' } }),
      400,
      'validation-failed',
    );
    expectProblem(await h.call('POST', '/accounts', { body: [] }), 400, 'validation-failed');
    expectProblem(
      await h.call('POST', '/accounts', { body: 'a string' }),
      400,
      'validation-failed',
    );
  });

  it('answers 413 to oversized bodies and 415 to other media types', async () => {
    const big = { region: 'auto', usage: 'x'.repeat(20_000) };
    expectProblem(await h.call('POST', '/connect', { token, body: big }), 413, 'payload-too-large');
    expectProblem(
      await h.call('POST', '/connect', {
        token,
        raw: 'region=auto',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      }),
      415,
      'unsupported-media-type',
    );
  });

  it('answers 404 problem+json to unknown routes and unknown resources', async () => {
    expectProblem(await h.call('GET', '/nope'), 404, 'not-found');
    expectProblem(await h.call('GET', '/devices/dev_doesnotexist', { token }), 404, 'not-found');
    expectProblem(await h.setPlan('1234567890123456', 'premium'), 404, 'not-found');
  });

  it("accepts an empty connect body (the spec does not show form A's body)", async () => {
    const r = await h.call('POST', '/connect', { token });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ protocol: 'wireguard', usage: 'general' });
  });
});

describe.each(backends())('rate limits on %s', (backend) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startControlPlane(backend, {
      rateLimits: { perIpPerMinute: 40, signupPerIpPerMinute: 3, perAccountPerMinute: 10 },
    });
  });
  afterAll(async () => h?.close());

  it('answers 429 with Retry-After per address for sign-ups, per account, and per address overall', async () => {
    const statuses = [];
    for (let i = 0; i < 4; i++)
      statuses.push((await h.call('POST', '/accounts', { body: {} })).status);
    expect(statuses).toEqual([201, 201, 201, 429]);
    const limited = await h.call('POST', '/accounts', { body: {} });
    expectProblem(limited, 429, 'rate-limited');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);

    // Per account: the account's devices share one budget.
    const other = await startControlPlane(backend, {
      rateLimits: { perIpPerMinute: 1000, signupPerIpPerMinute: 10, perAccountPerMinute: 10 },
    });
    try {
      const account = await other.createAccount();
      const a = await other.signIn(account);
      const b = await other.signIn(account);
      const codes = [];
      for (let i = 0; i < 6; i++) {
        codes.push((await other.call('GET', '/status', { token: a.token })).status);
        codes.push((await other.call('GET', '/status', { token: b.token })).status);
      }
      expect(codes.slice(0, 10).every((c) => c === 200)).toBe(true);
      expect(codes.slice(10)).toEqual([429, 429]);
      // Another account is not affected.
      const stranger = await other.signIn(await other.createAccount());
      expect((await other.call('GET', '/status', { token: stranger.token })).status).toBe(200);
    } finally {
      await other.close();
    }

    // Per address, all routes together.
    const all = [];
    for (let i = 0; i < 45; i++) all.push((await h.call('GET', '/health')).status);
    expect(all).toContain(429);
    expect(all.indexOf(429)).toBeGreaterThan(30);
  });
});

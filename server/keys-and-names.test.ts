// What devices and nodes may be called and which keys they may hold: names without controls,
// separators or bidi overrides (they end up in config files and lists), usable keys only, and
// each key with one holder and one kind.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOW_ORDER_PUBLIC_KEYS } from '../contracts/index.js';
import {
  ADMIN_TOKEN,
  backends,
  newPublicKey,
  startControlPlane,
  type Harness,
  type Reply,
} from './testing/control-plane-harness.js';

function expectProblem(r: Reply, status: number, code: string, field?: string) {
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expect(r.body).toMatchObject({ status, code });
  if (field !== undefined)
    expect(r.body.errors?.map((e: { field: string }) => e.field)).toContain(field);
}

const UNSAFE_NAMES = {
  NUL: 'a\u0000b',
  ESC: 'red \u001b[31mtext',
  VT: 'a\u000bb',
  FF: 'a\u000cb',
  LF: 'a\nb',
  CR: 'a\rb',
  DEL: 'a\u007fb',
  NEL: 'a\u0085b',
  LS: 'x\u2028DNS = 9.9.9.9\u2028#',
  PS: 'a\u2029b',
  RLO: 'evil\u202egnp.exe',
  LRE: 'a\u202ab',
  RLI: 'a\u2067b',
  PDI: 'a\u2069b',
  LRM: 'a\u200eb',
  RLM: 'a\u200fb',
  ALM: 'a\u061cb',
};

describe.each(backends())('names and keys on %s', (backend) => {
  let h: Harness;
  let account: string;
  let me: Awaited<ReturnType<Harness['signIn']>>;
  beforeAll(async () => {
    h = await startControlPlane(backend);
    account = await h.createAccount();
    await h.setPlan(account, 'premium');
    me = await h.signIn(account, { name: 'mine' });
  });
  afterAll(async () => h?.close());

  const signInWith = (device: Record<string, unknown>) =>
    h.call('POST', '/sessions', {
      body: {
        account_number: account,
        device: {
          name: 'd',
          kind: 'laptop',
          wireguard_public_key: newPublicKey(),
          ferry_public_key: newPublicKey(),
          ...device,
        },
      },
    });
  const rotate = (id: string, body: Record<string, string>) =>
    h.call('PUT', `/devices/${id}/keys`, { token: me.token, body });

  it.each(Object.entries(UNSAFE_NAMES))(
    'refuses a device name with %s, on sign-in and on rename',
    async (_what, name) => {
      const signed = await signInWith({ name });
      expectProblem(signed, 400, 'validation-failed', 'device.name');
      expect(signed.body.errors[0].message).toMatch(/control|separator|bidirectional/);
      const renamed = await h.call('PATCH', `/devices/${me.device.id}`, {
        token: me.token,
        body: { name },
      });
      expectProblem(renamed, 400, 'validation-failed', 'name');
      const still = await h.call('GET', `/devices/${me.device.id}`, { token: me.token });
      expect(still.body.name).toBe('mine');
    },
  );

  it('keeps names people use: accents, scripts, emoji, inner spaces', async () => {
    for (const name of ['Zoë’s laptop', '张伟的手机', '👩‍💻 work', 'a  b', 'ok\u00a0nbsp']) {
      const renamed = await h.call('PATCH', `/devices/${me.device.id}`, {
        token: me.token,
        body: { name: ` ${name} ` },
      });
      expect(renamed.status, name).toBe(200);
      expect(renamed.body.name).toBe(name);
    }
    expectProblem(
      await h.call('PATCH', `/devices/${me.device.id}`, {
        token: me.token,
        body: { name: ' \u3000 ' },
      }),
      400,
      'validation-failed',
      'name',
    );
    // 64 characters, counted as people count them (not as UTF-16 units).
    expect(
      (
        await h.call('PATCH', `/devices/${me.device.id}`, {
          token: me.token,
          body: { name: '📱'.repeat(64) },
        })
      ).status,
    ).toBe(200);
    expectProblem(
      await h.call('PATCH', `/devices/${me.device.id}`, {
        token: me.token,
        body: { name: '📱'.repeat(65) },
      }),
      400,
      'validation-failed',
      'name',
    );
    const region = await h.call('POST', '/admin/regions', {
      token: ADMIN_TOKEN,
      body: { id: 'test-bidi', name: 'Tokyo\u202e', area: 'asia', country: 'JP' },
    });
    expectProblem(region, 400, 'validation-failed', 'name');
  });

  it('refuses the all-zero key and the other low-order points everywhere a key is given', async () => {
    const node = await h.addNode('global');
    for (const low of LOW_ORDER_PUBLIC_KEYS) {
      expectProblem(
        await signInWith({ wireguard_public_key: low }),
        400,
        'validation-failed',
        'device.wireguard_public_key',
      );
      expectProblem(
        await rotate(me.device.id, { ferry_public_key: low }),
        400,
        'validation-failed',
        'ferry_public_key',
      );
      expectProblem(
        await h.call('POST', '/node/register', {
          token: node.token,
          body: { wireguard_public_key: low },
        }),
        400,
        'validation-failed',
        'wireguard_public_key',
      );
    }
  });

  it('gives each key one holder and one kind', async () => {
    const same = newPublicKey();
    expectProblem(
      await signInWith({ wireguard_public_key: same, ferry_public_key: same }),
      409,
      'key-in-use',
      'device.ferry_public_key',
    );
    // A device may not take the other kind of its own key.
    expectProblem(
      await rotate(me.device.id, { ferry_public_key: me.device.wireguard_public_key }),
      409,
      'key-in-use',
      'ferry_public_key',
    );
    expectProblem(
      await rotate(me.device.id, { wireguard_public_key: same, ferry_public_key: same }),
      409,
      'key-in-use',
    );
    // Rotating to the key it has already is no change, not a conflict.
    expect(
      (await rotate(me.device.id, { wireguard_public_key: me.device.wireguard_public_key })).status,
    ).toBe(200);

    // Devices and nodes: neither may take the other's key.
    const nodeKeys = { wireguard_public_key: newPublicKey(), ferry_public_key: newPublicKey() };
    const node = await h.addNode('global');
    expect(
      (await h.call('POST', '/node/register', { token: node.token, body: nodeKeys })).status,
    ).toBe(200);
    expectProblem(
      await signInWith({ ferry_public_key: nodeKeys.wireguard_public_key }),
      409,
      'key-in-use',
      'device.ferry_public_key',
    );
    expectProblem(
      await rotate(me.device.id, { wireguard_public_key: nodeKeys.ferry_public_key }),
      409,
      'key-in-use',
      'wireguard_public_key',
    );
    const other = await h.addNode('asia-east');
    expectProblem(
      await h.call('POST', '/node/register', {
        token: other.token,
        body: { wireguard_public_key: me.device.ferry_public_key },
      }),
      409,
      'key-in-use',
      'wireguard_public_key',
    );
    // Two relays started from one state directory: the second is told why.
    const twin = await h.call('POST', '/node/register', { token: other.token, body: nodeKeys });
    expectProblem(twin, 409, 'key-in-use');
    expect(twin.body.detail).toMatch(/state-dir/);
    expectProblem(
      await h.call('POST', '/node/register', {
        token: other.token,
        body: { wireguard_public_key: same, ferry_public_key: same },
      }),
      409,
      'key-in-use',
      'ferry_public_key',
    );
    // A node registers its own keys again after a restart, or new ones; the old are free then.
    expect(
      (await h.call('POST', '/node/register', { token: node.token, body: nodeKeys })).status,
    ).toBe(200);
    const fresh = { wireguard_public_key: newPublicKey(), ferry_public_key: newPublicKey() };
    expect(
      (await h.call('POST', '/node/register', { token: node.token, body: fresh })).status,
    ).toBe(200);
    expect(
      (await h.call('POST', '/node/register', { token: other.token, body: nodeKeys })).status,
    ).toBe(200);
    // The refused attempts left nothing behind.
    const mine = await h.call('GET', `/devices/${me.device.id}`, { token: me.token });
    expect(mine.body).toMatchObject({
      wireguard_public_key: me.device.wireguard_public_key,
      ferry_public_key: me.device.ferry_public_key,
    });
  });

  it('lets only one of several concurrent claims of one key win', async () => {
    const key = newPublicKey();
    const node = await h.addNode('global');
    const attempts = await Promise.all([
      signInWith({ wireguard_public_key: key }),
      signInWith({ ferry_public_key: key }),
      signInWith({ ferry_public_key: key }),
      rotate(me.device.id, { ferry_public_key: key }),
      h.call('POST', '/node/register', { token: node.token, body: { wireguard_public_key: key } }),
    ]);
    const won = attempts.filter((r) => r.status === 200 || r.status === 201);
    expect(won).toHaveLength(1);
    for (const r of attempts.filter((x) => !won.includes(x))) expectProblem(r, 409, 'key-in-use');
  });
});

// netcli devices add's engine side against the real control plane (in process, SQLite): a phone's
// key pair made here, only its public key sent (every request is recorded and searched), its
// config complete with the key filled in here and kept nowhere on disk, the plan's device limit
// passed on, and a device whose config could not be had revoked again.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiError, WIREGUARD_PRIVATE_KEY_PLACEHOLDER } from '../contracts/index.js';
import { injectFetch } from '../server/testing/inject-fetch.js';
import { startControlPlane } from '../server/testing/control-plane-harness.js';
import { EngineFixture } from './testing/engine-fixture.js';
import { engineRefusal } from './testing/refusal.js';
import { wireguardPublicKey } from './wireguard-keys.js';

/** Every request the engine sent the control plane: method, path and body. */
const sent: { method: string; path: string; body: string }[] = [];
/** When set, rewrites the wireguard-config answer's body (a control plane that breaks the contract). */
let tamper: ((body: string) => string) | null = null;

const fx = new EngineFixture({
  prefix: 'ferry-add-device-',
  startControlPlane: () => startControlPlane('sqlite'),
  fetchOf: (h) => {
    const inner = injectFetch(h.plane.app);
    return async (url, init) => {
      const { pathname } = new URL(url);
      sent.push({
        method: init.method ?? 'GET',
        path: pathname,
        body: typeof init.body === 'string' ? init.body : '',
      });
      const res = await inner(url, init);
      if (!tamper || !pathname.endsWith('/wireguard-config') || res.status !== 200) return res;
      return new Response(tamper(await res.text()), { status: 200, headers: res.headers });
    };
  },
  engine: { deviceName: () => 'laptop' },
});
beforeAll(() => fx.startControlPlane());
afterAll(() => fx.closeControlPlane());
beforeEach(async () => {
  sent.length = 0;
  tamper = null;
  await fx.start();
});
afterEach(() => fx.stop());

/** Every file under `dir`, with its contents. */
async function filesUnder(dir: string): Promise<{ file: string; text: string }[]> {
  const out: { file: string; text: string }[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    out.push({ file, text: await readFile(file, 'latin1') });
  }
  return out;
}

const privateKeyOf = (config: string) => /^PrivateKey = (\S+)$/m.exec(config)?.[1];

describe('adding a phone or tablet', () => {
  it('makes the key here, sends only its public key, and answers the complete config once', async () => {
    await fx.signIn();
    sent.length = 0;
    const added = await fx.engine.addDevice({
      kind: 'phone',
      name: 'pixel',
      region: 'asia-east',
      allow_lan: false,
    });
    expect(added.device).toMatchObject({ name: 'pixel', kind: 'phone', current: false });
    expect(added.region).toBe('asia-east');
    const key = privateKeyOf(added.config)!;
    expect(key).toMatch(/^[A-Za-z0-9+/]{43}=$/);
    expect(wireguardPublicKey(key)).toBe(added.device.wireguard_public_key);
    expect(added.config).not.toContain(WIREGUARD_PRIVATE_KEY_PLACEHOLDER);
    expect(added.config).toContain(`Address = ${added.device.tunnel_ipv4}/32`);
    expect(added.config).toContain('DNS = 10.64.0.1\n');
    // The engine registered the device, then asked for its config: the key in neither.
    expect(sent.map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /api/v1/devices',
      `POST /api/v1/devices/${added.device.id}/wireguard-config`,
    ]);
    expect(sent[0]!.body).toContain(added.device.wireguard_public_key);
    const raw = Buffer.from(key, 'base64');
    for (const r of sent) {
      expect(r.body).not.toContain(key);
      expect(r.body).not.toContain(raw.toString('hex'));
      expect(r.body).not.toContain(encodeURIComponent(key));
    }
    // ... and kept it nowhere: not in the state directory (its own keys are still there).
    const files = await filesUnder(fx.stateDir);
    expect(files.map((f) => path.basename(f.file))).toContain('keys.json');
    for (const { file, text } of files) {
      expect(text, file).not.toContain(key);
      expect(Buffer.from(text, 'latin1').includes(raw), file).toBe(false);
    }
    // The account lists it beside this device; this device is still this one.
    const devices = (await fx.engine.listDevices()).devices;
    expect(devices.map((d) => [d.name, d.kind, d.current])).toEqual([
      ['laptop', 'desktop', true],
      ['pixel', 'phone', false],
    ]);
    // A second one gets its own key.
    const tablet = await fx.engine.addDevice({ kind: 'tablet', name: 'tab', allow_lan: true });
    expect(privateKeyOf(tablet.config)).not.toBe(key);
    expect(tablet.config).toContain('10.64.0.1/32');
    expect(tablet.config).not.toMatch(/AllowedIPs = 0\.0\.0\.0\/0/);
  });

  it('passes the plan’s device limit on, with the devices to choose from', async () => {
    await fx.signIn();
    await fx.engine.addDevice({ kind: 'phone', name: 'one', allow_lan: false });
    await fx.engine.addDevice({ kind: 'tablet', name: 'two', allow_lan: false });
    const full = await engineRefusal(
      fx.engine.addDevice({ kind: 'phone', name: 'three', allow_lan: false }),
    );
    expect(full).toBeInstanceOf(ApiError);
    expect(full).toMatchObject({ code: 'device-limit', status: 409 });
    expect((full as ApiError).problem).toMatchObject({ device_limit: 3 });
  });

  it('revokes the new device again when its config cannot be had', async () => {
    await fx.signIn();
    // The free plan does not include eu-west: the device was registered, its config refused.
    const refused = await engineRefusal(
      fx.engine.addDevice({ kind: 'phone', name: 'abroad', region: 'eu-west', allow_lan: false }),
    );
    expect(refused.code).toBe('region-not-in-plan');
    expect(sent.map((r) => `${r.method} ${r.path}`).slice(-3)).toEqual([
      'POST /api/v1/devices',
      expect.stringMatching(/^POST \/api\/v1\/devices\/dev_\S+\/wireguard-config$/),
      expect.stringMatching(/^DELETE \/api\/v1\/devices\/dev_\S+$/),
    ]);
    expect((await fx.engine.listDevices()).devices.map((d) => d.name)).toEqual(['laptop']);

    // A config without its placeholder line (a control plane that breaks the contract).
    tamper = (body) =>
      JSON.stringify({
        ...JSON.parse(body),
        config: '[Interface]\nPrivateKey = AAAA\n',
      });
    const broken = await engineRefusal(
      fx.engine.addDevice({ kind: 'phone', name: 'odd', allow_lan: false }),
    );
    expect(broken.code).toBe('bad-response');
    expect((await fx.engine.listDevices()).devices.map((d) => d.name)).toEqual(['laptop']);
  });

  it('needs a signed-in device', async () => {
    await fx.engine.init({ endpoint: 'http://control-plane.test' });
    const r = await engineRefusal(
      fx.engine.addDevice({ kind: 'phone', name: 'x', allow_lan: false }),
    );
    expect(r.code).toBe('not-signed-in');
    expect(sent).toEqual([]);
  });
});

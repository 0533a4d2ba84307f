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
/** A well-formed WireGuard key that is nobody's. */
const KEY = Buffer.alloc(32, 7).toString('base64');

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

  /** Adds a phone whose config the control plane answers with `change` made to it. */
  const addWith = (change: (config: string) => string) => {
    tamper = (body) => {
      const answer = JSON.parse(body) as { config: string };
      return JSON.stringify({ ...answer, config: change(answer.config) });
    };
    return fx.engine.addDevice({ kind: 'phone', name: 'odd', allow_lan: false });
  };
  const names = async () => (await fx.engine.listDevices()).devices.map((d) => d.name);

  it('passes on no line of the control plane’s config beyond its allow-listed fields', async () => {
    await fx.signIn();
    const pwned = 'touch /tmp/ferry-pwned';
    // wg-quick runs these as root, or they change the phone's routing: refused, whatever their
    // case or place, and the device is revoked again.
    const hostile: [string, (c: string) => string, RegExp][] = [
      ['PostUp', (c) => c.replace('[Interface]\n', `[Interface]\nPostUp = ${pwned}\n`), /PostUp/],
      ['preup', (c) => c.replace('\n[Peer]', `\npreup = ${pwned}\n\n[Peer]`), /preup/],
      ['PostDown in [Peer]', (c) => `${c}PostDown = ${pwned}\n`, /PostDown/],
      ['PreDown', (c) => `${c}PreDown=${pwned}\n`, /PreDown/],
      ['Table', (c) => c.replace('[Interface]\n', '[Interface]\nTable = off\n'), /Table/],
      [
        'SaveConfig',
        (c) => c.replace('[Interface]\n', '[Interface]\nSaveConfig = true\n'),
        /SaveConfig/,
      ],
      ['FwMark', (c) => c.replace('[Interface]\n', '[Interface]\nFwMark = 0x1\n'), /FwMark/],
      [
        'a second [Peer]',
        (c) =>
          `${c}\n[Peer]\nPublicKey = ${KEY}\nAllowedIPs = 0.0.0.0/0\nEndpoint = 203.0.113.9:51820\n`,
        /second \[Peer\]/,
      ],
      ['another section', (c) => `${c}\n[Hooks]\nPostUp = ${pwned}\n`, /\[Hooks\]/],
      ['a line before any section', (c) => `PostUp = ${pwned}\n${c}`, /PostUp/],
      // One reader's line break is another's character: wg-quick splits on LF only, the
      // Android app on CR too, the Apple apps on every Unicode newline.
      ['a CR inside a line', (c) => c.replace('\nDNS = ', `\rPostUp = ${pwned}\nDNS = `), /line 4/],
      [
        'a line separator',
        (c) => c.replace('\nDNS = ', `\u2028PostUp = ${pwned}\nDNS = `),
        /line 4/,
      ],
      ['a NEL', (c) => c.replace('\nDNS = ', `\u0085PostUp = ${pwned}\nDNS = `), /line 4/],
      [
        'a private key of the service’s',
        (c) => c.replace('[Interface]\n', `[Interface]\nPrivateKey = ${KEY}\n`),
        /PrivateKey/,
      ],
      [
        'an endpoint with a command in it',
        (c) => c.replace(/^Endpoint = .*$/m, 'Endpoint = $(reboot):51820'),
        /Endpoint/,
      ],
      [
        'an address that is not one',
        (c) => c.replace(/^Address = .*$/m, 'Address = 10.64.0.300/32'),
        /Address/,
      ],
      ['no peer key', (c) => c.replace(/^PublicKey = .*\n/m, ''), /PublicKey/],
    ];
    for (const [what, change, named] of hostile) {
      const refused = await engineRefusal(addWith(change));
      expect(refused.code, what).toBe('bad-response');
      expect((refused as ApiError).detail, what).toMatch(named);
      expect((refused as ApiError).detail, what).toMatch(/^the service’s config for the device/);
      expect(await names(), what).toEqual(['laptop']);
    }
  });

  it('rebuilds the config from the fields it read: comments, letter case and CRLF of the service’s are not passed on', async () => {
    await fx.signIn();
    const added = await addWith((c) =>
      c
        .replace('[Interface]\n', '[interface]\n# PostUp = touch /tmp/ferry-pwned\n')
        .replace('\nMTU = ', '\nmtu=')
        .replace(/^(Endpoint = .*)$/m, '$1 # PreUp = reboot')
        .replaceAll('\n', '\r\n'),
    );
    expect(added.config).not.toMatch(/PostUp|PreUp|pwned|reboot|#|\r/);
    // Exactly the allow-listed lines, in the one order this client writes them.
    expect(added.config.split('\n').map((l) => l.split(' = ')[0])).toEqual([
      '[Interface]',
      'PrivateKey',
      'Address',
      'DNS',
      'MTU',
      '',
      '[Peer]',
      'PublicKey',
      'AllowedIPs',
      'Endpoint',
      'PersistentKeepalive',
      '',
    ]);
    expect(added.config).toContain(`Address = ${added.device.tunnel_ipv4}/32, `);
    expect(added.config).toMatch(/^MTU = \d+$/m);
    expect(wireguardPublicKey(privateKeyOf(added.config)!)).toBe(added.device.wireguard_public_key);
    expect(await names()).toEqual(['laptop', 'odd']);
  });

  it('needs a signed-in device', async () => {
    await fx.engine.init({ endpoint: 'https://control-plane.test' });
    const r = await engineRefusal(
      fx.engine.addDevice({ kind: 'phone', name: 'x', allow_lan: false }),
    );
    expect(r.code).toBe('not-signed-in');
    expect(sent).toEqual([]);
  });
});

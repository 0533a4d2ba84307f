// The client configuration: defaults, the value sets and their spellings, refusals that name
// the key and its allowed values, and `config set` from command-line strings.
import { describe, expect, it } from 'vitest';
import {
  applyConfigPatch,
  CLIENT_CONFIG_DEFAULTS,
  ClientConfig,
  configFieldErrors,
  COUNTRY_CODES,
  INSECURE_SERVICE_MESSAGE,
  isLoopbackService,
  serviceIsInsecure,
  setConfigValue,
  type ClientConfig as Config,
} from './client-config.js';

const defaults = (): Config => ClientConfig.parse({});

function set(key: string, value: string, from: Config = defaults()) {
  return setConfigValue(from, key, value);
}

function setOk(key: string, value: string, from?: Config): Config {
  const r = set(key, value, from);
  if (!r.ok) throw new Error(`refused: ${r.error.message}`);
  return r.config;
}

describe('the client configuration', () => {
  it('is complete with defaults when empty, and the defaults are the documented ones', () => {
    expect(defaults()).toEqual({
      service: null,
      service_ca: null,
      service_insecure: false,
      service_key: null,
      api_access: 'auto',
      mode: 'secure',
      protocol: 'wireguard',
      encryption: 'ChaCha20-Poly1305',
      dns: 'auto',
      kill_switch: true,
      lockdown: false,
      obfuscation: 'auto',
      region: 'auto',
      split: 'auto',
      home_country: 'auto',
      allow_lan: false,
      mtu: 'auto',
      ui: 'terminal',
      multihop: 'auto',
      entry_region: 'auto',
      language: 'auto',
    });
    expect(defaults()).toEqual(CLIENT_CONFIG_DEFAULTS);
  });

  it("parses the spec's 2.3 object and keeps the keys it does not name at their defaults", () => {
    const c = ClientConfig.parse({
      service: 'https://ferry.example/api/v1',
      mode: 'secure',
      protocol: 'wireguard',
      dns: '10.64.0.1',
      kill_switch: true,
      obfuscation: 'auto',
    });
    expect(c.service).toBe('https://ferry.example');
    expect(c.dns).toBe('10.64.0.1');
    expect(c.ui).toBe('terminal');
  });

  it('stores canonical spellings whatever the letter case given', () => {
    const c = ClientConfig.parse({
      protocol: 'WireGuard',
      encryption: 'aes-256-gcm',
      mode: 'STREAM',
      obfuscation: 'On',
      region: 'Asia-East',
      split: 'OFF',
      home_country: 'de',
      dns: 'AUTO',
      ui: 'Graphical',
    });
    expect(c).toMatchObject({
      protocol: 'wireguard',
      encryption: 'AES-256-GCM',
      mode: 'stream',
      obfuscation: 'on',
      region: 'asia-east',
      split: 'off',
      home_country: 'DE',
      dns: 'auto',
      ui: 'graphical',
    });
  });

  it('refuses unknown keys, listing the keys that exist', () => {
    const r = ClientConfig.safeParse({ protocol: 'ferry', colour: 'red' });
    expect(r.success).toBe(false);
    const errors = configFieldErrors(r.error!);
    expect(errors).toEqual([
      expect.objectContaining({ field: 'colour', allowed: expect.arrayContaining(['dns', 'ui']) }),
    ]);
  });

  it('refuses bad values, naming the key and the allowed values but not the value', () => {
    const r = ClientConfig.safeParse({
      protocol: 'openvpn',
      kill_switch: 'yes',
      dns: '203.0.113.999',
      home_country: 'ZZ',
    });
    expect(r.success).toBe(false);
    const errors = configFieldErrors(r.error!);
    expect(errors).toContainEqual({
      field: 'protocol',
      message: 'protocol must be one of: wireguard, ferry',
      allowed: ['wireguard', 'ferry'],
    });
    expect(errors).toContainEqual(
      expect.objectContaining({ field: 'kill_switch', allowed: ['true', 'false'] }),
    );
    const dns = errors.find((e) => e.field === 'dns')!;
    expect(dns.message).toMatch(/^dns must be auto or the IP address of a DNS resolver/);
    expect(dns.message).not.toContain('203.0.113');
    expect(errors.find((e) => e.field === 'home_country')!.message).toMatch(/ISO 3166-1/);
  });

  it('says what is wrong when the whole thing is not an object', () => {
    const r = ClientConfig.safeParse(['protocol', 'ferry']);
    expect(configFieldErrors(r.error!)).toEqual([
      { field: '', message: 'the configuration must be a JSON object' },
    ]);
  });

  it('takes resolver addresses of both families and refuses addresses no resolver has', () => {
    for (const ok of ['1.1.1.1', '10.64.0.1', '2606:4700:4700::1111', 'FD66:6572:7279::1'])
      expect(ClientConfig.safeParse({ dns: ok }).success, ok).toBe(true);
    expect(ClientConfig.parse({ dns: 'FD66:6572:7279::1' }).dns).toBe('fd66:6572:7279::1');
    for (const bad of [
      '0.0.0.0',
      '255.255.255.255',
      '224.0.0.251',
      '::',
      '0:0::0',
      'ff02::fb',
      '1.1.1',
      'dns.example',
      '',
    ])
      expect(ClientConfig.safeParse({ dns: bad }).success, bad).toBe(false);
    // 00ff::1 written short is not multicast.
    expect(ClientConfig.safeParse({ dns: 'ff::1' }).success).toBe(true);
  });

  it('knows the assigned country codes and only those', () => {
    expect(COUNTRY_CODES).toHaveLength(250);
    const names = new Intl.DisplayNames(['en'], { type: 'region' });
    for (const code of COUNTRY_CODES) expect(names.of(code), code).not.toBe(code);
    for (const bad of ['ZZ', 'UK', 'EU', 'DEU', 'D'])
      expect(ClientConfig.safeParse({ home_country: bad }).success, bad).toBe(false);
  });

  it('normalises the service URL and refuses what cannot be one', () => {
    const url = (s: string) => ClientConfig.parse({ service: s }).service;
    expect(url('http://127.0.0.1:8080')).toBe('http://127.0.0.1:8080');
    expect(url('http://127.0.0.1:8080/')).toBe('http://127.0.0.1:8080');
    expect(url('http://127.0.0.1:8080/api/v1')).toBe('http://127.0.0.1:8080');
    expect(url('https://Ferry.Example/v1/')).toBe('https://ferry.example');
    expect(url('https://example.com/ferry/api/v1')).toBe('https://example.com/ferry');
    for (const bad of [
      'ferry.example',
      'ftp://ferry.example',
      'https://user:pw@ferry.example',
      'https://ferry.example/?token=x',
      'javascript:alert(1)',
    ])
      expect(ClientConfig.safeParse({ service: bad }).success, bad).toBe(false);
  });
});

describe('config set', () => {
  it("takes the spec's observed keys with the control API's spellings", () => {
    expect(setOk('protocol', 'WireGuard').protocol).toBe('wireguard');
    expect(setOk('protocol', 'Ferry').protocol).toBe('ferry');
    expect(setOk('encryption', 'AES-256-GCM').encryption).toBe('AES-256-GCM');
    expect(setOk('encryption', 'chacha20-poly1305').encryption).toBe('ChaCha20-Poly1305');
  });

  it('changes only the key given and says whether it changed', () => {
    const before = setOk('dns', '9.9.9.9');
    const r = set('protocol', 'ferry', before);
    expect(r).toMatchObject({ ok: true, key: 'protocol', changed: true });
    expect(r.ok && r.config).toEqual({ ...before, protocol: 'ferry' });
    expect(set('protocol', 'WIREGUARD', before)).toMatchObject({ ok: true, changed: false });
  });

  it('turns words into booleans for the boolean keys', () => {
    expect(setOk('kill_switch', 'false').kill_switch).toBe(false);
    expect(setOk('kill-switch', 'OFF').kill_switch).toBe(false);
    expect(setOk('allow_lan', 'yes').allow_lan).toBe(true);
    expect(setOk('Allow-LAN', 'on').allow_lan).toBe(true);
    const r = set('kill_switch', 'maybe');
    expect(r).toEqual({
      ok: false,
      error: {
        field: 'kill_switch',
        message: 'kill_switch must be true or false (on/off and yes/no also work)',
        allowed: ['true', 'false'],
      },
    });
  });

  it('sets and forgets the service URL', () => {
    const c = setOk('service', 'https://ferry.example/api/v1');
    expect(c.service).toBe('https://ferry.example');
    expect(setOk('service', 'none', c).service).toBeNull();
  });

  it('refuses unknown keys and bad values with the key and the allowed values', () => {
    const unknown = set('colour', 'red');
    expect(unknown.ok).toBe(false);
    expect(!unknown.ok && unknown.error.message).toMatch(/^unknown setting "colour"; the settings/);
    expect(!unknown.ok && unknown.error.allowed).toContain('encryption');

    expect(set('encryption', 'AES-128-GCM')).toEqual({
      ok: false,
      error: {
        field: 'encryption',
        message: 'encryption must be one of: AES-256-GCM, ChaCha20-Poly1305',
        allowed: ['AES-256-GCM', 'ChaCha20-Poly1305'],
      },
    });
    const region = set('region', 'not a region!');
    expect(!region.ok && region.error.message).toBe(
      'region must be auto, a region id, a region rule’s name, or <area>[:strategy]',
    );
    const service = set('service', 'ferry.example');
    expect(!service.ok && service.error.message).toBe(
      'service must be an http or https URL, e.g. https://ferry.example',
    );
    expect(set('mode', '').ok).toBe(false);
  });

  it('takes every key of the configuration', () => {
    const samples: Record<string, string> = {
      service: 'https://10.0.0.1:8080',
      service_insecure: 'on',
      service_key: 'gQZjtv+wcIsRVeQIoplTu7XQ/4Nk8FqFKTqerv7Q0Dg=',
      api_access: 'socks5://127.0.0.1:1080',
      mode: 'stream',
      protocol: 'ferry',
      encryption: 'AES-256-GCM',
      dns: '1.1.1.1',
      kill_switch: 'false',
      lockdown: 'on',
      obfuscation: 'on',
      region: 'asia:least-load',
      split: 'off',
      home_country: 'jp',
      allow_lan: 'true',
      mtu: '1380',
      ui: 'graphical',
      multihop: 'always',
      entry_region: 'cn-east',
      language: 'zh-cn',
    };
    let c = defaults();
    for (const [k, v] of Object.entries(samples)) c = setOk(k, v, c);
    expect(c).toEqual({
      ...samples,
      service_ca: null,
      service_insecure: true,
      kill_switch: false,
      lockdown: true,
      allow_lan: true,
      mtu: 1380,
      home_country: 'JP',
      language: 'zh-CN',
    });
    expect(set('language', 'de')).toMatchObject({
      ok: false,
      error: { field: 'language', allowed: ['auto', 'en', 'zh-CN', 'zh-TW', 'ru', 'fa'] },
    });
  });
});

describe('config patch', () => {
  it('applies typed values, all or none, and lists what changed', () => {
    const r = applyConfigPatch(defaults(), { protocol: 'Ferry', kill_switch: true });
    expect(r).toEqual({
      ok: true,
      config: { ...defaults(), protocol: 'ferry' },
      changed: ['protocol'],
    });
    const bad = applyConfigPatch(defaults(), { protocol: 'ferry', allow_lan: 'true', x: 1 });
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.errors.map((e) => e.field).sort()).toEqual(['allow_lan', 'x']);
  });
});

describe('the mtu setting', () => {
  it('takes auto or 1280..1500 bytes, and says so otherwise', () => {
    const c = defaults();
    const set = (v: string) => setConfigValue(c, 'mtu', v);
    expect(set('1300')).toMatchObject({ ok: true, config: { mtu: 1300 } });
    expect(set('AUTO')).toMatchObject({ ok: true, config: { mtu: 'auto' } });
    for (const bad of ['9000', '1000', 'big', '1300.5']) {
      const r = set(bad);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.error.message).toMatch(/mtu must be auto .* 1280 to 1500/);
    }
  });
});

describe('plain HTTP to the control plane', () => {
  const https = { ...CLIENT_CONFIG_DEFAULTS, service: 'https://ferry.example' };

  it('is refused for a service on the network unless the user accepts it', () => {
    for (const url of [
      'http://ferry.example',
      'http://10.0.0.1:8080/api/v1',
      'http://[2001:db8::1]',
    ]) {
      const r = set('service', url, https);
      expect(r.ok, url).toBe(false);
      expect(!r.ok && r.error).toMatchObject({
        field: 'service',
        message: INSECURE_SERVICE_MESSAGE,
      });
      const p = applyConfigPatch(https, { service: url });
      expect(p.ok, url).toBe(false);
      const accepted = applyConfigPatch(https, { service: url, service_insecure: true });
      expect(accepted.ok, url).toBe(true);
      expect(serviceIsInsecure(accepted.ok ? accepted.config : https)).toBe(true);
    }
    // Consent and a CA were given for one service: a change to another takes them back.
    const consented = { ...https, service: 'http://10.0.0.1', service_insecure: true };
    const moved = applyConfigPatch(consented, { service: 'http://10.6.6.6' });
    expect(moved.ok).toBe(false);
    expect(set('service', 'http://10.6.6.6', consented).ok).toBe(false);
    const elsewhere = applyConfigPatch(consented, { service: 'https://other.example' });
    expect(elsewhere.ok && elsewhere.config.service_insecure).toBe(false);
    expect(elsewhere.ok && elsewhere.changed).toEqual(['service', 'service_insecure']);
    // Said again in the same change, it holds.
    expect(
      applyConfigPatch(consented, { service: 'http://10.6.6.6', service_insecure: true }).ok,
    ).toBe(true);
    // Taking the consent back while the URL is still plain http is refused too.
    const insecure = { ...https, service: 'http://ferry.example', service_insecure: true };
    expect(applyConfigPatch(insecure, { service_insecure: false }).ok).toBe(false);
  });

  it('is fine on this machine, where it crosses no network', () => {
    for (const url of [
      'http://127.0.0.1:8080',
      'http://localhost:8080',
      'http://[::1]:8080',
      'http://127.8.9.1',
    ]) {
      expect(set('service', url, https).ok, url).toBe(true);
      expect(serviceIsInsecure({ service: url }), url).toBe(false);
    }
    expect(isLoopbackService('http://127.0.0.1.example.com')).toBe(false);
    expect(isLoopbackService('http://localhost.evil.example')).toBe(false);
    // A name under .localhost is still a name: a resolver on the network may answer it.
    expect(set('service', 'http://ferry.localhost', https).ok).toBe(false);
    expect(isLoopbackService('http://127.0.0.300')).toBe(false);
  });

  it('keeps CA certificates as PEM, and forgets them with system or none', () => {
    const pem =
      '-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUV0ZmY2E=\n-----END CERTIFICATE-----\n';
    expect(applyConfigPatch(https, { service_ca: pem }).ok).toBe(true);
    expect(applyConfigPatch(https, { service_ca: 'not a certificate' }).ok).toBe(false);
    const kept = { ...https, service_ca: pem };
    for (const word of ['system', 'none'])
      expect(setOk('service_ca', word, kept).service_ca).toBeNull();
  });
});

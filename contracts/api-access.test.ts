import { describe, expect, it } from 'vitest';

import {
  ApiAccessSetting,
  describeApiMethod,
  parseApiMethod,
  proxyCredentials,
} from './api-access.js';
import { CLIENT_CONFIG_DEFAULTS, setConfigValue as applyConfigSet } from './client-config.js';

describe('API access methods', () => {
  it('reads the words and proxy URLs, in any letter case', () => {
    expect(parseApiMethod('Direct')).toEqual({ kind: 'direct' });
    expect(parseApiMethod(' relays ')).toEqual({ kind: 'relays' });
    expect(parseApiMethod('SOCKS5://10.0.0.1:1080')).toEqual({
      kind: 'socks5',
      url: 'socks5://10.0.0.1:1080',
      host: '10.0.0.1',
      port: 1080,
    });
    expect(parseApiMethod('http://proxy.example:3128/')).toMatchObject({
      kind: 'http',
      host: 'proxy.example',
      port: 3128,
    });
    expect(parseApiMethod('socks5://[2001:db8::1]:1080')).toMatchObject({ host: '2001:db8::1' });
  });

  it('names a proxy without its password, and gives the credentials to the one that needs them', () => {
    const m = parseApiMethod('socks5://me:s%40cret@10.0.0.1:1080');
    expect(describeApiMethod(m)).toBe('socks5://10.0.0.1:1080');
    expect(proxyCredentials(m)).toEqual({ user: 'me', password: 's@cret' });
    expect(proxyCredentials(parseApiMethod('socks5://10.0.0.1:1080'))).toBeNull();
  });

  it('refuses what is not a method, saying what is, never quoting a password', () => {
    for (const bad of [
      'tor',
      'https://proxy:443',
      'socks5://10.0.0.1',
      'socks5://10.0.0.1:1080/x',
      'http://u:p@proxy:3128',
      '',
    ]) {
      expect(() => parseApiMethod(bad), bad).toThrow(TypeError);
    }
    try {
      parseApiMethod('http://user:hunter2@proxy:3128');
    } catch (e) {
      expect((e as Error).message).not.toContain('hunter2');
    }
  });

  it('is a setting: auto by default, the method or URL as stored', () => {
    expect(CLIENT_CONFIG_DEFAULTS.api_access).toBe('auto');
    expect(ApiAccessSetting.parse('AUTO')).toBe('auto');
    expect(ApiAccessSetting.parse('Relays')).toBe('relays');
    const set = applyConfigSet(CLIENT_CONFIG_DEFAULTS, 'api-access', 'socks5://127.0.0.1:9050');
    expect(set.ok && set.config.api_access).toBe('socks5://127.0.0.1:9050');
    const bad = applyConfigSet(CLIENT_CONFIG_DEFAULTS, 'api_access', 'carrier pigeon');
    expect(!bad.ok && bad.error.message).toMatch(/^api_access must be auto, not a method/);
  });

  it('keeps a service key only of the right shape; none clears it', () => {
    const key = Buffer.alloc(32, 7).toString('base64');
    const set = applyConfigSet(CLIENT_CONFIG_DEFAULTS, 'service_key', key);
    expect(set.ok && set.config.service_key).toBe(key);
    expect(applyConfigSet(CLIENT_CONFIG_DEFAULTS, 'service_key', 'abc').ok).toBe(false);
    const cleared = applyConfigSet(
      { ...CLIENT_CONFIG_DEFAULTS, service_key: key },
      'service_key',
      'none',
    );
    expect(cleared.ok && cleared.config.service_key).toBeNull();
  });
});

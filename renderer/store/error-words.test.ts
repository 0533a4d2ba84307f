// Errors in plain words: the codes that get our own words, and the engine's message otherwise.
import { describe, expect, it } from 'vitest';
import { ENGINE_DOWN_WORDS, OFFLINE_WORDS, describeError, sentence } from './error-words.js';
import {
  validateAccountNumber,
  validateDeviceName,
  validateDns,
  validateServiceUrl,
} from './input-checks.js';

describe('describeError', () => {
  it('says the service is out of reach for every no-answer code', () => {
    for (const code of ['unreachable', 'timeout', 'bad-response'] as const) {
      expect(describeError({ code, message: 'ECONNREFUSED 10.0.0.1:443' }).words).toBe(
        OFFLINE_WORDS,
      );
    }
  });

  it('blames the engine when its own link is down', () => {
    expect(describeError({ code: 'unreachable', message: 'x' }, 'down').words).toBe(
      ENGINE_DOWN_WORDS,
    );
  });

  it('says the plan’s device limit is reached, and to revoke a device first', () => {
    const shown = describeError({
      code: 'device-limit',
      message: 'the Basic plan allows 3 devices; revoke one to add this one',
    });
    expect(shown.words).toMatch(/^Your plan’s device limit is reached\. Revoke a device/);
    expect(shown.action).toBeNull();
  });

  it('offers to sign in or to set the service up', () => {
    expect(describeError({ code: 'not-signed-in', message: 'x' }).action).toBe('sign-in');
    expect(describeError({ code: 'service-not-configured', message: 'x' }).action).toBe('setup');
  });

  it('keeps the host’s words for a page whose session ended', () => {
    const shown = describeError({
      code: 'unauthorized',
      message: 'sign in to this page with the link `netcli gui` opens (each link works once)',
    });
    expect(shown.words).toMatch(/^Sign in to this page with the link `netcli gui` opens/);
    expect(shown.action).toBeNull();
  });

  it('shows the engine’s own message otherwise, as a sentence, with its field errors', () => {
    const errors = [{ field: 'dns', message: 'bad' }];
    const shown = describeError({ code: 'no-node-available', message: 'no node in asia', errors });
    expect(shown).toEqual({
      code: 'no-node-available',
      words: 'No node in asia.',
      action: null,
      errors,
    });
    expect(sentence('done!')).toBe('Done!');
    expect(sentence('   ')).toBe('Something went wrong.');
    expect(sentence('netcli config set home_country <code>')).toBe(
      'netcli config set home_country <code>.',
    );
  });
});

describe('input checks', () => {
  it('DNS: auto or a resolver’s IPv4 or IPv6 address', () => {
    expect(validateDns('AUTO')).toEqual({ ok: true, value: 'auto' });
    expect(validateDns(' 9.9.9.9 ')).toEqual({ ok: true, value: '9.9.9.9' });
    expect(validateDns('2620:FE::FE')).toEqual({ ok: true, value: '2620:fe::fe' });
    for (const bad of [
      '',
      'dns.quad9.net',
      '9.9.9',
      '256.1.1.1',
      '0.0.0.0',
      '224.0.0.251',
      'ff02::1',
    ])
      expect(validateDns(bad).ok, bad).toBe(false);
    // Each refusal says what is wrong with what was typed.
    const words = (t: string) => {
      const r = validateDns(t);
      return r.ok ? '' : r.error.message;
    };
    expect(words('dns.quad9.net')).toMatch(/not an IP address/);
    expect(words('224.0.0.251')).toMatch(/cannot be a DNS server/);
    expect(words('')).toMatch(/^Enter the address/);
  });

  it('service address: http(s) only, prefix dropped', () => {
    expect(validateServiceUrl('https://ferry.example/api/v1/')).toEqual({
      ok: true,
      value: 'https://ferry.example',
    });
    expect(validateServiceUrl('ferry.example').ok).toBe(false);
    expect(validateServiceUrl('ftp://ferry.example').ok).toBe(false);
  });

  it('account number: 16 digits, grouped as typed', () => {
    expect(validateAccountNumber('1234-5678 1234 5678')).toEqual({
      ok: true,
      value: '1234567812345678',
    });
    expect(validateAccountNumber('1234 5678').ok).toBe(false);
  });
});

describe('validateDeviceName', () => {
  it('takes a name as the engine does: trimmed, up to 64 characters', () => {
    expect(validateDeviceName('  Anna’s phone ')).toEqual({ ok: true, value: 'Anna’s phone' });
    expect(validateDeviceName('📱'.repeat(64)).ok).toBe(true);
  });

  it('refuses blank, too long and unsafe names, at the name field', () => {
    for (const [text, words] of [
      ['  ', /Enter a name/],
      ['x'.repeat(65), /at most 64/],
      ['a\nb', /line breaks/],
      ['evil\u202eenohp', /text-direction/],
    ] as const) {
      const checked = validateDeviceName(text);
      expect(checked.ok).toBe(false);
      if (!checked.ok) {
        expect(checked.error.field).toBe('name');
        expect(checked.error.message).toMatch(words);
      }
    }
  });
});

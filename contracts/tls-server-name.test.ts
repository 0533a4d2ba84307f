// Which names a relay may register for its TLS port and a client put in its hello.
import { describe, expect, it } from 'vitest';
import { TlsServerName, isTlsServerName } from './tls-server-name.js';

describe('TLS server names', () => {
  it('takes DNS names', () => {
    for (const name of [
      'www.example.com',
      'cover.test',
      'localhost',
      'xn--bcher-kva.example',
      'A-1.b2.Example',
    ])
      expect(isTlsServerName(name), name).toBe(true);
    expect(
      isTlsServerName(`${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(61)}`),
    ).toBe(true);
  });

  it('refuses addresses, empty labels, a trailing dot, dashes at a label’s ends and long names', () => {
    for (const name of [
      '',
      '192.0.2.1',
      '2001:db8::1',
      '[::1]',
      'example.com.',
      '.example.com',
      'a..example',
      '-a.example',
      'a-.example',
      'exa mple.com',
      'exämple.com',
      'example.com:443',
      `${'a'.repeat(64)}.example`,
      `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(62)}`,
    ])
      expect(isTlsServerName(name), name).toBe(false);
  });

  it('is the schema the control API checks with', () => {
    expect(TlsServerName.safeParse('cover.test').success).toBe(true);
    expect(TlsServerName.safeParse('192.0.2.1').success).toBe(false);
    expect(TlsServerName.safeParse(`${'a.'.repeat(126)}bc`).success).toBe(false);
  });
});

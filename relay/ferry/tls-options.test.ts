// ferry-relay's TLS transport options: the cover site's HOST[:PORT], the server name, and what
// --tls-port needs.
import { describe, expect, it } from 'vitest';
import { parseCoverSite, parseTlsServerName, tlsTransportOptions } from './tls-options.js';

describe('--cover-site HOST[:PORT]', () => {
  it('takes a name or an address, with port 443 unless given', () => {
    expect(parseCoverSite('www.Example.com')).toEqual({ host: 'www.example.com', port: 443 });
    expect(parseCoverSite('cover.example:8443')).toEqual({ host: 'cover.example', port: 8443 });
    expect(parseCoverSite('192.0.2.7')).toEqual({ host: '192.0.2.7', port: 443 });
    expect(parseCoverSite('192.0.2.7:444')).toEqual({ host: '192.0.2.7', port: 444 });
    expect(parseCoverSite('2001:db8::7')).toEqual({ host: '2001:db8::7', port: 443 });
    expect(parseCoverSite('[2001:db8::7]:8443')).toEqual({ host: '2001:db8::7', port: 8443 });
    expect(parseCoverSite('[2001:db8::7]')).toEqual({ host: '2001:db8::7', port: 443 });
  });

  it('refuses what is neither, and ports out of range', () => {
    for (const bad of [
      '',
      ':443',
      'cover.example:0',
      'cover.example:65536',
      'cover.example:https',
      'cover example',
      'cover.example.',
      'https://cover.example',
      '[cover.example]:443',
      '[2001:db8::7]:x',
    ])
      expect(() => parseCoverSite(bad), bad).toThrow();
  });
});

describe('--tls-server-name', () => {
  it('takes a DNS name, lower-cased as browsers send it, and refuses an address', () => {
    expect(parseTlsServerName('WWW.Cover.Example')).toBe('www.cover.example');
    expect(() => parseTlsServerName('192.0.2.7')).toThrow(/not a DNS name/);
    expect(() => parseTlsServerName('cover.example.')).toThrow(/not a DNS name/);
  });
});

describe('the TLS transport options together', () => {
  const cover = { host: 'cover.example', port: 443 };

  it('is off without --tls-port, and then refuses its other options', () => {
    expect(tlsTransportOptions({ ferryPort: 51821 })).toBeNull();
    expect(() => tlsTransportOptions({ coverSite: cover })).toThrow(
      '--cover-site is only for the TLS transport: give --tls-port too',
    );
    expect(() => tlsTransportOptions({ coverSite: cover, tlsServerName: 'a.example' })).toThrow(
      '--cover-site and --tls-server-name are only for the TLS transport',
    );
  });

  it('lists everything --tls-port is missing', () => {
    expect(() => tlsTransportOptions({ tlsPort: 443 })).toThrow(
      '--tls-port needs --cover-site HOST[:PORT] (where strangers are handed) and --ferry-port PORT (the Ferry server it carries)',
    );
    expect(() => tlsTransportOptions({ tlsPort: 443, ferryPort: 51821 })).toThrow(
      /needs --cover-site HOST\[:PORT\] \(where strangers are handed\)$/,
    );
    expect(() => tlsTransportOptions({ tlsPort: 443, coverSite: cover })).toThrow(
      /needs --ferry-port PORT/,
    );
  });

  it('takes the cover site’s name as the server name, unless given; an address needs one', () => {
    expect(tlsTransportOptions({ tlsPort: 443, coverSite: cover, ferryPort: 51821 })).toEqual({
      port: 443,
      cover,
      serverName: 'cover.example',
    });
    expect(
      tlsTransportOptions({
        tlsPort: 443,
        coverSite: cover,
        tlsServerName: 'www.cover.example',
        ferryPort: 51821,
      })?.serverName,
    ).toBe('www.cover.example');
    const byAddress = { host: '192.0.2.7', port: 443 };
    expect(() =>
      tlsTransportOptions({ tlsPort: 443, coverSite: byAddress, ferryPort: 51821 }),
    ).toThrow(/--cover-site 192.0.2.7 is an address: give --tls-server-name/);
    expect(
      tlsTransportOptions({
        tlsPort: 443,
        coverSite: byAddress,
        tlsServerName: 'cover.example',
        ferryPort: 51821,
      }),
    ).toEqual({ port: 443, cover: byAddress, serverName: 'cover.example' });
  });

  it('refuses the Ferry port, where the Ferry TCP transport listens', () => {
    expect(() =>
      tlsTransportOptions({ tlsPort: 51821, coverSite: cover, ferryPort: 51821 }),
    ).toThrow(/is the Ferry port/);
  });
});

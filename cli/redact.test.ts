// Redaction tries to be broken here: addresses in URLs, host:port, brackets, zones, prefixes and
// every IPv6 text form; keys bare, in JSON, in URLs (percent-encoded) and glued to other text;
// tokens and account numbers as people paste them. Generated cases hunt for what the listed
// ones miss; a few texts that must stay as they are keep it from eating the report.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { diagnosticCheck, diagnosticsReport, isIpv4, isIpv6 } from '../contracts/diagnostics.js';
import { redactJson, redactReport, redactText } from './redact.js';

/** Random bytes (Web Crypto: contracts/ takes no Node built-ins). */
const randomBytes = (n: number) => Buffer.from(crypto.getRandomValues(new Uint8Array(n)));
const key = () => randomBytes(32).toString('base64');

describe('redactText: IPv4', () => {
  it.each([
    ['bare', 'the resolver is 192.0.2.53.', 'the resolver is <address>.'],
    ['host:port', 'node at 198.51.100.7:51820', 'node at <address>:51820'],
    ['URL', 'GET http://203.0.113.5:8080/api/v1/health', 'GET http://<address>:8080/api/v1/health'],
    ['URL without port', 'https://203.0.113.5/x?y=1', 'https://<address>/x?y=1'],
    ['prefix', 'route 10.64.0.0/10 via tunnel', 'route <address> via tunnel'],
    ['in a word', 'ip=10.1.2.3,next', 'ip=<address>,next'],
    ['glued to letters', 'v10.1.2.3x', 'v<address>x'],
    ['over 255', 'odd 999.300.1.1 form', 'odd <address> form'],
    ['dashed in a host name', 'ip-192-0-2-1.ec2.internal', 'ip-<address>.ec2.internal'],
    ['in JSON text', '{"ip":"198.18.5.10"}', '{"ip":"<address>"}'],
    ['two in a row', '1.2.3.4,5.6.7.8', '<address>,<address>'],
    ['zero', '0.0.0.0/0', '<address>'],
  ])('%s', (_, input, expected) => {
    expect(redactText(input)).toBe(expected);
  });
});

describe('redactText: IPv6', () => {
  it.each([
    ['compressed', 'via 2001:db8::1 now', 'via <address> now'],
    ['full', '2001:0db8:0000:0000:0000:ff00:0042:8329', '<address>'],
    ['loopback', 'bound to ::1', 'bound to <address>'],
    ['unspecified', 'listening on ::', 'listening on <address>'],
    ['trailing ::', 'fd66:6572:7279:: is ours', '<address> is ours'],
    ['bracketed with port', 'probe [2001:db8::2]:443 ok', 'probe [<address>]:443 ok'],
    ['URL', 'http://[2001:db8:1::5]:8080/health', 'http://[<address>]:8080/health'],
    ['zone', 'fe80::1%eth0 on the LAN', '<address> on the LAN'],
    ['zone in a URL', 'http://[fe80::1%25eth0]/', 'http://[<address>]/'],
    ['IPv4-mapped', 'from ::ffff:192.0.2.1.', 'from <address>.'],
    ['NAT64', '64:ff9b::198.51.100.7', '<address>'],
    ['upper case', 'FE80::ABCD:1', '<address>'],
    ['prefix', 'fd00::/8 and 2001:db8::/32', '<address> and <address>'],
    ['percent-encoded in a query', '?ip=2001%3Adb8%3A%3A1&x=1', '?ip=<address>&x=1'],
    ['after a colon', 'addr:2001:db8::7', 'addr:<address>'],
    ['glued to a hex word', 'cafe:2001:db8::7 then', '<address> then'],
    ['end of a sentence', 'it was 2001:db8::9: dropped', 'it was <address>: dropped'],
    ['JSON', '{"v6":"2001:db8::a"}', '{"v6":"<address>"}'],
  ])('%s', (_, input, expected) => {
    expect(redactText(input)).toBe(expected);
  });
});

describe('redactText: keys, tokens, account numbers, hardware addresses', () => {
  it('replaces a base64 key bare, in JSON, glued to text and percent-encoded in a URL', () => {
    const k = 'wRfZXmeEIJJeI02VJ5Lo6h/ZQCEOWShKjBki4T4gS2g=';
    expect(redactText(`key ${k}`)).toBe('key <key>');
    expect(redactText(`{"public_key":"${k}"}`)).toBe('{"public_key":"<key>"}');
    expect(redactText(`peer=${k};`)).toBe('peer=<key>;');
    expect(redactText(`abc${k}def`)).not.toContain('ZQCEOWShKjBki4T4gS2g');
    expect(redactText(`https://x.example/?k=${encodeURIComponent(k)}`)).toBe(
      'https://x.example/?k=<key>',
    );
  });

  it('replaces hex keys (WireGuard UAPI) and unpadded base64url keys', () => {
    const hex = randomBytes(32).toString('hex');
    expect(redactText(`private_key=${hex}\npublic_key=${hex.toUpperCase()}`)).toBe(
      'private_key=<token>\npublic_key=<key>',
    );
    const url = randomBytes(32).toString('base64url');
    expect(redactText(`k ${url} end`)).not.toContain(url.slice(5, 30));
  });

  it('replaces keys the property test once found surviving: all zeros, glued to hex, unpadded', () => {
    const zeros = Buffer.alloc(32);
    expect(redactText(`pre 0${zeros.toString('hex')}0 post`)).toBe('pre <key> post');
    expect(redactText(`k=${zeros.toString('base64url')};`)).not.toContain('AAAAAAAAAAAA');
  });

  it('replaces tokens: Ferry’s, bearer, URL credentials, secret-named fields', () => {
    const token = `ferry_d_${randomBytes(32).toString('base64url')}`;
    expect(redactText(`token ${token}`)).toBe('token <token>');
    expect(redactText('Authorization: Bearer abc.def-ghi')).toBe('Authorization: Bearer <token>');
    expect(redactText('https://user:hunter2@ferry.example/api')).toBe(
      'https://<token>@ferry.example/api',
    );
    expect(redactText('password=hunter2 and "secret": "s3"')).toBe(
      'password=<token> and "secret": "<token>"',
    );
    expect(redactText('/x?access_token=short&y=1')).toBe('/x?access_token=<token>&y=1');
  });

  it('replaces account numbers as people type them, and nothing shorter or longer', () => {
    expect(redactText('account 9002206271022107.')).toBe('account <account-number>.');
    expect(redactText('account 9002 2062 7102 2107')).toBe('account <account-number>');
    expect(redactText('account 9002-2062-7102-2107')).toBe('account <account-number>');
    expect(redactText('took 1714823456789 ms')).toBe('took 1714823456789 ms');
  });

  it('replaces hardware addresses', () => {
    expect(redactText('lladdr 02:42:ac:11:00:02 seen')).toBe('lladdr <address> seen');
    expect(redactText('mac 02-42-AC-11-00-02')).toBe('mac <address>');
  });
});

describe('redactText keeps what is not secret', () => {
  it.each([
    'packets up to 1420 bytes cross the tunnel',
    'checked at 2026-05-04T10:00:00.000Z',
    'at 10:30:00 the clock was 12 s ahead',
    'version 0.1.0 (api v1), dataset @ip-location-db/geo-whois-asn-country@2.3.2026061719',
    'only cross-border traffic goes through the tunnel (home JP, 2310 ranges)',
    'netcli config set obfuscation on (auto already falls back to TCP)',
    'node hk-1 in asia-east',
    'ChaCha20-Poly1305 over UDP',
  ])('%s', (text) => {
    expect(redactText(text)).toBe(text);
  });
});

// ---- generated cases -------------------------------------------------------------------------

const octet = fc.integer({ min: 0, max: 255 });
const ipv4 = fc.tuple(octet, octet, octet, octet).map((o) => o.join('.'));
const group = fc.integer({ min: 0, max: 0xffff }).map((n) => n.toString(16));
/** Any IPv6 text form: full, compressed at any run, upper or lower case, with a dotted tail. */
const ipv6 = fc
  .record({
    groups: fc.array(group, { minLength: 8, maxLength: 8 }),
    cut: fc.option(fc.tuple(fc.nat(7), fc.nat(8)), { nil: null }),
    upper: fc.boolean(),
    dotted: fc.option(ipv4, { nil: null }),
  })
  .map(({ groups, cut, upper, dotted }) => {
    const g = dotted ? [...groups.slice(0, 6), dotted] : groups;
    let text: string;
    if (cut) {
      const [start, len] = cut;
      const end = Math.min(g.length, start + Math.max(1, len));
      const left = g.slice(0, Math.min(start, g.length - 1)).join(':');
      const right = g.slice(end).join(':');
      text = `${left}::${right}`;
    } else text = g.join(':');
    return upper ? text.toUpperCase() : text;
  })
  .filter(isIpv6);
/** How an address is embedded in text. */
const around = fc.constantFrom(
  (a: string) => `the address ${a} answered`,
  (a: string) => `http://${a.includes(':') ? `[${a}]` : a}:8080/path?q=1`,
  (a: string) => `${a.includes(':') ? `[${a}]` : a}:51820`,
  (a: string) => `{"resolver":"${a}"}`,
  (a: string) => `(${a})`,
  (a: string) => `x=${a},y`,
  (a: string) => `${a}.`,
  (a: string) => `${a}/24`,
  (a: string) => `dns:${a}`,
  (a: string) => `${a}%eth0 link`,
);

/** Whether any address of `text`'s kind survived: the same digits in the same order. */
function survives(address: string, out: string): boolean {
  return out.toLowerCase().includes(address.toLowerCase());
}

describe('redactText on generated texts', () => {
  it('leaves no IPv4 address in any embedding', () => {
    fc.assert(
      fc.property(ipv4, around, (a, wrap) => {
        const out = redactText(wrap(a));
        expect(survives(a, out)).toBe(false);
        expect(out).toContain('<address>');
      }),
      { numRuns: 500 },
    );
  });

  it('leaves no IPv6 address in any form or embedding', () => {
    fc.assert(
      fc.property(ipv6, around, (a, wrap) => {
        const out = redactText(wrap(a));
        expect(survives(a, out)).toBe(false);
        expect(out).toContain('<address>');
      }),
      { numRuns: 1000 },
    );
  });

  it('leaves no 32-byte key, however it is written into a string', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.constantFrom('base64', 'hex', 'base64url', 'uri'),
        fc.string({ maxLength: 6 }),
        (bytes, form, glue) => {
          const b64 = Buffer.from(bytes).toString('base64');
          const written =
            form === 'hex'
              ? Buffer.from(bytes).toString('hex')
              : form === 'base64url'
                ? Buffer.from(bytes).toString('base64url')
                : form === 'uri'
                  ? encodeURIComponent(b64)
                  : b64;
          const out = redactText(`pre ${glue}${written}${glue} post`);
          // No 12 characters in a row of the key survive.
          const core = form === 'uri' ? b64.replace(/[+/=]/g, '') : written;
          for (let i = 0; i + 12 <= core.length; i += 6)
            expect(out).not.toContain(core.slice(i, i + 12));
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('redactText: the service’s host name', () => {
  const service = 'https://vpn.corp.example:8443/api/v1';

  it('replaces it wherever it appears, in any letter case, under it too', () => {
    for (const [input, expected] of [
      ['vpn.corp.example:8443 answers in 4 ms', '<service-host>:8443 answers in 4 ms'],
      ['GET https://VPN.Corp.Example:8443/api/v1/ip', 'GET https://<service-host>:8443/api/v1/ip'],
      ['getaddrinfo ENOTFOUND vpn.corp.example.', 'getaddrinfo ENOTFOUND <service-host>.'],
      ['(api.vpn.corp.example)', '(api.<service-host>)'],
      ['"vpn.corp.example","vpn.corp.example"', '"<service-host>","<service-host>"'],
    ])
      expect(redactText(input!, { service })).toBe(expected);
  });

  it('leaves other names, and words that only look like a part of it', () => {
    for (const text of ['the VPN is up', 'corp.example', 'myvpn.corp.example', 'vpn.corp.examples'])
      expect(redactText(text, { service })).toBe(text);
    expect(redactText('vpn.corp.example')).toBe('vpn.corp.example');
  });

  it('an address as the host stays an address; a name of one label is a name', () => {
    expect(redactText('10.0.0.1:8080 answers', { service: 'http://10.0.0.1:8080' })).toBe(
      '<address>:8080 answers',
    );
    expect(redactText('[2001:db8::1]:443 answers', { service: 'https://[2001:db8::1]' })).toBe(
      '[<address>]:443 answers',
    );
    expect(redactText('ferry:8080 did not answer', { service: 'http://ferry:8080' })).toBe(
      '<service-host>:8080 did not answer',
    );
  });

  it('goes into JSON and reports, keys and values', () => {
    expect(redactJson({ 'vpn.corp.example': ['x vpn.corp.example'] }, { service })).toEqual({
      '<service-host>': ['x <service-host>'],
    });
    const report = diagnosticsReport(
      [diagnosticCheck('control-plane', 'ok', 'vpn.corp.example:8443 answers in 4 ms')],
      new Date('2026-05-04T10:00:00Z'),
      812,
    );
    expect(redactReport(report, { service }).checks[1]!.summary).toBe(
      '<service-host>:8443 answers in 4 ms',
    );
  });
});

describe('redactJson and redactReport', () => {
  it('redacts keys and values at any depth, and whole values of secret-named keys', () => {
    const k = key();
    expect(
      redactJson({
        nodes: [{ '192.0.2.1': { key: k, token: 'short', n: 3, ok: true, none: null } }],
        account_number: '9002206271022107',
      }),
    ).toEqual({
      nodes: [{ '<address>': { key: '<key>', token: '<token>', n: 3, ok: true, none: null } }],
      account_number: '<token>',
    });
  });

  it('keeps a report’s shape, checks and counts, with the summaries redacted', () => {
    const report = diagnosticsReport(
      [
        diagnosticCheck('engine', 'ok', 'running'),
        diagnosticCheck(
          'dns-leak',
          'problem',
          'DNS queries leave outside the tunnel (they reach 192.0.2.53)',
          'turn the kill switch on',
        ),
        diagnosticCheck('ipv6-leak', 'warning', 'via 2001:db8::5', 'fix it'),
      ],
      new Date('2026-05-04T10:00:00Z'),
      812,
    );
    const out = redactReport(report);
    expect(out.problems).toBe(1);
    expect(out.warnings).toBe(1);
    expect(out.checked_at).toBe('2026-05-04T10:00:00.000Z');
    expect(out.checks.map((c) => c.id)).toEqual(report.checks.map((c) => c.id));
    expect(out.checks.find((c) => c.id === 'dns-leak')!.summary).toBe(
      'DNS queries leave outside the tunnel (they reach <address>)',
    );
    expect(JSON.stringify(out)).not.toMatch(/192\.0\.2\.53|2001:db8/);
  });
});

describe('the address parsers redaction rests on', () => {
  it('tell IPv6 text forms from look-alikes', () => {
    for (const a of ['::', '::1', '1::', '1:2:3:4:5:6:7:8', '1:2:3:4:5:6:7::', '::ffff:1.2.3.4'])
      expect(isIpv6(a), a).toBe(true);
    for (const a of [
      '1:2:3',
      '1:2:3:4:5:6:7:8:9',
      '1::2::3',
      ':1:2:3:4:5:6:7',
      '12345::',
      '1.2.3.4::',
    ])
      expect(isIpv6(a), a).toBe(false);
    expect(isIpv4('192.0.2.1')).toBe(true);
    expect(isIpv4('256.0.2.1')).toBe(false);
  });
});

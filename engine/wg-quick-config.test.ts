// The phone config's reader and writer: the control plane's config read into allow-listed,
// checked fields (anything else refused, naming the line or field), and the config written
// from those fields alone.
import { describe, expect, it } from 'vitest';
import {
  parseWgQuickConfig,
  WgQuickConfigError,
  writeWgQuickConfig,
  type WgQuickConfig,
} from './wg-quick-config.js';
import { generateWireguardPrivateKey } from './wireguard-keys.js';

const NODE_KEY = Buffer.alloc(32, 7).toString('base64');
const PSK = Buffer.alloc(32, 9).toString('base64');

/** As the control plane renders one (server/domain/wireguard-config.ts). */
const RENDERED = [
  '[Interface]',
  '# Ferry: pixel, node nod_1 (asia-east)',
  '# PrivateKey = <made on your device, filled in there: it never reaches the service>',
  'Address = 10.64.0.2/32, fd66:6572:7279::2/128',
  'DNS = 10.64.0.1, fd66:6572:7279::1',
  'MTU = 1420',
  '',
  '[Peer]',
  `PublicKey = ${NODE_KEY}`,
  'AllowedIPs = 0.0.0.0/0, ::/0',
  'Endpoint = 198.51.100.7:51820',
  'PersistentKeepalive = 25',
  '',
].join('\n');

const FIELDS: WgQuickConfig = {
  interface: {
    addresses: ['10.64.0.2/32', 'fd66:6572:7279::2/128'],
    dns: ['10.64.0.1', 'fd66:6572:7279::1'],
    mtu: 1420,
  },
  peer: {
    publicKey: NODE_KEY,
    presharedKey: undefined,
    allowedIps: ['0.0.0.0/0', '::/0'],
    endpoint: '198.51.100.7:51820',
    persistentKeepalive: 25,
  },
};

/** The message `text` is refused with. */
function refusal(text: string): string {
  try {
    parseWgQuickConfig(text);
  } catch (e) {
    expect(e).toBeInstanceOf(WgQuickConfigError);
    return (e as Error).message;
  }
  throw new Error('the config was accepted');
}

const edit = (from: string, to: string) => {
  expect(RENDERED).toContain(from);
  return RENDERED.replace(from, to);
};

describe('reading the control plane’s wg-quick config', () => {
  it('reads the config the control plane renders', () => {
    expect(parseWgQuickConfig(RENDERED)).toEqual(FIELDS);
  });

  it('reads as wg-quick does: any letter case, CRLF, comments, repeated list fields, bare addresses', () => {
    const text = [
      '[INTERFACE]',
      'address=10.64.0.2',
      'Address = fd66:6572:7279::2/128 # the IPv6 one',
      '\tdns = 10.64.0.1',
      'DNS = fd66:6572:7279::1',
      'mtu = 1420',
      '[peer]',
      `publickey = ${NODE_KEY}`,
      `PresharedKey = ${PSK}`,
      'allowedips = 0.0.0.0/0',
      'AllowedIPs = ::/0',
      'endpoint = vpn-1.example.net:51820',
      'persistentkeepalive = off',
    ].join('\r\n');
    expect(parseWgQuickConfig(text)).toEqual({
      interface: FIELDS.interface,
      peer: {
        ...FIELDS.peer,
        presharedKey: PSK,
        endpoint: 'vpn-1.example.net:51820',
        persistentKeepalive: undefined,
      },
    });
    expect(
      parseWgQuickConfig(edit('198.51.100.7:51820', '[2001:db8::7]:51820')).peer,
    ).toMatchObject({ endpoint: '[2001:db8::7]:51820' });
  });

  it('refuses every field outside the list, naming it: those that run commands or change routing first', () => {
    for (const field of ['PostUp', 'PreUp', 'PostDown', 'PreDown', 'Table', 'SaveConfig', 'FwMark'])
      expect(refusal(edit('MTU = 1420', `MTU = 1420\n${field} = touch /tmp/pwned`))).toBe(
        `line 7 holds ${field}, a field this client does not pass on`,
      );
    expect(refusal(edit('PersistentKeepalive = 25', 'postup=id'))).toBe(
      'line 12 holds postup, a field this client does not pass on',
    );
    expect(refusal(edit('MTU = 1420', 'ListenPort = 51820'))).toMatch(/ListenPort/);
    expect(refusal(`${RENDERED}Address = 10.9.9.9/32\n`)).toMatch(/line 13 holds Address/);
  });

  it('refuses a private key from the service, sections outside the two, and a second of either', () => {
    expect(refusal(edit('MTU = 1420', `PrivateKey = ${NODE_KEY}`))).toBe(
      'line 6 holds a PrivateKey: a device’s key is made on the device, never the service’s',
    );
    expect(refusal(`${RENDERED}[Peer]\nPublicKey = ${PSK}\n`)).toBe(
      'line 13 begins a second [Peer]',
    );
    expect(refusal(`${RENDERED}[interface]\n`)).toBe('line 13 begins a second [Interface]');
    expect(refusal(`${RENDERED}[Hooks]\nPostUp = id\n`)).toBe(
      'line 13 begins a section [Hooks] this client does not pass on',
    );
    expect(refusal(`PostUp = id\n${RENDERED}`)).toBe('line 1 (PostUp) is outside any section');
    expect(refusal(edit('MTU = 1420', 'MTU 1420'))).toBe(
      'line 6 is neither a [section] nor key = value',
    );
  });

  it('refuses a line that another reader would break elsewhere', () => {
    // wg-quick reads one line where the Android app (CR) or the Apple apps (VT, FF, NEL, LS,
    // PS) read two, the second a PostUp.
    for (const [brk, code] of [
      ['\r', '000D'],
      ['\v', '000B'],
      ['\f', '000C'],
      ['\u0085', '0085'],
      ['\u2028', '2028'],
      ['\u2029', '2029'],
      ['\0', '0000'],
    ])
      expect(refusal(edit('MTU = 1420', `MTU = 1420${brk}PostUp = id`))).toBe(
        `line 6 holds U+${code}, a line break or control character to some readers`,
      );
    // In a comment too: the comment ends there for those readers.
    expect(refusal(edit('# Ferry', `# Ferry\rPostUp = id`))).toMatch(/^line 2 holds U\+000D/);
  });

  it('refuses a missing or malformed value', () => {
    const cases: [string, string, string][] = [
      [`PublicKey = ${NODE_KEY}\n`, '', 'the [Peer] has no PublicKey'],
      ['Endpoint = 198.51.100.7:51820\n', '', 'the [Peer] has no Endpoint'],
      ['AllowedIPs = 0.0.0.0/0, ::/0\n', '', 'the [Peer] has no AllowedIPs'],
      ['Address = 10.64.0.2/32, fd66:6572:7279::2/128\n', '', 'the [Interface] has no Address'],
      [NODE_KEY, 'AAAA', 'PublicKey is not a key (32 bytes in base64)'],
      [NODE_KEY, `${NODE_KEY.slice(0, -2)}x=`, 'PublicKey is not a key (32 bytes in base64)'],
      [
        '10.64.0.2/32',
        '10.64.0.300/32',
        'Address holds 10.64.0.300/32, which is not an IP address',
      ],
      [
        '0.0.0.0/0',
        '0.0.0.0/33',
        'AllowedIPs holds 0.0.0.0/33, whose prefix length is not 0 to 32',
      ],
      ['::/0', 'fe80::1%eth0/64', 'AllowedIPs holds fe80::1%eth0/64, which is not an IP address'],
      ['0.0.0.0/0, ::/0', '0.0.0.0/0,,::/0', 'AllowedIPs has an empty item'],
      [
        'DNS = 10.64.0.1',
        'DNS = corp.example',
        'DNS holds corp.example, which is not an IP address',
      ],
      ['MTU = 1420', 'MTU = 99999', 'MTU is 99999, not a number from 576 to 9000'],
      ['MTU = 1420', 'MTU = 0x5a0', 'MTU is 0x5a0, not a number from 576 to 9000'],
      ['= 25', '= -1', 'PersistentKeepalive is -1, not a number from 0 to 65535'],
      ['198.51.100.7:51820', '198.51.100.7', 'Endpoint 198.51.100.7 is not host:port'],
      ['198.51.100.7:51820', '2001:db8::7:51820', 'Endpoint 2001:db8::7:51820 is not host:port'],
      [
        '198.51.100.7:51820',
        '[10.0.0.1]:51820',
        'Endpoint [10.0.0.1]:51820 names no IP address or host name',
      ],
      [
        '198.51.100.7:51820',
        '$(reboot):51820',
        'Endpoint $(reboot):51820 names no IP address or host name',
      ],
      [
        '198.51.100.7:51820',
        'a\u202eb.example:1',
        'Endpoint a?b.example:1 names no IP address or host name',
      ],
      [
        '198.51.100.7:51820',
        'vpn.example:0',
        'the Endpoint’s port is 0, not a number from 1 to 65535',
      ],
      [
        '198.51.100.7:51820',
        'vpn.example:65536',
        'the Endpoint’s port is 65536, not a number from 1 to 65535',
      ],
    ];
    for (const [from, to, message] of cases) expect(refusal(edit(from, to)), to).toBe(message);
    expect(refusal(RENDERED.slice(0, RENDERED.indexOf('[Peer]')))).toBe('the config has no [Peer]');
    expect(refusal('')).toBe('the config has no [Interface]');
  });
});

describe('writing the phone’s config', () => {
  it('writes the fields and the key made here, nothing else, one per line in one order', () => {
    const key = generateWireguardPrivateKey();
    expect(writeWgQuickConfig(FIELDS, key)).toBe(
      [
        '[Interface]',
        `PrivateKey = ${key}`,
        'Address = 10.64.0.2/32, fd66:6572:7279::2/128',
        'DNS = 10.64.0.1, fd66:6572:7279::1',
        'MTU = 1420',
        '',
        '[Peer]',
        `PublicKey = ${NODE_KEY}`,
        'AllowedIPs = 0.0.0.0/0, ::/0',
        'Endpoint = 198.51.100.7:51820',
        'PersistentKeepalive = 25',
        '',
      ].join('\n'),
    );
    // Optional fields appear only when given.
    const bare: WgQuickConfig = {
      interface: { ...FIELDS.interface, dns: [], mtu: undefined },
      peer: { ...FIELDS.peer, presharedKey: PSK, persistentKeepalive: undefined },
    };
    const written = writeWgQuickConfig(bare, key);
    expect(written).not.toMatch(/^(DNS|MTU|PersistentKeepalive)/m);
    expect(written).toContain(`\nPresharedKey = ${PSK}\n`);
    // What it writes, it reads back the same (but the key, which it never takes from a config).
    expect(parseWgQuickConfig(written.replace(`PrivateKey = ${key}\n`, ''))).toEqual(bare);
    expect(() => writeWgQuickConfig(FIELDS, 'not a key')).toThrow(RangeError);
  });
});

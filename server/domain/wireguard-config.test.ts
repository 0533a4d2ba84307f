// The wg-quick rendering: every field from the connect answer, a placeholder where the device
// fills in its private key, the LAN left out on request, and names that stay on their line.
import ipaddr from 'ipaddr.js';
import { describe, expect, it } from 'vitest';
import { WIREGUARD_PRIVATE_KEY_PLACEHOLDER, type ConnectResponse } from '../../contracts/index.js';
import { LAN_CIDRS, allowedIpsExcluding } from './allowed-ips.js';
import { oneLine, renderWgQuick } from './wireguard-config.js';

const answer = {
  session_id: 'ses_1',
  status: 'connecting',
  region: 'asia-east',
  protocol: 'wireguard',
  cipher: 'ChaCha20-Poly1305',
  usage: 'general',
  mode: 'secure',
  node: {
    id: 'node_1',
    region: 'asia-east',
    endpoint_host: '203.0.113.7',
    wireguard_port: 51820,
    wireguard_public_key: 'NODEKEY=',
    ferry_port: null,
    ferry_public_key: null,
  },
  tunnel: {
    ipv4: '10.64.0.9',
    ipv6: 'fd66:6572:7279::9',
    dns: ['10.64.0.1'],
    mtu: 1420,
    keepalive: 25,
    allowed_ips: ['0.0.0.0/0', '::/0'],
  },
  rotation: { session_key_seconds: 120, session_key_bytes: null },
  routing: { strategy: 'auto', reasons: [] },
  notices: [],
} satisfies ConnectResponse;

/** The AllowedIPs line's CIDRs. */
const allowedOf = (text: string) =>
  /^AllowedIPs = (.*)$/m
    .exec(text)![1]!
    .split(', ')
    .map((c) => ipaddr.parseCIDR(c));
const inTunnel = (text: string, address: string) => {
  const a = ipaddr.parse(address);
  return allowedOf(text).some(([net, len]) => net.kind() === a.kind() && a.match(net, len));
};

describe('wg-quick configuration', () => {
  it('carries everything the official apps need, and a placeholder for the key', () => {
    const text = renderWgQuick(answer, 'phone');
    expect(text).toContain(`\n${WIREGUARD_PRIVATE_KEY_PLACEHOLDER}\n`);
    expect(text).not.toMatch(/^PrivateKey/m);
    expect(text).toContain('Address = 10.64.0.9/32, fd66:6572:7279::9/128\n');
    expect(text).toContain('DNS = 10.64.0.1\n');
    expect(text).toContain('MTU = 1420\n');
    expect(text).toContain('PublicKey = NODEKEY=\n');
    expect(text).toContain('AllowedIPs = 0.0.0.0/0, ::/0\n');
    expect(text).toContain('Endpoint = 203.0.113.7:51820\n');
    expect(text).toContain('PersistentKeepalive = 25\n');
  });

  it('names the resolvers the account holder chose', () => {
    const text = renderWgQuick(answer, 'phone', { dns: ['9.9.9.9', '2620:fe::fe'] });
    expect(text).toContain('DNS = 9.9.9.9, 2620:fe::fe\n');
  });

  it('keeps the LAN out of the tunnel on request, and DNS and the gateway in it', () => {
    const lan = renderWgQuick(answer, 'phone', { allowLan: true });
    for (const local of [
      '10.1.2.3',
      '172.16.0.1',
      '172.31.255.254',
      '192.168.1.1',
      '169.254.10.10',
      '224.0.0.251',
      'fd12::1',
      'fe80::1',
      'ff02::fb',
    ])
      expect(inTunnel(lan, local), local).toBe(false);
    for (const away of [
      '1.1.1.1',
      '9.255.255.255',
      '11.0.0.0',
      '172.15.255.255',
      '172.32.0.0',
      '192.167.255.255',
      '192.169.0.0',
      '203.0.113.9',
      '2001:db8::1',
      'fbff:ffff::1',
    ])
      expect(inTunnel(lan, away), away).toBe(true);
    // The relay's resolver and gateway (10.64.0.1 is inside 10.0.0.0/8) stay in the tunnel.
    expect(inTunnel(lan, '10.64.0.1')).toBe(true);
    expect(inTunnel(lan, 'fd66:6572:7279::1')).toBe(true);
    expect(inTunnel(lan, '10.64.0.2')).toBe(false);
    // A chosen resolver on a private address goes through the tunnel too: DNS never leaks.
    const chosen = renderWgQuick(answer, 'phone', { allowLan: true, dns: ['192.168.7.53'] });
    expect(inTunnel(chosen, '192.168.7.53')).toBe(true);
    expect(inTunnel(chosen, '192.168.7.54')).toBe(false);
  });

  it('leaves out exactly the LAN ranges, in the fewest blocks', () => {
    const v4 = allowedIpsExcluding(['0.0.0.0/0'], LAN_CIDRS);
    // The Android app's "exclude private IPs" list, less 169.254.0.0/16 (link-local here too).
    expect(v4).toEqual([
      '0.0.0.0/5',
      '8.0.0.0/7',
      '11.0.0.0/8',
      '12.0.0.0/6',
      '16.0.0.0/4',
      '32.0.0.0/3',
      '64.0.0.0/2',
      '128.0.0.0/3',
      '160.0.0.0/5',
      '168.0.0.0/8',
      '169.0.0.0/9',
      '169.128.0.0/10',
      '169.192.0.0/11',
      '169.224.0.0/12',
      '169.240.0.0/13',
      '169.248.0.0/14',
      '169.252.0.0/15',
      '169.255.0.0/16',
      '170.0.0.0/7',
      '172.0.0.0/12',
      '172.32.0.0/11',
      '172.64.0.0/10',
      '172.128.0.0/9',
      '173.0.0.0/8',
      '174.0.0.0/7',
      '176.0.0.0/4',
      '192.0.0.0/9',
      '192.128.0.0/11',
      '192.160.0.0/13',
      '192.169.0.0/16',
      '192.170.0.0/15',
      '192.172.0.0/14',
      '192.176.0.0/12',
      '192.192.0.0/10',
      '193.0.0.0/8',
      '194.0.0.0/7',
      '196.0.0.0/6',
      '200.0.0.0/5',
      '208.0.0.0/4',
      '240.0.0.0/4',
    ]);
    const v6 = allowedIpsExcluding(['::/0'], LAN_CIDRS);
    expect(v6[0]).toBe('::/1');
    expect(v6).toContain('fe00::/9');
    expect(v6).not.toContain('fc00::/7');
    // What is kept goes back once, and only where nothing covers it already.
    const kept = allowedIpsExcluding(['0.0.0.0/0'], LAN_CIDRS, ['1.1.1.1', '10.64.0.1']);
    expect(kept.filter((c) => !v4.includes(c))).toEqual(['10.64.0.1/32']);
    expect(kept.indexOf('10.64.0.1/32')).toBe(kept.indexOf('8.0.0.0/7') + 1);
  });

  // How the readers of these files split lines: wg-quick (bash `read`), the Windows and
  // Android apps (\n, \r\n, \r), and the Apple apps (every Unicode newline).
  const SPLITTERS: Record<string, RegExp> = {
    'wg-quick': /\n/,
    android: /\r\n|\r|\n/,
    apple: /\r\n|[\n\v\f\r\u0085\u2028\u2029]/,
  };
  const SEPARATORS = ['\n', '\r', '\r\n', '\v', '\f', '\u0085', '\u2028', '\u2029'];

  it('keeps a hostile device name on its comment line for every reader', () => {
    const clean = renderWgQuick(answer, 'phone');
    for (const sep of SEPARATORS) {
      const name = `x${sep}DNS = 9.9.9.9${sep}[Peer]${sep}AllowedIPs = 0.0.0.0/1${sep}#`;
      const text = renderWgQuick(answer, name);
      for (const [reader, split] of Object.entries(SPLITTERS)) {
        const lines = text.split(split);
        expect(lines.length, `${reader} ${JSON.stringify(sep)}`).toBe(clean.split(split).length);
        expect(lines.filter((l) => /^\s*DNS\s*=/.test(l))).toEqual(['DNS = 10.64.0.1']);
        expect(lines.filter((l) => /^\s*\[Peer\]/.test(l))).toHaveLength(1);
        expect(lines[1]).toMatch(/^# Ferry: x DNS = 9\.9\.9\.9 \[Peer\] AllowedIPs/);
      }
    }
  });

  it('drops controls, separators and bidi overrides from any value, keeping emoji whole', () => {
    expect(oneLine('a\u0000b\u001b[31mc\u202ed\u2066e\u200ff')).toBe('a b [31mc d e f');
    expect(oneLine('Zoë’s 👩‍💻 laptop')).toBe('Zoë’s 👩‍💻 laptop');
    expect(oneLine(51820)).toBe('51820');
  });
});

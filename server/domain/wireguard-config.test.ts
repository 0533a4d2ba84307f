// The wg-quick rendering: every field from the connect answer, the key check, and a QR code.
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ConnectResponse } from '../../contracts/index.js';
import { oneLine, publicKeyOf, qrSvg, renderWgQuick } from './wireguard-config.js';

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

describe('wg-quick configuration', () => {
  it('carries everything the official apps need', () => {
    const text = renderWgQuick(answer, 'phone', 'PRIVATE=');
    expect(text).toContain('PrivateKey = PRIVATE=\n');
    expect(text).toContain('Address = 10.64.0.9/32, fd66:6572:7279::9/128\n');
    expect(text).toContain('DNS = 10.64.0.1\n');
    expect(text).toContain('PublicKey = NODEKEY=\n');
    expect(text).toContain('AllowedIPs = 0.0.0.0/0, ::/0\n');
    expect(text).toContain('Endpoint = 203.0.113.7:51820\n');
    expect(text).toContain('PersistentKeepalive = 25\n');
  });

  it('leaves the private key to the user when none is given', () => {
    expect(renderWgQuick(answer, 'phone', undefined)).toMatch(/^# PrivateKey = </m);
    expect(renderWgQuick(answer, 'phone', undefined)).not.toMatch(/^PrivateKey/m);
  });

  it('derives public keys as WireGuard does, and refuses malformed private keys', () => {
    const { privateKey, publicKey } = generateKeyPairSync('x25519');
    const priv = privateKey
      .export({ type: 'pkcs8', format: 'der' })
      .subarray(-32)
      .toString('base64');
    const pub = publicKey.export({ type: 'spki', format: 'der' }).subarray(-32).toString('base64');
    expect(publicKeyOf(priv)).toBe(pub);
    expect(publicKeyOf('short')).toBeUndefined();
    expect(publicKeyOf(Buffer.alloc(33).toString('base64'))).toBeUndefined();
  });

  it('draws a QR code as SVG', async () => {
    const svg = await qrSvg(renderWgQuick(answer, 'phone', 'PRIVATE='));
    expect(svg).toMatch(/^<svg /);
    expect(svg.length).toBeGreaterThan(1000);
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
    const clean = renderWgQuick(answer, 'phone', 'PRIVATE=');
    for (const sep of SEPARATORS) {
      const name = `x${sep}DNS = 9.9.9.9${sep}[Peer]${sep}AllowedIPs = 0.0.0.0/1${sep}#`;
      const text = renderWgQuick(answer, name, 'PRIVATE=');
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

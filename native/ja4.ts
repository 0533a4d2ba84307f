// JA4, FoxIO's TLS client fingerprint (github.com/FoxIO-LLC/ja4, technical_details/JA4.md), of a
// parsed ClientHello: what the censor's tls-fingerprint profile allowlists, and what other tests
// compare Ferry's hello with a browser's by.
import { createHash } from 'node:crypto';

import { isGrease, type ClientHello } from './client-hello.js';

const hex4 = (v: number): string => v.toString(16).padStart(4, '0');
const hash12 = (s: string): string =>
  s === '' ? '000000000000' : createHash('sha256').update(s).digest('hex').slice(0, 12);
const two = (n: number): string => String(Math.min(n, 99)).padStart(2, '0');

const VERSIONS: Record<number, string> = {
  0x0304: '13',
  0x0303: '12',
  0x0302: '11',
  0x0301: '10',
  0x0300: 's3',
  0x0002: 's2',
  0xfeff: 'd1',
  0xfefd: 'd2',
  0xfefc: 'd3',
};

function version(hello: ClientHello): string {
  const offered = hello.supportedVersions.filter((v) => !isGrease(v));
  const v = offered.length ? Math.max(...offered) : hello.legacyVersion;
  return VERSIONS[v] ?? '00';
}

const alnum = (c: number): boolean =>
  (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);

/** First and last character of the first ALPN value; their hex nibbles when not alphanumeric. */
function alpnCode(hello: ClientHello): string {
  const first = hello.alpn[0];
  if (first === undefined || first.length === 0) return '00';
  const b = Buffer.from(first, 'latin1');
  const [a, z] = [b[0]!, b[b.length - 1]!];
  if (alnum(a) && alnum(z)) return String.fromCharCode(a, z);
  const h = b.toString('hex');
  return h[0]! + h[h.length - 1]!;
}

export interface Ja4Parts {
  /** e.g. t13d1516h2 */
  a: string;
  /** The sorted cipher suites, comma-separated hex (JA4_r's second part). */
  ciphers: string;
  /** The sorted extensions without SNI and ALPN, then `_` and the signature algorithms. */
  extensions: string;
}

/** The parts JA4 hashes (JA4_r, "raw"): what to print when two fingerprints differ. */
export function ja4Parts(hello: ClientHello, protocol: 't' | 'q' = 't'): Ja4Parts {
  const ciphers = hello.cipherSuites.filter((c) => !isGrease(c));
  const exts = hello.extensions.map((e) => e.type).filter((t) => !isGrease(t));
  const a =
    protocol +
    version(hello) +
    (hello.serverName !== undefined ? 'd' : 'i') +
    two(ciphers.length) +
    two(exts.length) +
    alpnCode(hello);
  const sortedExts = exts
    .filter((t) => t !== 0x0000 && t !== 0x0010)
    .sort((x, y) => x - y)
    .map(hex4)
    .join(',');
  const sigs = hello.signatureAlgorithms.filter((s) => !isGrease(s)).map(hex4);
  return {
    a,
    ciphers: [...ciphers]
      .sort((x, y) => x - y)
      .map(hex4)
      .join(','),
    extensions: sigs.length ? `${sortedExts}_${sigs.join(',')}` : sortedExts,
  };
}

/** JA4_r: the parts in the clear, `a_ciphers_extensions`. */
export function ja4Raw(hello: ClientHello, protocol: 't' | 'q' = 't'): string {
  const p = ja4Parts(hello, protocol);
  return `${p.a}_${p.ciphers}_${p.extensions}`;
}

/** JA4 of a ClientHello (`t` over TCP, `q` in a QUIC Initial). */
export function ja4(hello: ClientHello, protocol: 't' | 'q' = 't'): string {
  const p = ja4Parts(hello, protocol);
  return `${p.a}_${hash12(p.ciphers)}_${hash12(p.extensions)}`;
}

/** JA4 from a JA4_r string (published fingerprints give both: a check of the hashing). */
export function ja4FromRaw(raw: string): string {
  const [a, ciphers, ...rest] = raw.split('_');
  return `${a}_${hash12(ciphers ?? '')}_${hash12(rest.join('_'))}`;
}

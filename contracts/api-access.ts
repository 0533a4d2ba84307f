// How the client reaches its control plane (API access methods): straight (`direct`), through
// any relay of the signed relay list (`relays`, inside the TLS transport's camouflage), or
// through a proxy the user gives (`socks5://`, `http://`). `auto`: direct first, then the others,
// remembering per network what got through. The setting (`api_access`), its words and parsing.
import { z } from 'zod';

export const API_METHOD_KINDS = ['direct', 'relays', 'socks5', 'http'] as const;
export type ApiMethodKind = (typeof API_METHOD_KINDS)[number];

/** One method: a kind, and a proxy's URL for socks5 and http. */
export type ApiMethod =
  | { kind: 'direct' }
  | { kind: 'relays' }
  | { kind: 'socks5' | 'http'; url: string; host: string; port: number };

/** What the words of a method say, for `api-access list` and the status (no credentials). */
export function describeApiMethod(m: ApiMethod): string {
  return m.kind === 'direct' || m.kind === 'relays' ? m.kind : `${m.kind}://${m.host}:${m.port}`;
}

/** The name a method goes by in commands and the status: its words without credentials. */
export const apiMethodName = describeApiMethod;

const PROXY_HELP =
  'a proxy URL socks5://[user:password@]host:port or http://host:port (an IP address or a name; no path)';

/**
 * Parses a method's words: `direct`, `relays`, or a proxy URL. Throws a TypeError saying what is
 * accepted; never quotes a password back.
 */
export function parseApiMethod(text: string): ApiMethod {
  const word = text.trim();
  const lower = word.toLowerCase();
  if (lower === 'direct' || lower === 'relays') return { kind: lower };
  let url: URL;
  try {
    url = new URL(word);
  } catch {
    throw new TypeError(`not a method: direct, relays, or ${PROXY_HELP}`);
  }
  const kind = url.protocol === 'socks5:' ? 'socks5' : url.protocol === 'http:' ? 'http' : null;
  if (!kind) throw new TypeError(`a proxy is ${PROXY_HELP}`);
  if (!url.hostname || !url.port)
    throw new TypeError(`a proxy needs a host and a port: ${PROXY_HELP}`);
  if ((url.pathname !== '' && url.pathname !== '/') || url.search || url.hash)
    throw new TypeError(`a proxy URL has no path, query or fragment: ${PROXY_HELP}`);
  if (kind === 'http' && (url.username || url.password))
    throw new TypeError('an http proxy takes no user name or password here: use socks5 for those');
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const auth = url.username ? `${url.username}${url.password ? `:${url.password}` : ''}@` : '';
  const shown = host.includes(':') ? `[${host}]` : host;
  return { kind, url: `${kind}://${auth}${shown}:${url.port}`, host, port: Number(url.port) };
}

/** The user name and password of a socks5 method's URL (decoded), if any. */
export function proxyCredentials(m: ApiMethod): { user: string; password: string } | null {
  if (m.kind !== 'socks5') return null;
  const url = new URL(m.url);
  if (!url.username) return null;
  return { user: decodeURIComponent(url.username), password: decodeURIComponent(url.password) };
}

/** The setting: `auto`, or one method to use only. */
export const ApiAccessSetting = z
  .string()
  .transform((s, ctx) => {
    if (s.trim().toLowerCase() === 'auto') return 'auto';
    try {
      const m = parseApiMethod(s);
      return m.kind === 'direct' || m.kind === 'relays' ? m.kind : m.url;
    } catch (e) {
      ctx.addIssue({ code: 'custom', message: `auto, ${(e as Error).message}` });
      return z.NEVER;
    }
  })
  .meta({
    description:
      'How the control plane is reached: auto (direct first, then through relays or the proxy in use, remembered per network), direct, relays, or a socks5:// or http:// proxy.',
  });

/** The service's Ed25519 public key (base64 of its 32 raw bytes): what a relay list is checked with. */
export const ServiceKey = z
  .string()
  .regex(/^[A-Za-z0-9+/]{43}=$/, 'base64 of 32 bytes (ferry-server --print-public-key prints it)')
  .meta({ description: "The service's public key, which signs its relay list." });

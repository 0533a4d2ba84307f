// ferry-relay's TLS transport options (--tls-port, --cover-site HOST[:PORT], --tls-server-name),
// checked together: what each needs, and the server name clients put in their hello.
import net from 'node:net';
import { isTlsServerName } from '../../contracts/tls-server-name.js';

/** The cover site as given: a DNS name or an address, and its HTTPS port. */
export interface CoverSite {
  host: string;
  port: number;
}

export interface TlsTransportOptions {
  /** TCP port the relay serves the TLS transport on. */
  port: number;
  cover: CoverSite;
  /** The name clients put in their hello (registered as tls_server_name), lower case. */
  serverName: string;
}

const HTTPS_PORT = 443;

function portOf(text: string, what: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < 1 || n > 65535) throw new Error(`${what}: a port number 1-65535`);
  return n;
}

/**
 * HOST[:PORT], where HOST is a DNS name or an IP address (an IPv6 address in brackets when a
 * port follows); PORT 443 when absent. Throws an Error that says what is wrong.
 */
export function parseCoverSite(value: string): CoverSite {
  const text = value.trim();
  let host = text;
  let port = HTTPS_PORT;
  const bracketed = /^\[([^\]]+)\](?::(.*))?$/.exec(text);
  if (bracketed) {
    host = bracketed[1]!;
    if (net.isIPv6(host) === false) throw new Error(`${host} is not an IPv6 address`);
    if (bracketed[2] !== undefined) port = portOf(bracketed[2], text);
    return { host, port };
  }
  // More than one colon and no brackets: an IPv6 address without a port.
  if (text.split(':').length === 2) {
    const at = text.lastIndexOf(':');
    host = text.slice(0, at);
    port = portOf(text.slice(at + 1), text);
  }
  if (net.isIP(host) === 0 && !isTlsServerName(host))
    throw new Error(`${host || '(empty)'} is neither a DNS name nor an IP address`);
  return { host: net.isIP(host) === 0 ? host.toLowerCase() : host, port };
}

/** What a server name option must be: a DNS name (lower-cased, as browsers send it). */
export function parseTlsServerName(value: string): string {
  const name = value.trim();
  if (!isTlsServerName(name))
    throw new Error(
      `${name || '(empty)'} is not a DNS name (a TLS hello carries a name, never an address)`,
    );
  return name.toLowerCase();
}

/**
 * The TLS transport's options, checked together; null without --tls-port. Throws an Error that
 * lists everything missing or in conflict.
 */
export function tlsTransportOptions(o: {
  tlsPort?: number | undefined;
  coverSite?: CoverSite | undefined;
  tlsServerName?: string | undefined;
  ferryPort?: number | undefined;
}): TlsTransportOptions | null {
  if (o.tlsPort === undefined) {
    const stray = [
      ...(o.coverSite ? ['--cover-site'] : []),
      ...(o.tlsServerName ? ['--tls-server-name'] : []),
    ];
    if (stray.length > 0)
      throw new Error(
        `${stray.join(' and ')} ${stray.length > 1 ? 'are' : 'is'} only for the TLS transport: give --tls-port too`,
      );
    return null;
  }
  const missing = [
    ...(o.coverSite ? [] : ['--cover-site HOST[:PORT] (where strangers are handed)']),
    ...(o.ferryPort === undefined ? ['--ferry-port PORT (the Ferry server it carries)'] : []),
  ];
  if (missing.length > 0) throw new Error(`--tls-port needs ${missing.join(' and ')}`);
  const cover = o.coverSite!;
  if (o.tlsPort === o.ferryPort)
    throw new Error(
      `--tls-port ${o.tlsPort} is the Ferry port, where its TCP transport listens: choose another`,
    );
  let serverName = o.tlsServerName;
  if (serverName === undefined) {
    if (net.isIP(cover.host) !== 0)
      throw new Error(
        `--cover-site ${cover.host} is an address: give --tls-server-name, the cover site's name that clients put in their hello`,
      );
    serverName = cover.host.toLowerCase();
  }
  return { port: o.tlsPort, cover, serverName };
}

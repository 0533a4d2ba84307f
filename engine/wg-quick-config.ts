// wg-quick configs for the official WireGuard apps: the control plane's read into allow-listed,
// checked fields, and the config a phone imports written from those fields alone. The service's
// text is never passed on: wg-quick runs PostUp and its kin as root, and Table or FwMark change
// how the phone routes.
import { isIPv4, isIPv6 } from 'node:net';
import { rawKey } from './wireguard-keys.js';

export interface WgQuickConfig {
  interface: {
    /** CIDRs (a bare address is written with its full prefix). */
    addresses: string[];
    /** Resolver addresses; none: the phone keeps its own. */
    dns: string[];
    mtu: number | undefined;
  };
  peer: {
    publicKey: string;
    presharedKey: string | undefined;
    allowedIps: string[];
    /** `host:port`, an IPv6 host in brackets. */
    endpoint: string;
    /** Seconds; undefined or 0: off. */
    persistentKeepalive: number | undefined;
  };
}

/** Why a config was refused: a user-safe sentence naming the line or field. */
export class WgQuickConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WgQuickConfigError';
  }
}

const MTU_RANGE = [576, 9000] as const;

/** The fields read, by section, under the name the writer uses; whether one may repeat. */
const FIELDS = {
  interface: { Address: 'list', DNS: 'list', MTU: 'one' },
  peer: {
    PublicKey: 'one',
    PresharedKey: 'one',
    AllowedIPs: 'list',
    Endpoint: 'one',
    PersistentKeepalive: 'one',
  },
} as const;
type Section = keyof typeof FIELDS;

/**
 * Characters that end a line for some reader of the file though not for wg-quick (which splits
 * on LF only): CR (the Android app), VT, FF, NEL, LS and PS (the Apple apps), and every other
 * control but the tab. A line that holds one would be read differently by two readers: refused.
 */
const FOREIGN_LINE_BREAK = /[\p{Cc}\p{Zl}\p{Zp}]/u;

function refuse(message: string): never {
  throw new WgQuickConfigError(message);
}

/** Text of the config as a message quotes it: cut short, anything unprintable a `?`. */
function named(text: string): string {
  const shown = text.replace(/\p{C}/gu, '?');
  return shown.length > 32 ? `${shown.slice(0, 32)}…` : shown;
}

/** An IP address (no zone), or null. */
function ipVersion(text: string): 4 | 6 | null {
  if (isIPv4(text)) return 4;
  if (!text.includes('%') && isIPv6(text)) return 6;
  return null;
}

/** A CIDR, with a bare address given its full prefix (as wg-quick reads one). */
function cidr(text: string, field: string): string {
  const slash = text.indexOf('/');
  const address = slash === -1 ? text : text.slice(0, slash);
  const version = ipVersion(address);
  if (version === null) refuse(`${field} holds ${named(text)}, which is not an IP address`);
  const max = version === 4 ? 32 : 128;
  if (slash === -1) return `${address}/${max}`;
  const prefix = text.slice(slash + 1);
  if (!/^\d{1,3}$/.test(prefix) || Number(prefix) > max)
    refuse(`${field} holds ${named(text)}, whose prefix length is not 0 to ${max}`);
  return `${address}/${Number(prefix)}`;
}

function key(text: string, field: string): string {
  if (rawKey(text) === null) refuse(`${field} is not a key (32 bytes in base64)`);
  return text;
}

function integer(text: string, field: string, min: number, max: number): number {
  if (!/^\d{1,5}$/.test(text) || Number(text) < min || Number(text) > max)
    refuse(`${field} is ${named(text)}, not a number from ${min} to ${max}`);
  return Number(text);
}

/** A DNS name as hosts have them: letters, digits and hyphens in dot-separated labels. */
const HOST_NAME =
  /^(?=.{1,253}$)(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)*[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

function endpoint(text: string): string {
  const bracketed = /^\[([^\]]+)\]:(\d{1,5})$/.exec(text);
  const plain = /^([^:[\]]+):(\d{1,5})$/.exec(text);
  const [, host, port] = bracketed ?? plain ?? refuse(`Endpoint ${named(text)} is not host:port`);
  const fits = bracketed ? ipVersion(host!) === 6 : ipVersion(host!) === 4 || HOST_NAME.test(host!);
  if (!fits) refuse(`Endpoint ${named(text)} names no IP address or host name`);
  integer(port!, 'the Endpoint’s port', 1, 65535);
  return text;
}

function list(value: string, field: string): string[] {
  const items = value.split(',').map((v) => v.trim());
  if (items.some((v) => v === '')) refuse(`${field} has an empty item`);
  return items;
}

/** A section's fields as read, by canonical name. */
type Read = Map<string, string[]>;

/**
 * Reads a wg-quick config the control plane rendered. Refuses (WgQuickConfigError) anything but
 * one [Interface] and one [Peer] holding the allow-listed fields: a field or section outside the
 * list, a private key (the service never holds one), a field given twice, a line that readers
 * would split differently, and a missing or malformed value. Comments and blank lines are read
 * past, letter case and CRLF line ends accepted, as wg-quick does.
 */
export function parseWgQuickConfig(text: string): WgQuickConfig {
  const sections: Partial<Record<Section, Read>> = {};
  let section: Section | undefined;
  const lines = text.split('\n');
  for (const [i, raw] of lines.entries()) {
    const at = `line ${i + 1}`;
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    const odd = FOREIGN_LINE_BREAK.exec(line.replaceAll('\t', ' '));
    if (odd) {
      const code = odd[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
      refuse(`${at} holds U+${code}, a line break or control character to some readers`);
    }
    const content = line.replace(/#.*$/, '').trim();
    if (content === '') continue;
    const header = /^\[(.*)\]$/.exec(content);
    if (header) {
      const name = header[1]!.trim().toLowerCase();
      if (name !== 'interface' && name !== 'peer')
        refuse(`${at} begins a section [${named(header[1]!)}] this client does not pass on`);
      if (sections[name])
        refuse(`${at} begins a second [${name === 'peer' ? 'Peer' : 'Interface'}]`);
      section = name;
      sections[name] = new Map();
      continue;
    }
    const eq = content.indexOf('=');
    if (eq === -1) refuse(`${at} is neither a [section] nor key = value`);
    const given = content.slice(0, eq).trim();
    const value = content.slice(eq + 1).trim();
    const current = section && sections[section];
    if (!section || !current) refuse(`${at} (${named(given)}) is outside any section`);
    if (section === 'interface' && given.toLowerCase() === 'privatekey')
      refuse(`${at} holds a PrivateKey: a device’s key is made on the device, never the service’s`);
    const field = Object.keys(FIELDS[section]).find(
      (f) => f.toLowerCase() === given.toLowerCase(),
    ) as keyof (typeof FIELDS)[Section] | undefined;
    if (!field) refuse(`${at} holds ${named(given)}, a field this client does not pass on`);
    const kind = (FIELDS[section] as Record<string, 'one' | 'list'>)[field];
    const values = current.get(field) ?? [];
    if (kind === 'one' && values.length > 0) refuse(`${at} gives ${field} a second time`);
    current.set(field, [...values, ...(kind === 'list' ? list(value, field) : [value])]);
  }
  const iface = sections.interface ?? refuse('the config has no [Interface]');
  const peer = sections.peer ?? refuse('the config has no [Peer]');
  const one = (read: Read, field: string, where: string) =>
    read.get(field)?.[0] ?? refuse(`the ${where} has no ${field}`);
  const addresses = (iface.get('Address') ?? []).map((a) => cidr(a, 'Address'));
  if (addresses.length === 0) refuse('the [Interface] has no Address');
  const allowedIps = (peer.get('AllowedIPs') ?? []).map((a) => cidr(a, 'AllowedIPs'));
  if (allowedIps.length === 0) refuse('the [Peer] has no AllowedIPs');
  const dns = (iface.get('DNS') ?? []).map((d) =>
    ipVersion(d) === null ? refuse(`DNS holds ${named(d)}, which is not an IP address`) : d,
  );
  const mtu = iface.get('MTU')?.[0];
  const keepalive = peer.get('PersistentKeepalive')?.[0];
  const psk = peer.get('PresharedKey')?.[0];
  return {
    interface: {
      addresses,
      dns,
      mtu: mtu === undefined ? undefined : integer(mtu, 'MTU', ...MTU_RANGE),
    },
    peer: {
      publicKey: key(one(peer, 'PublicKey', '[Peer]'), 'PublicKey'),
      presharedKey: psk === undefined ? undefined : key(psk, 'PresharedKey'),
      allowedIps,
      endpoint: endpoint(one(peer, 'Endpoint', '[Peer]')),
      persistentKeepalive:
        keepalive === undefined || keepalive.toLowerCase() === 'off'
          ? undefined
          : integer(keepalive, 'PersistentKeepalive', 0, 65535),
    },
  };
}

/**
 * The config a phone imports: the fields of `config` and the private key made on this host,
 * nothing else, in one order. Throws RangeError on a malformed key (a bug: keys made here).
 */
export function writeWgQuickConfig(config: WgQuickConfig, privateKey: string): string {
  if (rawKey(privateKey) === null) throw new RangeError('not a WireGuard private key');
  const { interface: iface, peer } = config;
  const lines = [
    '[Interface]',
    `PrivateKey = ${privateKey}`,
    `Address = ${iface.addresses.join(', ')}`,
    ...(iface.dns.length > 0 ? [`DNS = ${iface.dns.join(', ')}`] : []),
    ...(iface.mtu === undefined ? [] : [`MTU = ${iface.mtu}`]),
    '',
    '[Peer]',
    `PublicKey = ${peer.publicKey}`,
    ...(peer.presharedKey === undefined ? [] : [`PresharedKey = ${peer.presharedKey}`]),
    `AllowedIPs = ${peer.allowedIps.join(', ')}`,
    `Endpoint = ${peer.endpoint}`,
    ...(peer.persistentKeepalive ? [`PersistentKeepalive = ${peer.persistentKeepalive}`] : []),
  ];
  return `${lines.join('\n')}\n`;
}

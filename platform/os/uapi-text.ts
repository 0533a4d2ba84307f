// WireGuard's cross-platform userspace API (UAPI, https://www.wireguard.com/xplatform/) as text:
// the `set=1` request, the `get=1` reply read into typed fields, the errno that ends every reply,
// and keys between base64 (ours) and hex (UAPI's). The socket I/O is uapi.ts's (one client for
// the relay and the engine).

/** The whole `get=1` request, with the blank line that ends it. */
export const UAPI_GET_REQUEST = 'get=1\n\n';

/**
 * A UAPI failure: `errno` is the reply's (a negative errno from the device), the transport's own
 * code (ENOENT: no socket yet, ECONNREFUSED: nobody serves it, ETIMEDOUT), or EPROTO for a reply
 * that is not UAPI text. Messages never quote a value from the reply: it could be a key.
 */
export class UapiError extends Error {
  constructor(
    readonly errno: number | string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'UapiError';
  }
}

// ---- keys ---------------------------------------------------------------------------------------

/** Exactly 32 bytes in canonical base64 (the last character carries no stray bits). */
const BASE64_KEY = /^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=$/;
const HEX_KEY = /^[0-9a-f]{64}$/;

/** UAPI's form of a base64 key (64 lower-case hex digits). TypeError when it is not a key. */
export function uapiKeyToHex(base64: string): string {
  if (!BASE64_KEY.test(base64)) throw new TypeError('a WireGuard key is 32 bytes in base64');
  let hex = '';
  for (const c of atob(base64)) hex += c.charCodeAt(0).toString(16).padStart(2, '0');
  return hex;
}

/** The base64 form of a UAPI key. TypeError when it is not 64 lower-case hex digits. */
export function uapiKeyFromHex(hex: string): string {
  if (!HEX_KEY.test(hex)) throw new TypeError('a UAPI key is 64 hex digits');
  let binary = '';
  for (let i = 0; i < 64; i += 2) binary += String.fromCharCode(parseInt(hex.slice(i, i + 2), 16));
  return btoa(binary);
}

// ---- set=1 --------------------------------------------------------------------------------------

/** The device's own settings in a `set=1`; absent ones are left as they are. */
export interface UapiDeviceSettings {
  /** base64 */
  privateKey?: string;
  listenPort?: number;
  fwmark?: number;
  /** Removes every peer not named in the same request. */
  replacePeers?: boolean;
}

export interface UapiPeerSpec {
  /** base64 */
  publicKey: string;
  /** `host:port` with an IP address (IPv6 in brackets): UAPI takes no names. */
  endpoint?: string;
  /** Replaces the peer's allowed IPs (CIDR). */
  allowedIps: readonly string[];
  persistentKeepaliveSeconds?: number;
}

export type UapiPeerOp =
  { kind: 'upsert'; peer: UapiPeerSpec } | { kind: 'remove'; publicKey: string };

function inRange(n: number, max: number, what: string): number {
  if (!Number.isInteger(n) || n < 0 || n > max) throw new TypeError(what);
  return n;
}

/** A value on a UAPI line: a newline or `=` in it would start another key. */
function value(v: string): string {
  if (/[\n=]/.test(v)) throw new TypeError('a UAPI value holds no newline or "="');
  return v;
}

/**
 * The `set=1` request for device settings and peer changes, with the blank line that ends it.
 * Each upserted peer's allowed IPs replace its old ones. TypeError on a value UAPI cannot carry.
 */
export function formatUapiSet(device: UapiDeviceSettings, ops: readonly UapiPeerOp[] = []): string {
  const lines = ['set=1'];
  if (device.privateKey !== undefined) lines.push(`private_key=${uapiKeyToHex(device.privateKey)}`);
  if (device.listenPort !== undefined)
    lines.push(`listen_port=${inRange(device.listenPort, 65535, 'a listen port is 0..65535')}`);
  if (device.fwmark !== undefined)
    lines.push(`fwmark=${inRange(device.fwmark, 0xffffffff, 'a firewall mark is 0..2^32-1')}`);
  if (device.replacePeers) lines.push('replace_peers=true');
  for (const op of ops) {
    if (op.kind === 'remove') {
      lines.push(`public_key=${uapiKeyToHex(op.publicKey)}`, 'remove=true');
      continue;
    }
    const { peer } = op;
    lines.push(`public_key=${uapiKeyToHex(peer.publicKey)}`);
    if (peer.endpoint !== undefined) lines.push(`endpoint=${value(peer.endpoint)}`);
    if (peer.persistentKeepaliveSeconds !== undefined) {
      const s = inRange(
        peer.persistentKeepaliveSeconds,
        65535,
        'a keepalive interval is 0..65535 seconds',
      );
      lines.push(`persistent_keepalive_interval=${s}`);
    }
    lines.push('replace_allowed_ips=true');
    for (const ip of peer.allowedIps) lines.push(`allowed_ip=${value(ip)}`);
  }
  return `${lines.join('\n')}\n\n`;
}

// ---- replies ------------------------------------------------------------------------------------

/**
 * Splits a reply into its body and errno (every reply ends `errno=N` and a blank line); null
 * while the end has not arrived. A transport may pass only the reply's tail to find the end.
 */
export function uapiAnswerEnd(text: string): { body: string; errno: number } | null {
  const m = /(?:^|\n)errno=(-?\d+)\n\n$/.exec(text);
  if (!m) return null;
  return { body: text.slice(0, m.index + (text[m.index] === '\n' ? 1 : 0)), errno: Number(m[1]) };
}

export interface UapiPeer {
  /** base64 */
  publicKey: string;
  /** `host:port` as the device last saw the peer; null before any packet from it. */
  endpoint: string | null;
  allowedIps: string[];
  /** 0: off. */
  persistentKeepaliveSeconds: number;
  /** Wall-clock ms of the last completed handshake; null before the first. */
  lastHandshakeMs: number | null;
  rxBytes: number;
  txBytes: number;
}

/** A `get=1` reply: the device's settings and its peers (its private key is not kept). */
export interface UapiDevice {
  listenPort: number | null;
  fwmark: number | null;
  peers: UapiPeer[];
}

interface PeerDraft extends UapiPeer {
  sec: number;
  nsec: number;
}

type PeerNumber = 'persistentKeepaliveSeconds' | 'rxBytes' | 'txBytes' | 'sec' | 'nsec';
const PEER_NUMBERS = new Map<string, PeerNumber>([
  ['persistent_keepalive_interval', 'persistentKeepaliveSeconds'],
  ['rx_bytes', 'rxBytes'],
  ['tx_bytes', 'txBytes'],
  ['last_handshake_time_sec', 'sec'],
  ['last_handshake_time_nsec', 'nsec'],
]);
const DEVICE_NUMBERS = new Map<string, 'listenPort' | 'fwmark'>([
  ['listen_port', 'listenPort'],
  ['fwmark', 'fwmark'],
]);
/** Peer keys that are not numbers; `preshared_key` and `protocol_version` are not kept. */
const PEER_TEXT = new Set(['endpoint', 'allowed_ip', 'preshared_key', 'protocol_version']);

function finish(p: PeerDraft): UapiPeer {
  const { sec, nsec, ...peer } = p;
  return {
    ...peer,
    lastHandshakeMs: sec === 0 && nsec === 0 ? null : sec * 1000 + Math.floor(nsec / 1e6),
  };
}

function malformed(lineIndex: number, why: string): UapiError {
  return new UapiError('EPROTO', `UAPI get reply, line ${lineIndex + 1}: ${why}`);
}

/** An unsigned number (up to u64's 20 digits) of line `i`, named `key` in the error. */
function unsigned(v: string, key: string, i: number): number {
  if (!/^\d{1,20}$/.test(v)) throw malformed(i, `${key} is not a number`);
  return Number(v);
}

/**
 * Reads a `get=1` reply: its body, or the whole reply with its `errno=0` line. Device keys
 * come first, then each peer from its `public_key` line; a field a peer lacks keeps its empty
 * value (no endpoint, no handshake, 0 bytes). Keys this reader does not know are skipped.
 * Throws UapiError: EPROTO (with the line's number, never its value) for a line that is not
 * `key=value`, a number or key that does not read, a peer key before any peer, a device key
 * after one; the errno for a reply that ends with one other than 0.
 */
export function parseUapiGet(text: string): UapiDevice {
  const device: UapiDevice = { listenPort: null, fwmark: null, peers: [] };
  let peer: PeerDraft | undefined;
  let ended = false;
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line === '') continue;
    if (ended) throw malformed(i, 'text after the errno line');
    const eq = line.indexOf('=');
    if (eq <= 0) throw malformed(i, 'not a key=value line');
    const key = line.slice(0, eq);
    const v = line.slice(eq + 1);

    if (key === 'errno') {
      if (!/^-?\d{1,10}$/.test(v)) throw malformed(i, 'errno is not a number');
      const errno = Number(v);
      if (errno !== 0) throw new UapiError(errno, `UAPI get refused (errno ${errno})`);
      ended = true;
    } else if (key === 'public_key') {
      if (!HEX_KEY.test(v)) throw malformed(i, 'public_key is not 64 hex digits');
      if (peer) device.peers.push(finish(peer));
      peer = {
        publicKey: uapiKeyFromHex(v),
        endpoint: null,
        allowedIps: [],
        persistentKeepaliveSeconds: 0,
        lastHandshakeMs: null,
        rxBytes: 0,
        txBytes: 0,
        sec: 0,
        nsec: 0,
      };
    } else if (PEER_NUMBERS.has(key) || PEER_TEXT.has(key)) {
      if (!peer) throw malformed(i, `${key} before any public_key`);
      const field = PEER_NUMBERS.get(key);
      if (field) {
        const n = unsigned(v, key, i);
        if (field === 'nsec' && n >= 1e9) throw malformed(i, `${key} is not below one second`);
        peer[field] = n;
      } else if (key === 'endpoint') peer.endpoint = v;
      else if (key === 'allowed_ip') peer.allowedIps.push(v);
    } else if (DEVICE_NUMBERS.has(key)) {
      if (peer) throw malformed(i, `${key} after the first peer`);
      device[DEVICE_NUMBERS.get(key)!] = unsigned(v, key, i);
    }
  }
  if (peer) device.peers.push(finish(peer));
  return device;
}

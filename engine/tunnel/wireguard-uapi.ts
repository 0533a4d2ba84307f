// WireGuard's cross-platform userspace API (UAPI) as the client side needs it: the text of a
// `set=1` for one peer and of a `get=1` answer, and one exchange over wireguard-go's unix socket.
import net from 'node:net';
import { isIP } from 'node:net';

import { rawKey } from '../wireguard-keys.js';

/** UAPI keys are hex; the API's and the key store's are base64. TypeError when not a key. */
export function keyToHex(base64: string): string {
  const raw = rawKey(base64);
  if (!raw) throw new TypeError('a WireGuard key is 32 bytes in base64');
  return raw.toString('hex');
}

export function keyFromHex(hex: string): string {
  if (!/^[0-9a-f]{64}$/.test(hex)) throw new TypeError('a UAPI key is 64 hex digits');
  return Buffer.from(hex, 'hex').toString('base64');
}

/** `host:port` as UAPI wants an endpoint: an IP address (IPv6 in brackets), never a name. */
export function uapiEndpoint(address: string, port: number): string {
  const family = isIP(address);
  if (family === 0) throw new TypeError('a UAPI endpoint is an IP address');
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    throw new TypeError('a UAPI endpoint port is 1..65535');
  return family === 6 ? `[${address}]:${port}` : `${address}:${port}`;
}

export interface ClientDeviceConfig {
  /** base64 */
  privateKey: string;
  fwmark: number;
  peer: {
    /** base64 */
    publicKey: string;
    /** From uapiEndpoint. */
    endpoint: string;
    allowedIps: readonly string[];
    persistentKeepaliveSeconds: number;
  };
}

/** A value on a UAPI line: anything with a newline or `=` would start another key. */
function value(v: string): string {
  if (/[\n=]/.test(v)) throw new TypeError('a UAPI value holds no newline or "="');
  return v;
}

/**
 * The `set=1` request that makes the device exactly this: our key and mark, one peer (any other
 * is removed), its endpoint, allowed IPs and keepalive. Ends with the blank line UAPI expects.
 */
export function formatClientSet(c: ClientDeviceConfig): string {
  const keepalive = c.peer.persistentKeepaliveSeconds;
  if (!Number.isInteger(keepalive) || keepalive < 0 || keepalive > 65535)
    throw new TypeError('a keepalive interval is 0..65535 seconds');
  if (!Number.isInteger(c.fwmark) || c.fwmark < 0 || c.fwmark > 0xffffffff)
    throw new TypeError('a firewall mark is 0..2^32-1');
  const lines = [
    'set=1',
    `private_key=${keyToHex(c.privateKey)}`,
    `fwmark=${c.fwmark}`,
    'replace_peers=true',
    `public_key=${keyToHex(c.peer.publicKey)}`,
    `endpoint=${value(c.peer.endpoint)}`,
    `persistent_keepalive_interval=${keepalive}`,
    'replace_allowed_ips=true',
    ...c.peer.allowedIps.map((ip) => `allowed_ip=${value(ip)}`),
  ];
  return `${lines.join('\n')}\n\n`;
}

export const GET_REQUEST = 'get=1\n\n';

export interface PeerStatus {
  publicKey: string;
  /** Wall-clock ms of the last completed handshake; null before the first. */
  lastHandshakeMs: number | null;
  rxBytes: number;
  txBytes: number;
}

/** The peers of a `get=1` answer (the device's own lines are not needed here). */
export function parsePeers(text: string): PeerStatus[] {
  const peers: PeerStatus[] = [];
  let peer: (PeerStatus & { sec: number; nsec: number }) | undefined;
  const finish = () => {
    if (!peer) return;
    const { sec, nsec, ...rest } = peer;
    peers.push({
      ...rest,
      lastHandshakeMs: sec === 0 && nsec === 0 ? null : sec * 1000 + Math.floor(nsec / 1e6),
    });
  };
  for (const line of text.split('\n')) {
    const eq = line.indexOf('=');
    if (eq < 0) continue;
    const key = line.slice(0, eq);
    const v = line.slice(eq + 1);
    if (key === 'public_key') {
      finish();
      peer = {
        publicKey: keyFromHex(v),
        lastHandshakeMs: null,
        rxBytes: 0,
        txBytes: 0,
        sec: 0,
        nsec: 0,
      };
    } else if (!peer) continue;
    else if (key === 'last_handshake_time_sec') peer.sec = Number(v);
    else if (key === 'last_handshake_time_nsec') peer.nsec = Number(v);
    else if (key === 'rx_bytes') peer.rxBytes = Number(v);
    else if (key === 'tx_bytes') peer.txBytes = Number(v);
  }
  finish();
  return peers;
}

/**
 * Splits an answer into its body and errno (every answer ends `errno=N` and a blank line);
 * null while the end has not arrived.
 */
export function answerEnd(text: string): { body: string; errno: number } | null {
  const m = /(?:^|\n)errno=(-?\d+)\n\n$/.exec(text);
  if (!m) return null;
  return { body: text.slice(0, m.index + (text[m.index] === '\n' ? 1 : 0)), errno: Number(m[1]) };
}

/** A UAPI failure: `errno` from the answer, or the socket's own error code (ENOENT, ECONNREFUSED). */
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

/**
 * One request and its answer on a UAPI socket; resolves with the body of an `errno=0` answer.
 * A client device answers in a few lines, so the whole answer is kept.
 */
export function uapiExchange(
  socketPath: string,
  request: string,
  timeoutMs: number,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.createConnection(socketPath);
    let text = '';
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      fn();
    };
    const timer = setTimeout(
      () => settle(() => reject(new UapiError('ETIMEDOUT', `no UAPI answer in ${timeoutMs} ms`))),
      timeoutMs,
    );
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write(request));
    socket.on('data', (chunk: string) => {
      text += chunk;
      const end = answerEnd(text);
      if (!end) return;
      settle(() =>
        end.errno === 0
          ? resolve(end.body)
          : reject(
              new UapiError(end.errno, `wireguard-go refused the request (errno ${end.errno})`),
            ),
      );
    });
    socket.on('error', (e: NodeJS.ErrnoException) =>
      settle(() => reject(new UapiError(e.code ?? 'EIO', `UAPI socket: ${e.code ?? e.message}`))),
    );
    socket.on('close', () =>
      settle(() => reject(new UapiError('ECONNRESET', 'UAPI socket closed before the answer'))),
    );
  });
}

// WireGuard's cross-platform userspace API (UAPI) beyond its text (uapi-text.ts):
// one exchange over wireguard-go's unix socket, a client that sets and gets a device through
// any WireguardSystem (wireguard-go.ts, or its fake), and an endpoint in UAPI's form.
import net, { isIP } from 'node:net';

import {
  formatUapiSet,
  parseUapiGet,
  uapiAnswerEnd,
  UapiError,
  UAPI_GET_REQUEST,
  type UapiDevice,
  type UapiDeviceSettings,
  type UapiPeerOp,
} from './uapi-text.js';

/** Long enough for a relay's dump of 65,536 peers (tens of megabytes). */
export const UAPI_TIMEOUT_MS = 60_000;

/** `host:port` as UAPI wants an endpoint: an IP address (IPv6 in brackets), never a name. */
export function uapiEndpoint(address: string, port: number): string {
  const family = isIP(address);
  if (family === 0) throw new TypeError('a UAPI endpoint is an IP address');
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    throw new TypeError('a UAPI endpoint port is 1..65535');
  return family === 6 ? `[${address}]:${port}` : `${address}:${port}`;
}

/**
 * One request and its answer on a UAPI socket; resolves with the body of an `errno=0` answer.
 * Answers end with `errno=N` and a blank line; only the tail is searched for that end, so a dump
 * of many peers is read in one pass. Rejects with a UapiError whose errno is UAPI's or the
 * socket's code (ENOENT: no socket; ECONNREFUSED: nobody serves it; ETIMEDOUT; ECONNRESET).
 */
export function uapiExchange(
  socketPath: string,
  request: string,
  timeoutMs = UAPI_TIMEOUT_MS,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.createConnection(socketPath);
    const chunks: Buffer[] = [];
    let tail = '';
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
    socket.on('connect', () => socket.write(request));
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      tail = (tail + chunk.toString('latin1')).slice(-64);
      const end = uapiAnswerEnd(tail);
      if (!end) return;
      const { errno } = end;
      if (errno !== 0) {
        settle(() =>
          reject(new UapiError(errno, `wireguard-go refused the request (errno ${errno})`)),
        );
        return;
      }
      // The end is ASCII: as many bytes of the whole answer as it has characters in the tail.
      const all = Buffer.concat(chunks);
      const endBytes = tail.length - end.body.length;
      settle(() => resolve(all.subarray(0, all.length - endBytes).toString('utf8')));
    });
    socket.on('error', (e: NodeJS.ErrnoException) =>
      settle(() => reject(new UapiError(e.code ?? 'EIO', `UAPI socket: ${e.code ?? e.message}`))),
    );
    socket.on('close', () =>
      settle(() => reject(new UapiError('ECONNRESET', 'UAPI socket closed before the answer'))),
    );
  });
}

/** The one call a UAPI client needs of a WireguardSystem. */
export interface UapiTransport {
  exchange(interfaceName: string, request: string, timeoutMs: number): Promise<string>;
}

/** One WireGuard device's settings and peers, through its UAPI socket. */
export class UapiClient {
  constructor(
    private readonly transport: UapiTransport,
    readonly interfaceName: string,
    private readonly timeoutMs = UAPI_TIMEOUT_MS,
  ) {}

  /** Changes the device's settings and peers (each upserted peer's allowed IPs replaced). */
  async set(device: UapiDeviceSettings, ops: readonly UapiPeerOp[] = []): Promise<void> {
    await this.transport.exchange(this.interfaceName, formatUapiSet(device, ops), this.timeoutMs);
  }

  /** The device's settings and its peers as it reports them now. */
  async get(): Promise<UapiDevice> {
    return parseUapiGet(
      await this.transport.exchange(this.interfaceName, UAPI_GET_REQUEST, this.timeoutMs),
    );
  }
}

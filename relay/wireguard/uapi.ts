// The relay's side of the WireGuard UAPI: one request and its reply over the interface's unix
// socket, as wireguard-go serves it at /var/run/wireguard/<interface>.sock. The text itself
// (set=1, get=1, keys) is contracts/wireguard-uapi.ts.
import net from 'node:net';
import {
  formatUapiSet,
  parseUapiGet,
  uapiAnswerEnd,
  UapiError,
  UAPI_GET_REQUEST,
  type UapiDevice,
  type UapiDeviceSettings,
  type UapiPeerOp,
} from '../../contracts/index.js';

/**
 * One request/answer exchange on the socket; answers end with `errno=N` and a blank line. Only
 * the tail is searched for that end: a dump of 65,536 peers is tens of megabytes.
 */
export function exchange(socketPath: string, request: string, timeoutMs = 60_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.createConnection(socketPath);
    const chunks: Buffer[] = [];
    let tail = '';
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      fn();
    };
    const timer = setTimeout(
      () => socket.destroy(new Error(`UAPI ${socketPath}: no answer in ${timeoutMs} ms`)),
      timeoutMs,
    );
    socket.on('connect', () => socket.write(request));
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      tail = (tail + chunk.toString('latin1')).slice(-64);
      const end = uapiAnswerEnd(tail);
      if (!end) return;
      socket.end();
      const { errno } = end;
      if (errno !== 0) {
        settle(() => reject(new UapiError(errno, `UAPI ${socketPath}: errno ${errno}`)));
        return;
      }
      // The end is ASCII: as many bytes of the whole answer as it has characters in the tail.
      const all = Buffer.concat(chunks);
      const endBytes = tail.length - end.body.length;
      settle(() => resolve(all.subarray(0, all.length - endBytes).toString('utf8')));
    });
    socket.on('error', (e) => settle(() => reject(e)));
    socket.on('close', () =>
      settle(() => reject(new Error(`UAPI ${socketPath}: closed before the answer`))),
    );
  });
}

export class UapiClient {
  constructor(readonly socketPath: string) {}

  async set(device: UapiDeviceSettings, ops: readonly UapiPeerOp[] = []): Promise<void> {
    await exchange(this.socketPath, formatUapiSet(device, ops));
  }

  async get(): Promise<UapiDevice> {
    return parseUapiGet(await exchange(this.socketPath, UAPI_GET_REQUEST));
  }
}

// WireGuard's cross-platform userspace API (UAPI) as the client side needs it beyond the text
// (contracts/wireguard-uapi.ts): an endpoint in UAPI's form, and one exchange over wireguard-go's
// unix socket.
import net from 'node:net';
import { isIP } from 'node:net';

import { uapiAnswerEnd, UapiError } from '../../contracts/index.js';

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
 * A client device answers in a few lines, so the whole answer is kept. Rejects with a UapiError
 * whose errno is UAPI's or the socket's code (ENOENT, ECONNREFUSED, ETIMEDOUT).
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
      const end = uapiAnswerEnd(text);
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

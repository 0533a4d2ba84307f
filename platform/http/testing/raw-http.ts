// Test code: HTTP/1.1 spoken by hand over a socket, for what clients like fetch never send
// (malformed lines, unknown methods, Expect, bodies that keep coming after the answer).
import net from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface RawExchange {
  /** Every response read, interim ones (100 Continue) included, in order. */
  responses: RawResponse[];
  /** How the connection ended: our close, the server's FIN, or an error such as ECONNRESET. */
  ended: 'fin' | 'timeout' | `error:${string}`;
}

/** Parses what arrived into responses (interim ones have no body). */
export function parseResponses(raw: Buffer): RawResponse[] {
  const out: RawResponse[] = [];
  let rest = raw.toString('latin1');
  for (;;) {
    const headEnd = rest.indexOf('\r\n\r\n');
    if (headEnd < 0) break;
    const [statusLine, ...headerLines] = rest.slice(0, headEnd).split('\r\n');
    const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine ?? '')?.[1]);
    const headers: Record<string, string> = {};
    for (const line of headerLines) {
      const i = line.indexOf(':');
      headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
    }
    rest = rest.slice(headEnd + 4);
    let body = '';
    if (status >= 200 && headers['content-length'] !== undefined) {
      const n = Number(headers['content-length']);
      body = Buffer.from(rest.slice(0, n), 'latin1').toString('utf8');
      rest = rest.slice(n);
    }
    out.push({ status, headers, body });
  }
  return out;
}

/**
 * Sends `head`, then `body` in chunks whatever the server answers (as an uploading client
 * does), and closes our side only after the server has closed its own (a client that closes
 * first would have Node drop its request). Reads until the connection is closed or `waitMs`
 * pass, and says how it ended: `fin` for an orderly close, `error:ECONNRESET` (or EPIPE) when
 * the server reset it. Send `connection: close` where the server would keep it alive.
 */
export function rawExchange(
  port: number,
  head: string,
  opts: {
    body?: Buffer;
    chunk?: number;
    /** A pause between chunks: the upload goes on while the server answers. */
    pauseMs?: number;
    waitMs?: number;
  } = {},
): Promise<RawExchange> {
  return new Promise((resolve) => {
    const received: Buffer[] = [];
    let ended: RawExchange['ended'] | undefined;
    let error: string | undefined;
    // Half-open: the server's FIN does not stop our upload, as with a real client.
    const socket = net.connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    const finish = (how: RawExchange['ended']) => {
      if (ended) return;
      ended = how;
      clearTimeout(timer);
      socket.destroy();
      resolve({ responses: parseResponses(Buffer.concat(received)), ended: how });
    };
    const timer = setTimeout(() => finish('timeout'), opts.waitMs ?? 3_000);
    socket.on('data', (d) => received.push(d));
    socket.on('error', (e: NodeJS.ErrnoException) => (error ??= e.code ?? e.message));
    socket.on('close', () => finish(error ? `error:${error}` : 'fin'));
    let writing = true;
    // The server is done with us: once our upload is over, close our side too.
    socket.on('end', () => {
      if (!writing) socket.end();
    });
    socket.on('connect', async () => {
      socket.write(head);
      if (opts.body) {
        const size = opts.chunk ?? 16 * 1024;
        for (let i = 0; i < opts.body.length && !socket.destroyed; i += size) {
          if (!socket.write(opts.body.subarray(i, i + size)))
            await new Promise((r) => socket.once('drain', r));
          if (opts.pauseMs) await new Promise((r) => setTimeout(r, opts.pauseMs));
        }
      }
      writing = false;
      if (!socket.destroyed && socket.readableEnded) socket.end();
    });
  });
}

// A FetchLike (contracts/route-client.ts) that carries requests to the engine host's unix
// socket: the URL's host names the API (ferry.local), the socket is where it goes. Answers,
// event streams included, arrive as they are written. Built on node:http, which every netcli
// command loads anyway: undici (which Node 20's fetch needs to reach a unix socket) took
// longer to load than the rest of a command's start-up, and even the global Response and
// Headers load fetch's implementation on first use (~60 ms), so answers are not those either.
import { Agent, request, type ClientRequest, type IncomingMessage } from 'node:http';
import type { FetchLike } from '../../contracts/index.js';

export interface UnixFetch extends FetchLike {
  readonly socketPath: string;
  /** Drops the connections to the socket (open streams end). */
  close(): Promise<void>;
}

/** Statuses whose answers have no body. */
const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

/** What fetch rejects with when there is no answer: a TypeError whose cause says why. */
function fetchFailed(cause: unknown): TypeError {
  return new TypeError('fetch failed', { cause });
}

/** What a body stream fails with when the connection ends before the answer does. */
function terminated(cause: unknown): TypeError {
  return new TypeError('terminated', { cause });
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

function headerRecord(headers: RequestInit['headers']): Record<string, string> {
  if (!headers) return {};
  if (Symbol.iterator in headers) {
    return Object.fromEntries(headers as Iterable<[string, string]>);
  }
  return { ...(headers as Record<string, string>) };
}

/**
 * The answer's body as a web stream that follows the socket, paused while nobody reads. It
 * fails as fetch's does: with the abort's reason after an abort, else `terminated`.
 */
function bodyStream(res: IncomingMessage, abortedWith: () => unknown): ReadableStream<Uint8Array> {
  let done = false;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      const fail = (e: unknown) => {
        if (done) return;
        done = true;
        controller.error(abortedWith() ?? terminated(e));
      };
      res.on('data', (chunk: Buffer) => {
        if (done) return;
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        if ((controller.desiredSize ?? 0) <= 0) res.pause();
      });
      res.once('end', () => {
        if (done) return;
        done = true;
        controller.close();
      });
      res.on('error', fail);
      // Destroyed without an error (close() of the fetch): still not a whole answer.
      res.once('close', () => {
        if (!res.complete) fail(new Error('the connection closed'));
      });
      res.pause();
    },
    pull() {
      res.resume();
    },
    cancel() {
      done = true;
      res.destroy();
    },
  });
}

/** The answer's headers, read as a fetch Headers reads them (names in any case). */
class AnswerHeaders implements Pick<Headers, 'get' | 'has' | 'forEach'> {
  constructor(private readonly res: IncomingMessage) {}

  get(name: string): string | null {
    const value = this.res.headers[name.toLowerCase()];
    if (value === undefined) return null;
    return Array.isArray(value) ? value.join(', ') : value;
  }

  has(name: string): boolean {
    return this.res.headers[name.toLowerCase()] !== undefined;
  }

  forEach(callback: (value: string, key: string, parent: Headers) => void): void {
    for (const key of Object.keys(this.res.headers).sort()) {
      const value = this.get(key);
      if (value !== null) callback(value, key, this as unknown as Headers);
    }
  }
}

/**
 * The members of a fetch Response that route-client.ts and its callers read (status, headers,
 * the body as a web stream or as text/JSON), over node:http's answer.
 */
class Answer implements Pick<
  Response,
  'ok' | 'status' | 'statusText' | 'body' | 'bodyUsed' | 'text' | 'json' | 'arrayBuffer'
> {
  readonly ok: boolean;
  readonly status: number;
  readonly statusText: string;
  readonly headers: AnswerHeaders;
  readonly body: ReadableStream<Uint8Array> | null;
  private used = false;

  constructor(res: IncomingMessage, abortedWith: () => unknown) {
    this.status = res.statusCode ?? 0;
    this.ok = this.status >= 200 && this.status <= 299;
    this.statusText = res.statusMessage ?? '';
    this.headers = new AnswerHeaders(res);
    this.body = NULL_BODY_STATUSES.has(this.status) ? null : bodyStream(res, abortedWith);
    if (!this.body) res.resume();
  }

  get bodyUsed(): boolean {
    return this.used;
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    if (this.used || this.body?.locked) throw new TypeError('Body is unusable: already read');
    this.used = true;
    if (!this.body) return new ArrayBuffer(0);
    const chunks: Uint8Array[] = [];
    const reader = this.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
    }
    const whole = Buffer.concat(chunks);
    return whole.buffer.slice(whole.byteOffset, whole.byteOffset + whole.byteLength) as ArrayBuffer;
  }

  async text(): Promise<string> {
    return new TextDecoder().decode(await this.arrayBuffer());
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text()) as unknown;
  }
}

export function createUnixFetch(socketPath: string): UnixFetch {
  // Kept-alive connections are reused by the calls of one command; idle, they do not keep
  // the process alive (node:http's Agent unrefs them).
  const agent = new Agent({ keepAlive: true });
  const send = (url: string, init: RequestInit): Promise<Response> =>
    new Promise<Response>((resolve, reject) => {
      const signal = init.signal ?? undefined;
      if (signal?.aborted) {
        reject(abortReason(signal));
        return;
      }
      const headers = headerRecord(init.headers);
      const body = typeof init.body === 'string' ? init.body : undefined;
      if (init.body != null && body === undefined) {
        reject(new TypeError('unix-fetch sends only text bodies'));
        return;
      }
      if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
      let req: ClientRequest;
      try {
        req = request(url, { socketPath, agent, method: init.method ?? 'GET', headers });
      } catch (e) {
        reject(fetchFailed(e));
        return;
      }
      let answered: IncomingMessage | undefined;
      let aborted: unknown;
      const onAbort = () => {
        aborted = abortReason(signal!);
        reject(aborted);
        answered?.destroy();
        req.destroy();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      req.once('response', (res) => {
        answered = res;
        res.once('close', () => signal?.removeEventListener('abort', onAbort));
        // What route-client.ts reads of a Response, without loading Response (see the top).
        resolve(new Answer(res, () => aborted) as unknown as Response);
      });
      req.on('error', (e) => {
        if (!answered) signal?.removeEventListener('abort', onAbort);
        reject(fetchFailed(e));
      });
      req.end(body);
    });
  return Object.assign(send, {
    socketPath,
    close: async () => agent.destroy(),
  });
}

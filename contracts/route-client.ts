// A typed HTTP client derived from a route table: one method per route, its input and output
// typed by the route's zod schemas, every answer checked against them. The transport (fetch),
// the address and the credentials are injected: this module does no I/O of its own.
import type { z } from 'zod';
import { ApiError, errorFromAnswer } from './api-error.js';
import type { RouteDef } from './control-routes.js';
import { EventTooLargeError, readServerSentEvents, type ServerSentEvent } from './sse.js';

/** The part of `fetch` the client uses: tests pass a fake, the server's tests `app.inject`. */
export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

export interface RouteClientOptions {
  /** The server, with or without an API prefix (`http://h:8080`, `http://h:8080/api/v1`). */
  baseUrl: string;
  fetch: FetchLike;
  /**
   * The bearer token for routes that need one, asked for on each such call (a token can change
   * between calls); never sent to routes that need none.
   */
  token?: (() => string | undefined | Promise<string | undefined>) | undefined;
  /**
   * Default time for a whole call, answer included; a stream's until its headers. A route that
   * names its own (RouteDef.timeoutMs) keeps that.
   */
  timeoutMs?: number | undefined;
}

export interface RouteCallOptions {
  signal?: AbortSignal | undefined;
  /** This call's time limit, over the route's and the client's (a long poll needs longer). */
  timeoutMs?: number | undefined;
  /**
   * A stream's event whose data does not match its schema is handed here and left out, and the
   * stream goes on (an event follower drops it). Without it, such an event ends the stream with
   * `bad-response`.
   */
  onBadEvent?: ((error: ApiError) => void) | undefined;
}

export const DEFAULT_TIMEOUT_MS = 15_000;

const MiB = 1024 * 1024;
/**
 * The most bytes of one answer's body a client reads (a route may allow more: its
 * `maxAnswerBytes`). Past it the stream is let go and the call refused: a server, or whoever sits
 * between, cannot fill the client's memory (a 510 MB answer once left the engine at 3.1 GB).
 * Our largest JSON answers (node and device lists) are far below it.
 */
export const MAX_ANSWER_BYTES = 4 * MiB;

// ---- types derived from a route ---------------------------------------------------------------

/** Query values travel as text: a number is as good as its digits. */
type QueryValue<V> = V extends string ? (string extends V ? string | number : V) : V;
type QueryInput<Q> = { [K in keyof Q]: QueryValue<Q[K]> };

/** Whether every member of V may be left out. */
type AllOptional<V> = Partial<V> extends V ? true : false;

/** A member the call must give, or may leave out when its schema needs nothing in it. */
type Slot<K extends string, V> = AllOptional<V> extends true ? { [P in K]?: V } : { [P in K]: V };

type ParamsPart<R> = R extends { params: infer S extends z.ZodType }
  ? { params: z.input<S> }
  : { params?: never };
type QueryPart<R> = R extends { query: infer S extends z.ZodType }
  ? Slot<'query', QueryInput<z.input<S>>>
  : { query?: never };
type BodyPart<R> = R extends { body: infer S extends z.ZodType }
  ? Slot<'body', z.input<S>>
  : { body?: never };

/** What a call of route R sends: path parameters, query and body as its schemas take them. */
export type RoutePayload<R> = ParamsPart<R> & QueryPart<R> & BodyPart<R>;
export type RouteInput<R> = RoutePayload<R> & RouteCallOptions;

/** One event of a stream route: its name and its data, parsed by the route's schema for it. */
export type RouteEvent<R> = R extends { events: infer E extends Record<string, z.ZodType> }
  ? {
      [K in keyof E & string]: { event: K; data: z.output<E[K]>; id: string | undefined };
    }[keyof E & string]
  : ServerSentEvent;

/**
 * An open stream. Iterate it once for its events; the iteration ends when the server ends the
 * stream, `close()` is called or the call's signal aborts, and throws an ApiError when the
 * connection breaks (`unreachable`) or an event does not match its schema (`bad-response`).
 */
export interface EventStream<E> extends AsyncIterable<E> {
  readonly response: Response;
  close(): void;
}

export type RouteResult<R> = R extends { stream: string }
  ? EventStream<RouteEvent<R>>
  : R extends { response: infer S extends z.ZodType }
    ? z.output<S>
    : void;

export type RouteMethod<R> =
  AllOptional<RoutePayload<R>> extends true
    ? (input?: RouteInput<R>) => Promise<RouteResult<R>>
    : (input: RouteInput<R>) => Promise<RouteResult<R>>;

export type RouteClient<T extends Record<string, RouteDef>> = {
  readonly [K in keyof T]: RouteMethod<T[K]>;
};

interface AnyInput extends RouteCallOptions {
  params?: Record<string, unknown>;
  query?: Record<string, unknown>;
  body?: unknown;
}

// ---- addresses --------------------------------------------------------------------------------

/**
 * The API root for a base URL: kept when it already ends with one of `prefixes`, otherwise
 * the first prefix is added. Throws on a base that is not an http(s) URL (a setup mistake).
 */
export function apiRoot(baseUrl: string, prefixes: readonly [string, ...string[]]): string {
  const url = new URL(baseUrl);
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new TypeError(`not an http(s) URL: ${url.protocol}`);
  const root = `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
  return prefixes.some((p) => root.endsWith(p)) ? root : root + prefixes[0];
}

/** The URL of one call: path parameters filled in (escaped), the query appended. */
export function routeUrl(
  root: string,
  def: RouteDef,
  input: Pick<AnyInput, 'params' | 'query'> = {},
): string {
  const path = def.path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, (_, name: string) => {
    const value = input.params?.[name];
    if (value === undefined || value === null || value === '')
      throw new TypeError(`${def.method} ${def.path} needs the path parameter ${name}`);
    return encodeURIComponent(String(value));
  });
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(input.query ?? {})) {
    if (value === undefined || value === null) continue;
    for (const v of Array.isArray(value) ? value : [value]) query.append(key, String(v));
  }
  const search = query.toString();
  return `${root}${path}${search ? `?${search}` : ''}`;
}

// ---- calls ------------------------------------------------------------------------------------

/**
 * One call's cancellation: the caller's signal, the time limit, and (streams) close(). Which
 * came first decides the error: a timeout is not a cancellation, and neither is a broken
 * connection.
 */
class CallSignal {
  private readonly controller = new AbortController();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private reason: 'timeout' | 'aborted' | 'closed' | 'refused' | undefined;
  private readonly onAbort = () => this.abort('aborted');

  constructor(
    timeoutMs: number,
    private readonly outer: AbortSignal | undefined,
  ) {
    if (outer?.aborted) this.abort('aborted');
    else outer?.addEventListener('abort', this.onAbort, { once: true });
    if (!this.reason) this.timer = setTimeout(() => this.abort('timeout'), timeoutMs);
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Whether the call ended on purpose (the caller's signal, close()), not by a failure. */
  get endedByCaller(): boolean {
    return this.reason === 'aborted' || this.reason === 'closed';
  }

  abort(reason: 'timeout' | 'aborted' | 'closed' | 'refused'): void {
    if (this.reason) return;
    this.reason = reason;
    this.controller.abort();
  }

  stopTimer(): void {
    clearTimeout(this.timer);
  }

  release(): void {
    this.stopTimer();
    this.outer?.removeEventListener('abort', this.onAbort);
  }

  /** The error for a call that failed before a whole answer arrived. */
  failure(route: string, cause: unknown, timeoutMs: number): ApiError {
    if (this.reason === 'timeout')
      return new ApiError({
        code: 'timeout',
        detail: `no answer within ${timeoutMs} ms`,
        route,
        cause,
      });
    if (this.reason)
      return new ApiError({ code: 'aborted', detail: 'the call was cancelled', route, cause });
    const why = (cause as { cause?: { code?: unknown } } | undefined)?.cause?.code;
    if (typeof why === 'string' && UNTRUSTED_CERTIFICATE.test(why))
      return new ApiError({
        code: 'untrusted-certificate',
        detail: `the server's TLS certificate is not trusted (${why})`,
        route,
        cause,
      });
    return new ApiError({
      code: 'unreachable',
      detail: `no answer from the server${typeof why === 'string' ? ` (${why})` : ''}`,
      route,
      cause,
    });
  }
}

/** Node's (OpenSSL's) codes of a certificate that does not verify, and of a name it does not cover. */
const UNTRUSTED_CERTIFICATE =
  /^(?:ERR_TLS_CERT_ALTNAME_INVALID|UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT(?:_LOCALLY)?|SELF_SIGNED_CERT_IN_CHAIN|DEPTH_ZERO_SELF_SIGNED_CERT|CERT_[A-Z_]+)$/;

function badResponse(route: string, detail: string, status: number, cause?: unknown): ApiError {
  return new ApiError({ code: 'bad-response', detail, route, status, cause });
}

/** A byte count as people read it: whole MiB when it is, else bytes. */
function bytesInWords(n: number): string {
  return n % MiB === 0 ? `${n / MiB} MiB` : `${n} bytes`;
}

function tooLarge(route: string, status: number, limit: number): ApiError {
  return badResponse(
    route,
    `the server's answer is larger than ${bytesInWords(limit)}, the most read of one answer to ${route}`,
    status,
  );
}

/** The most of one answer of `def` a client reads. */
function answerLimit(def: RouteDef): number {
  return def.maxAnswerBytes ?? MAX_ANSWER_BYTES;
}

/** Parses JSON text with a schema; the error names the fields that are wrong, never values. */
function parseAnswer<S extends z.ZodType>(
  schema: S,
  text: string,
  route: string,
  status: number,
  what: string,
): z.output<S> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw badResponse(route, `${what} is not JSON`, status, e);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const fields = [...new Set(parsed.error.issues.map((i) => i.path.join('.') || '(root)'))];
    throw badResponse(
      route,
      `${what} does not match the contract at ${fields.slice(0, 5).join(', ')}`,
      status,
      parsed.error,
    );
  }
  return parsed.data;
}

interface Context {
  root: string;
  options: RouteClientOptions;
}

interface Sent {
  response: Response;
  call: CallSignal;
  route: string;
  timeoutMs: number;
  /** The most of the answer's body read. */
  limit: number;
}

async function send(ctx: Context, def: RouteDef, input: AnyInput, accept: string): Promise<Sent> {
  const route = `${def.method} ${def.path}`;
  const url = routeUrl(ctx.root, def, input);
  const headers: Record<string, string> = { accept };
  if (def.auth !== 'none') {
    const token = await ctx.options.token?.();
    if (token) headers.authorization = `Bearer ${token}`;
  }
  const hasBody = def.body !== undefined && input.body !== undefined;
  if (hasBody) headers['content-type'] = 'application/json';
  const timeoutMs = input.timeoutMs ?? def.timeoutMs ?? ctx.options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const call = new CallSignal(timeoutMs, input.signal);
  if (call.endedByCaller) {
    call.release();
    throw call.failure(route, input.signal?.reason, timeoutMs);
  }
  try {
    const response = await ctx.options.fetch(url, {
      method: def.method,
      headers,
      ...(hasBody ? { body: JSON.stringify(input.body) } : {}),
      signal: call.signal,
    });
    return { response, call, route, timeoutMs, limit: answerLimit(def) };
  } catch (e) {
    call.release();
    throw call.failure(route, e, timeoutMs);
  }
}

/**
 * The body's bytes, up to `limit`: an answer that says (Content-Length) or turns out to be
 * larger is refused the moment that is known, its stream let go (the connection with it).
 */
async function readCapped(sent: Sent): Promise<Uint8Array> {
  const { response, call, route, limit } = sent;
  const refuse = () => {
    // The call's signal ends the connection; cancelling the stream frees what it holds.
    call.abort('refused');
    return tooLarge(route, response.status, limit);
  };
  const declared = response.headers.get('content-length');
  if (declared !== null && /^\s*\d+\s*$/.test(declared) && Number(declared) > limit) {
    const e = refuse();
    await response.body?.cancel().catch(() => undefined);
    throw e;
  }
  if (!response.body) return new Uint8Array(0);
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      const e = refuse();
      await reader.cancel().catch(() => undefined);
      throw e;
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0]!;
  const whole = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    whole.set(chunk, at);
    at += chunk.byteLength;
  }
  return whole;
}

/** Reads the whole answer within the call's limits; a non-2xx answer becomes its ApiError. */
async function answerText(sent: Sent): Promise<string> {
  const { response, call, route, timeoutMs } = sent;
  let text: string;
  try {
    // As fetch's text() decodes: UTF-8, a BOM dropped, bad bytes replaced.
    text = new TextDecoder().decode(await readCapped(sent));
  } catch (e) {
    if (e instanceof ApiError) throw e;
    throw call.failure(route, e, timeoutMs);
  } finally {
    call.release();
  }
  if (!response.ok) throw errorFromAnswer(route, response.status, response.headers, text);
  return text;
}

async function callJson(ctx: Context, def: RouteDef, input: AnyInput): Promise<unknown> {
  const sent = await send(ctx, def, input, 'application/json');
  const text = await answerText(sent);
  if (!def.response) return undefined;
  return parseAnswer(def.response, text, sent.route, sent.response.status, 'the answer');
}

async function openStream(
  ctx: Context,
  def: RouteDef,
  input: AnyInput,
): Promise<EventStream<unknown>> {
  const sent = await send(ctx, def, input, def.stream ?? 'text/event-stream');
  const { response, call, route } = sent;
  if (!response.ok) await answerText(sent);
  const type = response.headers.get('content-type') ?? '';
  if (!type.toLowerCase().startsWith('text/event-stream') || !response.body) {
    call.release();
    await response.body?.cancel().catch(() => undefined);
    throw badResponse(
      route,
      `the answer is ${type || 'untyped'}, not an event stream`,
      response.status,
    );
  }
  // The time limit was for the answer to begin: a stream lasts as long as the caller wants.
  call.stopTimer();
  const body = response.body;
  const schemas = def.events;
  async function* events(): AsyncGenerator<unknown, void, undefined> {
    try {
      // The reader caps each event (sse.ts's MAX_EVENT_LENGTH), not the stream.
      for await (const e of readServerSentEvents(body)) {
        if (!schemas) {
          yield e;
          continue;
        }
        // An event this build does not know is left out: servers add events over time.
        const schema = schemas[e.event];
        if (!schema) continue;
        let data: unknown;
        try {
          data = parseAnswer(schema, e.data, route, response.status, `the ${e.event} event`);
        } catch (bad) {
          if (!input.onBadEvent || !(bad instanceof ApiError)) throw bad;
          input.onBadEvent(bad);
          continue;
        }
        yield { event: e.event, data, id: e.id };
      }
    } catch (e) {
      if (e instanceof ApiError) throw e;
      if (e instanceof EventTooLargeError)
        throw badResponse(
          route,
          `the server sent an event larger than ${bytesInWords(e.maxEventLength)}, the most read of one event`,
          response.status,
          e,
        );
      if (call.endedByCaller) return;
      throw call.failure(route, e, sent.timeoutMs);
    } finally {
      call.abort('closed');
      call.release();
    }
  }
  const iterator = events();
  return {
    response,
    // Also for a stream never iterated: its connection and the caller's signal are let go.
    close: () => {
      call.abort('closed');
      call.release();
    },
    [Symbol.asyncIterator]: () => iterator,
  };
}

/** A client with one method per route of `routes`, served under one of `prefixes`. */
export function createRouteClient<const T extends Record<string, RouteDef>>(
  routes: T,
  prefixes: readonly [string, ...string[]],
  options: RouteClientOptions,
): RouteClient<T> {
  const ctx: Context = { root: apiRoot(options.baseUrl, prefixes), options };
  const client: Record<string, (input?: AnyInput) => Promise<unknown>> = {};
  for (const [id, def] of Object.entries(routes)) {
    client[id] = (input = {}) =>
      def.stream ? openStream(ctx, def, input) : callJson(ctx, def, input);
  }
  return Object.freeze(client) as RouteClient<T>;
}

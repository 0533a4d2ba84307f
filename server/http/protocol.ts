// HTTP around the route table: reading bodies, refusing encodings, Expect: 100-continue, 404 and
// 405, shutting down, and what Fastify and Node refuse on their own. Every answer here is
// problem+json from the one error table, never a framework's own body.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyRequest, FastifyServerOptions } from 'fastify';
import type { Logger } from 'pino';
import { PROBLEM_CONTENT_TYPE } from '../../contracts/index.js';
import { FerryError } from '../domain/errors.js';
import type { AllowedMethods } from './allowed-methods.js';
import {
  closeGracefully,
  problemHeaders,
  problemOf,
  rawProblemResponse,
  sendProblem,
  statusOf,
} from './problems.js';
import type { RateLimits } from './rate-limits.js';
import type { RequestSignals } from './request-signals.js';

/** How long a connection we stopped reading keeps draining before it is closed for good. */
export const LINGER_MS = 2_000;
/** Fastify's limit on one path parameter; longer ones are answered 414. */
const MAX_PARAM_LENGTH = 100;
/** What a 503 while shutting down tells clients: another instance, or this one restarted. */
const SHUTDOWN_RETRY_AFTER_SECONDS = 5;

export interface ProtocolDeps {
  bodyLimit: number;
  signals: RequestSignals;
  limits: RateLimits | undefined;
  allowed: AllowedMethods;
  logger: Logger;
}

const payloadTooLarge = (limit: number) =>
  new FerryError('payload-too-large', `request bodies are limited to ${limit} bytes`);

/** Fastify's options: its own error bodies replaced by ours. */
export function serverOptions(deps: ProtocolDeps): FastifyServerOptions {
  return {
    // No framework logger: it would write request lines with client addresses.
    logger: false,
    trustProxy: false,
    bodyLimit: deps.bodyLimit,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    forceCloseConnections: 'idle',
    // Its 503 has a body of its own; ours comes from the onRequest hook below.
    return503OnClosing: false,
    frameworkErrors: (error, _request, reply) => {
      sendProblem(reply, frameworkProblem(error));
    },
    clientErrorHandler: (error, socket) =>
      onClientError(error as unknown as ClientError, socket, deps.allowed),
  };
}

/** Errors Fastify raises before a route runs: a path it cannot decode, a parameter too long. */
function frameworkProblem(error: FastifyError): FerryError {
  switch (error.code) {
    case 'FST_ERR_BAD_URL':
      return new FerryError('bad-request', 'the path is not valid (a malformed % escape?)');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new FerryError(
        'uri-too-long',
        `a path parameter is longer than ${MAX_PARAM_LENGTH} characters`,
      );
    default:
      return new FerryError('internal', 'something went wrong on our side');
  }
}

const clientErrorSockets = new WeakSet<Socket>();
const REQUEST_LINE = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+) (\S+) HTTP\/1\.[01]\r?\n/;

/** Node could not parse a request: answer once, then drain and close the connection. */
/** What Node's parser hands `clientError` (Fastify's type for it is not Node's). */
type ClientError = Error & { code?: string; rawPacket?: Buffer };

function onClientError(error: ClientError, socket: Socket, allowed: AllowedMethods): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  // The broken parser reports each further chunk too: the first answer is the only one.
  if (clientErrorSockets.has(socket)) return;
  clientErrorSockets.add(socket);
  const inFlight = (socket as Socket & { _httpMessage?: ServerResponse })._httpMessage;
  if (socket.writable && !inFlight?.headersSent) {
    let problem: FerryError;
    const headers: Record<string, string> = {};
    switch (error.code) {
      case 'ERR_HTTP_REQUEST_TIMEOUT':
        problem = new FerryError('request-timeout', 'the request did not arrive in time');
        break;
      case 'HPE_HEADER_OVERFLOW':
        problem = new FerryError('headers-too-large', 'the request headers are too large');
        break;
      case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
        problem = new FerryError('payload-too-large', 'the chunk extensions are too large');
        break;
      default: {
        // A method Node does not know, on a path we have: that path's methods.
        const line = REQUEST_LINE.exec(error.rawPacket?.toString('latin1') ?? '');
        const methods =
          error.code === 'HPE_INVALID_METHOD' && line ? allowed.of(line[2]!) : undefined;
        if (methods) {
          problem = methodNotAllowed(line![1]!, methods);
          headers.allow = methods.join(', ');
        } else {
          problem = new FerryError('bad-request', 'the request is not valid HTTP/1.1');
        }
      }
    }
    socket.write(rawProblemResponse(problem, headers));
  }
  closeGracefully(socket, LINGER_MS);
}

function notFound(request: FastifyRequest): FerryError {
  const path = request.url.split('?')[0]!;
  return new FerryError(
    'not-found',
    `no route ${request.method.slice(0, 32)} ${path.slice(0, 200)}`,
  );
}

function methodNotAllowed(method: string, methods: string[]): FerryError {
  return new FerryError(
    'method-not-allowed',
    `${method.slice(0, 32)} is not allowed here; this path takes ${methods.join(', ')}`,
  );
}

/** Writes a problem on a bare Node response (no Fastify request exists for it). */
function writeProblem(res: ServerResponse, error: FerryError): void {
  const body = JSON.stringify(problemOf(error));
  res.writeHead(statusOf(error.code), {
    ...problemHeaders(error),
    'content-type': `${PROBLEM_CONTENT_TYPE}; charset=utf-8`,
    'content-length': Buffer.byteLength(body),
    connection: 'close',
  });
  res.end(body);
}

function hasBody(request: IncomingMessage): boolean {
  return (
    request.headers['transfer-encoding'] !== undefined ||
    Number(request.headers['content-length'] ?? 0) > 0
  );
}

/** Content-Encoding values we read; a body in any other would be parsed as something else. */
function encodingAccepted(header: string | undefined): boolean {
  if (header === undefined) return true;
  return header
    .split(',')
    .map((e) => e.trim().toLowerCase())
    .every((e) => e === '' || e === 'identity');
}

/**
 * From here on, once the answer is sent the connection closes gracefully: used when we answer
 * before the request body has arrived, so what is still on its way must not reset the
 * connection under our answer.
 */
function closeAfterAnswer(request: FastifyRequest): void {
  const socket = request.raw.socket as Socket | undefined;
  if (!socket || typeof socket.destroySoon !== 'function') return;
  // Node ends a `connection: close` answer with destroySoon(); ours drains first.
  socket.destroySoon = () => closeGracefully(socket, LINGER_MS);
}

export function installProtocol(app: FastifyInstance, deps: ProtocolDeps): void {
  const { signals, limits, allowed, logger } = deps;

  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = String(body);
    // No body: the route's empty input. A JSON `null` is a value, and no route takes it.
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch {
      done(new FerryError('invalid-json', 'the request body is not valid JSON'), undefined);
    }
  });

  app.addHook('onRequest', async (request, reply) => {
    if (signals.closing) {
      return sendProblem(
        reply,
        new FerryError('unavailable', 'the service is shutting down; try again shortly', {
          retryAfterSeconds: SHUTDOWN_RETRY_AFTER_SECONDS,
        }),
      );
    }
    if (limits) {
      const retryAfter = await limits.take('ip', limits.addressKey(request.ip));
      if (retryAfter !== undefined) {
        return sendProblem(
          reply,
          new FerryError('rate-limited', `too many requests; retry in ${retryAfter} s`, {
            retryAfterSeconds: retryAfter,
          }),
        );
      }
    }
    // No route for this method: before Fastify looks at the body (QUERY without a content
    // type would be refused as a bad body, not a wrong method).
    if (request.is404) {
      const methods = allowed.of(request.url);
      return methods
        ? sendProblem(reply, methodNotAllowed(request.method, methods), {
            allow: methods.join(', '),
          })
        : sendProblem(reply, notFound(request));
    }
  });

  app.addHook('preParsing', async (request, reply, payload) => {
    if (request.method === 'GET' || request.method === 'HEAD' || !hasBody(request.raw))
      return payload;
    if (!encodingAccepted(request.headers['content-encoding'])) {
      throw new FerryError(
        'unsupported-content-encoding',
        'request bodies are read as sent: send them without Content-Encoding',
      );
    }
    // Expect: 100-continue (matched as Node matches it) is decided here, before any byte of
    // the body is asked for.
    if (/(?:^|\W)100-continue(?:$|\W)/i.test(request.headers.expect ?? '')) {
      if (Number(request.headers['content-length']) > request.routeOptions.bodyLimit) {
        throw payloadTooLarge(request.routeOptions.bodyLimit);
      }
      reply.raw.writeContinue();
    }
    return payload;
  });

  app.addHook('onSend', async (request, reply) => {
    // While shutting down, answers close their connection so that no idle keep-alive socket
    // holds the process open once in-flight requests are done.
    if (signals.closing) reply.header('connection', 'close');
    if (request.raw.complete === false && hasBody(request.raw)) {
      // Answered before the body arrived (too large, wrong type or encoding, refused early):
      // the rest must not be parsed as the next request, nor reset the connection.
      reply.header('connection', 'close');
      closeAfterAnswer(request);
    }
  });

  app.setErrorHandler((error, request, reply) => {
    if (error instanceof FerryError) {
      return sendProblem(
        reply,
        error,
        error.code === 'unsupported-content-encoding' ? { 'accept-encoding': 'identity' } : {},
      );
    }
    const status = (error as { statusCode?: number }).statusCode;
    if (status === 413) return sendProblem(reply, payloadTooLarge(request.routeOptions.bodyLimit));
    if (status === 415)
      return sendProblem(
        reply,
        new FerryError('unsupported-media-type', 'send JSON (content-type: application/json)'),
      );
    if (status !== undefined && status >= 400 && status < 500)
      return sendProblem(reply, new FerryError('bad-request', 'the request could not be read'));
    // A bug: log what it was, never who asked or what they sent.
    const bug = error as Error;
    logger.error({ err: { message: bug.message, stack: bug.stack } }, 'unhandled error');
    return sendProblem(reply, new FerryError('internal', 'something went wrong on our side'));
  });

  // Unknown paths are answered in onRequest above; this is Fastify's own last resort.
  app.setNotFoundHandler((request, reply) => sendProblem(reply, notFound(request)));

  const server = app.server as Server;
  // With a listener Node leaves 100 Continue to us (the preParsing hook above).
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) =>
    server.emit('request', req, res),
  );
  server.on('checkExpectation', (_req: IncomingMessage, res: ServerResponse) =>
    writeProblem(
      res,
      new FerryError('expectation-failed', 'the only Expect understood is 100-continue'),
    ),
  );
}

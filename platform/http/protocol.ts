// HTTP around a route table, the same for every room that serves one: JSON bodies only, read as
// sent (no Content-Encoding), Expect: 100-continue decided before the body is read, 404 and 405
// with Allow, what Fastify and Node refuse on their own, and shutting down. Every answer is
// problem+json from the room's one error table, never a framework's own body.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyRequest, FastifyServerOptions } from 'fastify';
import type { AllowedMethods } from './allowed-methods.js';
import { methodNotAllowed, onClientError, type ClientError } from './client-errors.js';
import { closeAfterAnswer } from './graceful-close.js';
import {
  HttpProblem,
  MAX_PARAM_LENGTH,
  answerOf,
  payloadTooLarge,
  type AnswerFor,
} from './http-problem.js';
import { sendProblem, writeProblem } from './problem-writers.js';

/** What a room plugs into the protocol: its limits, its paths, its error table, its guard. */
export interface HttpProtocolOptions {
  /** Request bodies above this are refused unread (413); a route may allow more. */
  bodyLimit: number;
  /** The methods of each known path: 405 with Allow for those, 404 for every other path. */
  allowed: AllowedMethods;
  answerFor: AnswerFor;
  /**
   * Runs first on every request, unknown paths included, and throws for one this listener
   * must not serve: starting or shutting down, a foreign Host or Origin, over a rate limit.
   */
  admit?: (request: FastifyRequest) => void | Promise<void>;
  /**
   * True once shutting down: answers close their connections, so that no idle keep-alive
   * socket holds the process open once the requests in flight are done.
   */
  closing: () => boolean;
}

/** Fastify's options: no logger (it writes request lines), its error bodies replaced by ours. */
export function serverOptions(options: HttpProtocolOptions): FastifyServerOptions {
  return {
    logger: false,
    trustProxy: false,
    bodyLimit: options.bodyLimit,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    forceCloseConnections: 'idle',
    // Its 503 has a body of its own; ours comes from the room's `admit`.
    return503OnClosing: false,
    frameworkErrors: (error, _request, reply) => {
      sendProblem(reply, answerOf(options.answerFor, error, options.bodyLimit));
    },
    clientErrorHandler: (error, socket) =>
      onClientError(error as unknown as ClientError, socket, options.allowed, options.answerFor),
  };
}

function notFound(request: FastifyRequest): HttpProblem {
  const path = request.url.split('?')[0]!;
  return new HttpProblem(
    'not-found',
    `no route ${request.method.slice(0, 32)} ${path.slice(0, 200)}`,
  );
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

export function installProtocol(app: FastifyInstance, options: HttpProtocolOptions): void {
  const { allowed } = options;

  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = String(body);
    // No body: the route's empty input. A JSON `null` is a value, and no route takes it.
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch {
      done(new HttpProblem('invalid-json', 'the request body is not valid JSON'), undefined);
    }
  });

  app.addHook('onRequest', async (request, reply) => {
    try {
      await options.admit?.(request);
      // No route for this method: before Fastify looks at the body (QUERY without a content
      // type would be refused as a bad body, not a wrong method).
      if (request.is404) {
        const methods = allowed.of(request.url);
        throw methods ? methodNotAllowed(request.method, methods) : notFound(request);
      }
    } catch (e) {
      return sendProblem(reply, answerOf(options.answerFor, e, options.bodyLimit));
    }
  });

  app.addHook('preParsing', async (request, reply, payload) => {
    if (request.method === 'GET' || request.method === 'HEAD' || !hasBody(request.raw))
      return payload;
    if (!encodingAccepted(request.headers['content-encoding'])) {
      throw new HttpProblem(
        'unsupported-content-encoding',
        'request bodies are read as sent: send them without Content-Encoding',
        { headers: { 'accept-encoding': 'identity' } },
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
    if (options.closing()) reply.header('connection', 'close');
    if (request.raw.complete === false && hasBody(request.raw)) {
      // Answered before the body arrived (too large, wrong type or encoding, refused early):
      // the rest must not be parsed as the next request, nor reset the connection.
      reply.header('connection', 'close');
      closeAfterAnswer(request.raw.socket as Socket | undefined);
    }
  });

  app.setErrorHandler((error, request, reply) =>
    sendProblem(reply, answerOf(options.answerFor, error, request.routeOptions.bodyLimit)),
  );

  // Unknown paths are answered in onRequest above; this is Fastify's own last resort.
  app.setNotFoundHandler((request, reply) =>
    sendProblem(reply, answerOf(options.answerFor, notFound(request), options.bodyLimit)),
  );

  const server = app.server as Server;
  // With a listener Node leaves 100 Continue to us (the preParsing hook above).
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) =>
    server.emit('request', req, res),
  );
  server.on('checkExpectation', (_req: IncomingMessage, res: ServerResponse) =>
    writeProblem(
      res,
      answerOf(
        options.answerFor,
        new HttpProblem('expectation-failed', 'the only Expect understood is 100-continue'),
        options.bodyLimit,
      ),
    ),
  );
}

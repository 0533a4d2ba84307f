// HTTP around the local API's routes: JSON bodies only, the request guard (Host, Origin), 404
// and 405 with Allow, each request part through its schema, and every refusal, Fastify's own
// included, as problem+json from the one error table.
import type {
  FastifyError,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  FastifyServerOptions,
} from 'fastify';
import type { z } from 'zod';
import { PROBLEM_CONTENT_TYPE } from '../../contracts/index.js';
import type { AllowedMethods } from './allowed-methods.js';
import { fieldErrors, type RequestPart } from './field-errors.js';
import { HostProblem, problemFor, type ProblemAnswer } from './problems.js';

/** Request bodies are small settings and names; anything larger is refused unread. */
export const BODY_LIMIT = 64 * 1024;

export interface ProtocolDeps {
  allowed: AllowedMethods;
  /** False while the socket is being secured and once shutting down: requests get 503. */
  serving: () => boolean;
  /**
   * Throws a HostProblem for a request this listener must not serve (Host, Origin, a missing
   * session); runs before anything else, unknown paths included.
   */
  guard: (request: FastifyRequest) => void;
  /** The answer to a bug (logged by the caller, never shown). */
  bug: (error: unknown, route?: string) => ProblemAnswer;
}

export function sendProblem(reply: FastifyReply, answer: ProblemAnswer): FastifyReply {
  return reply
    .code(answer.body.status)
    .headers(answer.headers)
    .type(PROBLEM_CONTENT_TYPE)
    .send(JSON.stringify(answer.body));
}

/** The answer for anything thrown on the way to or in a handler. */
export function answerFor(error: unknown, deps: ProtocolDeps, route?: string): ProblemAnswer {
  return (
    problemFor(error) ??
    problemFor(frameworkProblem(error as FastifyError)) ??
    deps.bug(error, route)
  );
}

/** Errors Fastify raises before a handler runs, as the API's problems. */
function frameworkProblem(error: FastifyError): HostProblem | undefined {
  if (error.code === 'FST_ERR_BAD_URL')
    return new HostProblem('bad-request', 'the path is not valid (a malformed % escape?)');
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH')
    return new HostProblem('uri-too-long', 'a path parameter is too long');
  switch (error.statusCode) {
    case 413:
      return new HostProblem(
        'payload-too-large',
        `request bodies are limited to ${BODY_LIMIT} bytes`,
      );
    case 415:
      return new HostProblem(
        'unsupported-media-type',
        'send JSON (content-type: application/json)',
      );
    default:
      return error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500
        ? new HostProblem('bad-request', 'the request could not be read')
        : undefined;
  }
}

function isEmpty(input: unknown): boolean {
  return (
    input === undefined ||
    (typeof input === 'object' && input !== null && Object.keys(input).length === 0)
  );
}

/** A request part through its route's schema; a route without one takes nothing there. */
export function parsePart(
  schema: z.ZodType | undefined,
  input: unknown,
  where: RequestPart,
): unknown {
  if (!schema) {
    if (isEmpty(input)) return undefined;
    const names = typeof input === 'object' && input !== null ? Object.keys(input) : [''];
    throw new HostProblem('validation-failed', `this route takes no ${where}`, {
      errors: names.map((field) => ({ field, message: `unknown field in the ${where}` })),
    });
  }
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const errors = fieldErrors(schema, parsed.error, where);
  const names = [...new Set(errors.map((e) => e.field || where))].join(', ');
  throw new HostProblem('validation-failed', `invalid ${where}: ${names}`, { errors });
}

/** Fastify's options: no logger (it writes request lines), its error bodies replaced by ours. */
export function serverOptions(deps: ProtocolDeps): FastifyServerOptions {
  return {
    logger: false,
    bodyLimit: BODY_LIMIT,
    forceCloseConnections: 'idle',
    return503OnClosing: false,
    frameworkErrors: (error, _request, reply) => {
      sendProblem(reply, answerFor(error, deps));
    },
  };
}

export function installProtocol(app: FastifyInstance, deps: ProtocolDeps): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = String(body);
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch {
      done(new HostProblem('invalid-json', 'the request body is not valid JSON'), undefined);
    }
  });

  app.addHook('onRequest', async (request, reply) => {
    try {
      if (!deps.serving()) {
        throw new HostProblem('unavailable', 'the engine host is starting or stopping', {
          headers: { 'retry-after': '1' },
        });
      }
      // Before anything else, unknown paths included: a foreign page learns nothing.
      deps.guard(request);
      if (request.is404) {
        const urlPath = request.url.split('?')[0]!;
        const method = request.method.slice(0, 16);
        const methods = deps.allowed.of(urlPath);
        if (!methods) {
          throw new HostProblem('not-found', `no route ${method} ${urlPath.slice(0, 200)}`);
        }
        throw new HostProblem(
          'method-not-allowed',
          `${method} is not allowed here; this path takes ${methods.join(', ')}`,
          { headers: { allow: methods.join(', ') } },
        );
      }
    } catch (e) {
      return sendProblem(reply, answerFor(e, deps));
    }
  });

  app.setErrorHandler((error, _request, reply) => sendProblem(reply, answerFor(error, deps)));
  // Unknown paths are answered in onRequest; this is Fastify's own last resort.
  app.setNotFoundHandler((_request, reply) =>
    sendProblem(reply, answerFor(new HostProblem('not-found', 'no such route'), deps)),
  );
}

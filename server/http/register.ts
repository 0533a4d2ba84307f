// Registers the route table under one prefix: auth, rate limits, input parsing, the handler,
// and the problem+json mapping of its failures.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  buildOpenApiDocument,
  controlRoutes,
  type RouteDef,
  type RouteId,
} from '../../contracts/index.js';
import { FerryError } from '../domain/errors.js';
import type { EventBus } from '../domain/event-bus.js';
import type { DeviceAuth } from '../store/devices-repo.js';
import type { Authenticator } from './auth.js';
import { streamEvents } from './events.js';
import type { Handler, HandlerTable, Services } from './handlers.js';
import { sendProblem } from './problems.js';
import type { RateLimits } from './rate-limits.js';
import { parseOrProblem } from './validation.js';

export interface RouteDeps {
  handlers: HandlerTable;
  services: Services;
  bus: EventBus;
  authenticator: Authenticator;
  limits: RateLimits | undefined;
  /** Aborted when the server begins to shut down: long polls and streams end. */
  shutdown: AbortSignal;
  /** Check every response against its schema (tests). */
  validateResponses: boolean;
}

/** Node heartbeats carry every fresh handshake of the node; everything else is small. */
const NODE_BODY_LIMIT = 16 * 1024 * 1024;
const SIGNUP_ROUTES: ReadonlySet<RouteId> = new Set(['createAccount', 'createSession']);

export function registerControlRoutes(app: FastifyInstance, deps: RouteDeps): void {
  let openapi: string | undefined;
  app.get('/openapi.json', async (_req, reply) => {
    openapi ??= JSON.stringify(buildOpenApiDocument(deps.services.version));
    return reply.type('application/json').send(openapi);
  });

  for (const [id, def] of Object.entries(controlRoutes) as [RouteId, RouteDef][]) {
    app.route({
      method: def.method,
      url: def.path,
      ...(def.auth === 'node' ? { bodyLimit: NODE_BODY_LIMIT } : {}),
      handler: async (request, reply) => {
        try {
          await serve(id, def, request, reply, deps);
        } catch (e) {
          if (!(e instanceof FerryError)) throw e;
          if (!reply.sent) sendProblem(reply, e);
        }
        return reply;
      },
    });
  }
}

async function serve(
  id: RouteId,
  def: RouteDef,
  request: FastifyRequest,
  reply: FastifyReply,
  deps: RouteDeps,
): Promise<void> {
  if (deps.limits && SIGNUP_ROUTES.has(id)) {
    await limit(deps.limits, 'signup', deps.limits.addressKey(request.ip), reply);
  }
  const auth = await deps.authenticator.authenticate(def.auth, request);
  if (deps.limits && def.auth === 'device') {
    await limit(deps.limits, 'account', `a${(auth as DeviceAuth).accountId}`, reply);
  }
  const parsed = {
    params: def.params ? unwrap(parseOrProblem(def.params, request.params, 'path')) : undefined,
    query: def.query ? unwrap(parseOrProblem(def.query, request.query, 'query')) : undefined,
    body: def.body ? unwrap(parseOrProblem(def.body, request.body ?? {}, 'body')) : undefined,
  };
  const signal =
    def.auth === 'node' || id === 'events' ? requestSignal(reply, deps.shutdown) : deps.shutdown;

  if (id === 'events') {
    await streamEvents(reply, auth as DeviceAuth, { ...deps.services, bus: deps.bus }, signal);
    return;
  }
  const handler = deps.handlers[id as Exclude<RouteId, 'events'>] as Handler<RouteDef>;
  const result = await handler({ ...parsed, auth, signal } as Parameters<Handler<RouteDef>>[0]);
  if (!result.ok) throw result.error;
  if (def.response === undefined) {
    reply.code(def.status).send();
    return;
  }
  if (deps.validateResponses) def.response.parse(result.value);
  reply.code(def.status).type('application/json').send(JSON.stringify(result.value));
}

function unwrap<T>(r: { ok: true; value: T } | { ok: false; error: FerryError }): T {
  if (!r.ok) throw r.error;
  return r.value;
}

async function limit(
  limits: RateLimits,
  kind: 'ip' | 'signup' | 'account',
  key: string,
  reply: FastifyReply,
): Promise<void> {
  const retryAfter = await limits.take(kind, key);
  if (retryAfter === undefined) return;
  reply.header('retry-after', String(retryAfter));
  throw new FerryError('rate-limited', `too many requests; retry in ${retryAfter} s`);
}

/** Aborts when the response ends or the client goes away, or when the server shuts down. */
function requestSignal(reply: FastifyReply, shutdown: AbortSignal): AbortSignal {
  const controller = new AbortController();
  const abort = () => {
    shutdown.removeEventListener('abort', abort);
    controller.abort();
  };
  shutdown.addEventListener('abort', abort, { once: true });
  reply.raw.once('close', abort);
  return controller.signal;
}

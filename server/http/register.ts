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
import { methodsOf } from './allowed-methods.js';
import type { Authenticator } from './auth.js';
import { streamEvents } from './events.js';
import type { Handler, HandlerTable, Services } from './handlers.js';
import { sendProblem } from './problems.js';
import type { RateLimits } from './rate-limits.js';
import type { RequestSignals } from './request-signals.js';
import { parseOrProblem } from './validation.js';

export interface RouteDeps {
  handlers: HandlerTable;
  services: Services;
  bus: EventBus;
  authenticator: Authenticator;
  limits: RateLimits | undefined;
  /** Each request's abort signal: ends with the request, or when the server shuts down. */
  signals: RequestSignals;
  /** Check every response against its schema (tests). */
  validateResponses: boolean;
}

/** Node heartbeats carry every fresh handshake of the node; everything else is small. */
const NODE_BODY_LIMIT = 16 * 1024 * 1024;
const SIGNUP_ROUTES: ReadonlySet<RouteId> = new Set(['createAccount', 'createSession']);

/** Routes outside the route table (for 405 answers: the methods each path has). */
export const EXTRA_ROUTES = [{ path: '/openapi.json', methods: ['GET', 'HEAD'] }];

export function registerControlRoutes(app: FastifyInstance, deps: RouteDeps): void {
  // The document names the regions and platforms that exist: rebuilt when they change.
  let openapi: { key: string; text: string } | undefined;
  app.get('/openapi.json', async (_req, reply) => {
    const inventory = deps.services.inventory;
    const view = await inventory.snapshot();
    const regions = view.regions.map((r) => ({ id: r.id, area: r.area }));
    const platforms = inventory.platforms.names(view.platforms);
    const key = JSON.stringify([regions, platforms]);
    if (openapi?.key !== key) {
      openapi = {
        key,
        text: JSON.stringify(buildOpenApiDocument(deps.services.version, { regions, platforms })),
      };
    }
    return reply.type('application/json').send(openapi.text);
  });

  for (const [id, def] of Object.entries(controlRoutes) as [RouteId, RouteDef][]) {
    app.route({
      method: def.method,
      url: def.path,
      exposeHeadRoute: methodsOf(def).includes('HEAD'),
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
    await limit(deps.limits, 'signup', deps.limits.addressKey(request.ip));
  }
  const auth = await deps.authenticator.authenticate(def.auth, request);
  if (deps.limits && def.auth === 'device') {
    await limit(deps.limits, 'account', `a${(auth as DeviceAuth).accountId}`);
  }
  const parsed = {
    params: def.params ? unwrap(parseOrProblem(def.params, request.params, 'path')) : undefined,
    query: def.query ? unwrap(parseOrProblem(def.query, request.query, 'query')) : undefined,
    // No body at all is an empty one; a JSON `null` is not (the schema refuses it).
    body: def.body
      ? unwrap(parseOrProblem(def.body, request.body === undefined ? {} : request.body, 'body'))
      : undefined,
  };
  const signal = deps.signals.forRequest(reply.raw);

  if (id === 'events') {
    await streamEvents(reply, auth as DeviceAuth, { ...deps.services, bus: deps.bus }, signal);
    return;
  }
  const handler = deps.handlers[id as Exclude<RouteId, 'events'>] as Handler<RouteDef>;
  // IPv4 clients of a dual-stack socket appear as ::ffff:a.b.c.d; the address they know is a.b.c.d.
  const clientAddress = request.ip.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/, '$1');
  const result = await handler({ ...parsed, auth, signal, clientAddress } as Parameters<
    Handler<RouteDef>
  >[0]);
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
): Promise<void> {
  const retryAfter = await limits.take(kind, key);
  if (retryAfter === undefined) return;
  throw new FerryError('rate-limited', `too many requests; retry in ${retryAfter} s`, {
    retryAfterSeconds: retryAfter,
  });
}

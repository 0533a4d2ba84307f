// The control API's route table under one prefix (platform/http registers it): auth, rate
// limits, input parsing, the handler, and the answer.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  buildOpenApiDocument,
  controlRoutes,
  type RouteDef,
  type RouteId,
} from '../../contracts/index.js';
import { FerryError } from '../domain/errors.js';
import type { EventBus } from '../domain/event-bus.js';
import type { DeviceAuth } from '../domain/ports/devices.js';
import { readParts, type PartOptions } from '../../platform/http/request-parts.js';
import type { RequestSignals } from '../../platform/http/request-signals.js';
import { checkedAnswer, registerRouteTable, sendAnswer } from '../../platform/http/route-table.js';
import type { AnswerFor } from '../../platform/http/http-problem.js';
import type { Authenticator } from './auth.js';
import { streamEvents } from './events.js';
import type { Handler, HandlerTable, Services } from './handlers.js';
import type { RateLimits } from './rate-limits.js';

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
  /** The error table (server/http/problems.ts), and the listener's body limit for 413s. */
  answerFor: AnswerFor;
  bodyLimit: number;
}

/** Node heartbeats carry every fresh handshake of the node; everything else is small. */
const NODE_BODY_LIMIT = 16 * 1024 * 1024;
const SIGNUP_ROUTES: ReadonlySet<RouteId> = new Set(['createAccount', 'createSession']);
/** A query or body a route declares none of is ignored, as it always was here. */
const PARTS: PartOptions = { undeclared: 'ignore' };

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

  registerRouteTable(app, {
    prefix: '',
    routes: controlRoutes as Record<RouteId, RouteDef>,
    answerFor: deps.answerFor,
    bodyLimit: deps.bodyLimit,
    bodyLimitOf: (def) => (def.auth === 'node' ? NODE_BODY_LIMIT : undefined),
    serve: (id, def, request, reply) => serve(id, def, request, reply, deps),
  });
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
  const parsed = readParts(def, request, PARTS);
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
  if (deps.validateResponses) checkedAnswer(id, def, result.value);
  sendAnswer(reply, def, result.value);
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

// The local API's routes on a Fastify app: one registration per entry of a route table (all of
// `localRoutes` on the socket; the faces' subset in the web graphical mode), each request part
// through its schema, the handler's answer checked against the route's, and every refusal
// problem+json from the one error table.
import type { ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { LocalRouteId, RouteDef } from '../../contracts/index.js';
import type { EngineApi } from '../engine-api.js';
import { methodsOf } from './allowed-methods.js';
import { EventStreams } from './event-stream.js';
import { answerFor, parsePart, sendProblem, type ProtocolDeps } from './http-protocol.js';
import type { LocalHandlers, StreamRouteId } from './local-handlers.js';

type AnyHandler = (input: {
  params: unknown;
  query: unknown;
  body: unknown;
  signal: AbortSignal;
}) => unknown;

export interface RouteRegistryOptions {
  prefix: string;
  routes: Partial<Record<LocalRouteId, RouteDef>>;
  handlers: LocalHandlers;
  engine: EngineApi;
  heartbeatMs: number;
  deps: ProtocolDeps;
}

/** What a host needs to shut its routes down: the calls in flight and the open streams. */
export interface RegisteredRoutes {
  /** Aborts every call in flight and ends every event stream. */
  abortAll(): void;
}

export function registerRoutes(
  app: FastifyInstance,
  options: RouteRegistryOptions,
): RegisteredRoutes {
  const { engine, handlers, deps } = options;
  const streams = new EventStreams();
  const streamHandlers: Record<StreamRouteId, (res: ServerResponse) => void> = {
    events: (res) => streams.serve(res, engine, options.heartbeatMs),
  };
  /** Each request's abort, for the engine's long calls (connect) and for shutdown. */
  const inFlight = new Set<AbortController>();

  const serve = async (
    id: LocalRouteId,
    def: RouteDef,
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<void> => {
    const params = parsePart(def.params, request.params, 'path');
    const query = parsePart(def.query, request.query, 'query');
    // No body at all is an empty one; a JSON `null` is not (the schema refuses it).
    const body = parsePart(
      def.body,
      def.body && request.body === undefined ? {} : request.body,
      'body',
    );
    if (def.stream) {
      reply.hijack();
      streamHandlers[id as StreamRouteId](reply.raw);
      return;
    }
    const controller = new AbortController();
    inFlight.add(controller);
    // The client went away before its answer: the engine stops what it was doing for it.
    const onClose = () => {
      if (!reply.raw.writableFinished) controller.abort();
    };
    reply.raw.once('close', onClose);
    try {
      const handler = handlers[id as keyof LocalHandlers] as unknown as AnyHandler;
      const value = await handler({ params, query, body, signal: controller.signal });
      if (def.response === undefined) {
        reply.code(def.status).send();
        return;
      }
      const answer = def.response.safeParse(value);
      if (!answer.success) {
        const fields = [...new Set(answer.error.issues.map((i) => i.path.join('.')))];
        throw new Error(`the engine's answer to ${id} does not match its schema at ${fields}`);
      }
      reply.code(def.status).type('application/json').send(JSON.stringify(answer.data));
    } finally {
      inFlight.delete(controller);
      if (reply.raw.writableFinished) reply.raw.off('close', onClose);
    }
  };

  // One registration per route of the table: a route without a handler stops the host here.
  for (const [id, def] of Object.entries(options.routes) as [LocalRouteId, RouteDef][]) {
    const has = def.stream
      ? typeof streamHandlers[id as StreamRouteId] === 'function'
      : typeof handlers[id as keyof LocalHandlers] === 'function';
    if (!has) throw new Error(`the local API route ${id} has no handler`);
    app.route({
      method: def.method,
      url: options.prefix + def.path,
      exposeHeadRoute: methodsOf(def).includes('HEAD'),
      handler: async (request, reply) => {
        try {
          await serve(id, def, request, reply);
        } catch (e) {
          if (!reply.sent && !reply.raw.headersSent) sendProblem(reply, answerFor(e, deps, id));
        }
        return reply;
      },
    });
  }

  return {
    abortAll() {
      for (const controller of inFlight) controller.abort();
      streams.closeAll();
    },
  };
}

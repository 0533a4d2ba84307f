// The local API's routes on a Fastify app (platform/http registers the table: all of
// `localRoutes` on the socket; the faces' subset in the web graphical mode): each request part
// through its schema, the handler's answer checked against the route's, and the event stream.
import type { ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { LocalRouteId, RouteDef } from '../../contracts/index.js';
import type { HttpProtocolOptions } from '../../platform/http/protocol.js';
import { readParts } from '../../platform/http/request-parts.js';
import { RequestSignals } from '../../platform/http/request-signals.js';
import { checkedAnswer, registerRouteTable, sendAnswer } from '../../platform/http/route-table.js';
import type { EngineApi } from '../engine-api.js';
import { EventStreams } from './event-stream.js';
import { LOCAL_PARTS } from './http-protocol.js';
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
  protocol: Pick<HttpProtocolOptions, 'answerFor' | 'bodyLimit'>;
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
  const { engine, handlers } = options;
  const streams = new EventStreams();
  const streamHandlers: Record<StreamRouteId, (res: ServerResponse) => void> = {
    events: (res) => streams.serve(res, engine, options.heartbeatMs),
  };
  /** Each call's abort: the client went away (the engine stops what it was doing), or shutdown. */
  const signals = new RequestSignals();

  // A route without a handler stops the host here.
  for (const [id, def] of Object.entries(options.routes) as [LocalRouteId, RouteDef][]) {
    const has = def.stream
      ? typeof streamHandlers[id as StreamRouteId] === 'function'
      : typeof handlers[id as keyof LocalHandlers] === 'function';
    if (!has) throw new Error(`the local API route ${id} has no handler`);
  }

  registerRouteTable(app, {
    prefix: options.prefix,
    routes: options.routes,
    answerFor: options.protocol.answerFor,
    bodyLimit: options.protocol.bodyLimit,
    serve: async (id, def, request, reply) => {
      const parts = readParts(def, request, LOCAL_PARTS);
      if (def.stream) {
        reply.hijack();
        streamHandlers[id as StreamRouteId](reply.raw);
        return;
      }
      const handler = handlers[id as keyof LocalHandlers] as unknown as AnyHandler;
      const value = await handler({ ...parts, signal: signals.forRequest(reply.raw) });
      sendAnswer(reply, def, checkedAnswer(id, def, value));
    },
  });

  return {
    abortAll() {
      signals.abortAll();
      streams.closeAll();
    },
  };
}

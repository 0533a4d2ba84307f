// The engine host's local API: HTTP over a unix socket, one route per entry of `localRoutes`
// (contracts/local-api.ts), each answered by the EngineApi through the handler table. Requests
// are validated with the route's schemas, answers checked against theirs, and every refusal is
// problem+json from the one error table (problems.ts).
import { rm } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import {
  LOCAL_API_PREFIXES,
  localRoutes,
  type LocalRouteId,
  type RouteDef,
} from '../../contracts/index.js';
import type { EngineApi } from '../engine-api.js';
import { AllowedMethods, methodsOf } from './allowed-methods.js';
import { EventStreams, HEARTBEAT_MS } from './event-stream.js';
import {
  answerFor,
  installProtocol,
  parsePart,
  sendProblem,
  serverOptions,
  type ProtocolDeps,
} from './http-protocol.js';
import { localHandlers, type LocalHandlers, type StreamRouteId } from './local-handlers.js';
import { internalProblem } from './problems.js';
import { prepareSocketPath, publishSocket } from './socket-file.js';

export { BODY_LIMIT } from './http-protocol.js';

/** How long requests in flight get to finish at shutdown before their connections are cut. */
const SHUTDOWN_GRACE_MS = 2_000;
const PREFIX = LOCAL_API_PREFIXES[0];

export interface LocalApiServerOptions {
  engine: EngineApi;
  socketPath: string;
  /** The group that may use the socket besides root (default `ferry`; null: none). */
  group?: string | null;
  /** Where bugs go; never a request's contents or an address. */
  log?: Pick<Logger, 'error'>;
  /** The event stream's heartbeat period (tests shorten it). */
  heartbeatMs?: number;
}

export interface LocalApiServer {
  readonly socketPath: string;
  /** The group the socket was given, or null when it kept its owner's. */
  readonly group: string | null;
  /** Ends event streams, aborts requests in flight, stops listening, removes the socket. */
  close(): Promise<void>;
}

type AnyHandler = (input: {
  params: unknown;
  query: unknown;
  body: unknown;
  signal: AbortSignal;
}) => unknown;

export async function startLocalApiServer(options: LocalApiServerOptions): Promise<LocalApiServer> {
  const { engine, socketPath, log } = options;
  await prepareSocketPath(socketPath);

  const handlers: LocalHandlers = localHandlers(engine);
  const streams = new EventStreams();
  const streamHandlers: Record<StreamRouteId, (res: ServerResponse) => void> = {
    events: (res) => streams.serve(res, engine, options.heartbeatMs ?? HEARTBEAT_MS),
  };
  /** Each request's abort, for the engine's long calls (connect) and for shutdown. */
  const inFlight = new Set<AbortController>();
  let state: 'starting' | 'serving' | 'closing' = 'starting';
  const deps: ProtocolDeps = {
    allowed: new AllowedMethods(PREFIX, localRoutes),
    serving: () => state === 'serving',
    bug: (error, route) => {
      const e = error as Error | undefined;
      log?.error({ route, err: { name: e?.name, message: e?.message, stack: e?.stack } }, 'bug');
      return internalProblem();
    },
  };

  const app = Fastify(serverOptions(deps));
  installProtocol(app, deps);

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
  for (const [id, def] of Object.entries(localRoutes) as [LocalRouteId, RouteDef][]) {
    const has = def.stream
      ? typeof streamHandlers[id as StreamRouteId] === 'function'
      : typeof handlers[id as keyof LocalHandlers] === 'function';
    if (!has) throw new Error(`the local API route ${id} has no handler`);
    app.route({
      method: def.method,
      url: PREFIX + def.path,
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

  const group = await publishSocket(
    socketPath,
    options.group === undefined ? 'ferry' : options.group,
    {
      listen: async (boundPath) => {
        await app.listen({ path: boundPath });
      },
      close: () => app.close(),
      secured: () => {
        state = 'serving';
      },
    },
  );

  let closed: Promise<void> | undefined;
  return {
    socketPath,
    group,
    close() {
      closed ??= (async () => {
        state = 'closing';
        for (const controller of inFlight) controller.abort();
        streams.closeAll();
        const grace = setTimeout(() => app.server.closeAllConnections(), SHUTDOWN_GRACE_MS);
        try {
          await app.close();
        } finally {
          clearTimeout(grace);
          await rm(socketPath, { force: true });
        }
      })();
      return closed;
    },
  };
}

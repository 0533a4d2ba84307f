// The engine host's local API: HTTP over a unix socket, one route per entry of `localRoutes`
// (contracts/local-api.ts), each answered by the EngineApi through the handler table. Requests
// are validated with the route's schemas, answers checked against theirs, and every refusal is
// problem+json from the one error table (problems.ts).
import { rm } from 'node:fs/promises';
import Fastify from 'fastify';
import type { Logger } from 'pino';
import { LOCAL_API_PREFIXES, localRoutes, type OpenGuiResponse } from '../../contracts/index.js';
import { AllowedMethods, pathsOf } from '../../platform/http/allowed-methods.js';
import { installProtocol, serverOptions } from '../../platform/http/protocol.js';
import { FerryError } from '../errors.js';
import type { EngineApi } from '../engine-api.js';
import { HEARTBEAT_MS } from './event-stream.js';
import { localProtocol } from './http-protocol.js';
import { localHandlers } from './local-handlers.js';
import { checkRequestOrigin } from './request-guard.js';
import { registerRoutes } from './route-registry.js';
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
  /** The web graphical mode (POST /gui); without it the route answers not-supported. */
  gui?: { open(): Promise<OpenGuiResponse> };
}

export interface LocalApiServer {
  readonly socketPath: string;
  /** The group the socket was given, or null when it kept its owner's. */
  readonly group: string | null;
  /** Ends event streams, aborts requests in flight, stops listening, removes the socket. */
  close(): Promise<void>;
}

export async function startLocalApiServer(options: LocalApiServerOptions): Promise<LocalApiServer> {
  const { engine, socketPath, log } = options;
  await prepareSocketPath(socketPath);

  let state: 'starting' | 'serving' | 'closing' = 'starting';
  const protocol = localProtocol({
    allowed: new AllowedMethods([PREFIX], pathsOf(localRoutes)),
    serving: () => state === 'serving',
    closing: () => state === 'closing',
    guard: checkRequestOrigin,
    log,
  });

  const app = Fastify(serverOptions(protocol));
  installProtocol(app, protocol);
  const routes = registerRoutes(app, {
    prefix: PREFIX,
    routes: localRoutes,
    handlers: localHandlers(engine, {
      openGui: async () => {
        if (!options.gui)
          throw new FerryError(
            'not-supported',
            'this engine host does not serve the graphical mode',
          );
        return options.gui.open();
      },
    }),
    engine,
    heartbeatMs: options.heartbeatMs ?? HEARTBEAT_MS,
    protocol,
  });

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
        routes.abortAll();
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

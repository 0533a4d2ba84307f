// The web graphical mode (netcli gui --web): the engine host serves the desktop app's renderer
// and the faces' part of the local API on 127.0.0.1, to browsers signed in with a one-time link.
// It starts with the first link asked for and lasts as long as the host. Every answer carries a
// strict CSP: the page may reach its own origin and nothing else.
import Fastify, { type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import {
  FACE_ROUTE_IDS,
  LOCAL_API_PREFIXES,
  RENDERER_CSP,
  localRoutes,
  type LocalRouteId,
  type OpenGuiResponse,
  type RouteDef,
} from '../../../contracts/index.js';
import type { EngineApi } from '../../engine-api.js';
import { FerryError } from '../../errors.js';
import { AllowedMethods } from '../allowed-methods.js';
import { HEARTBEAT_MS } from '../event-stream.js';
import { installProtocol, serverOptions, type ProtocolDeps } from '../http-protocol.js';
import { localHandlers } from '../local-handlers.js';
import { HostProblem, internalProblem } from '../problems.js';
import { registerRoutes, type RegisteredRoutes } from '../route-registry.js';
import { loadStaticFiles } from './static-files.js';
import { SESSION_PATH, WebGuard } from './web-guard.js';
import { WebSessions, sessionCookie } from './web-sessions.js';

const PREFIX = LOCAL_API_PREFIXES[0];
const LISTEN_HOST = '127.0.0.1';

const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': RENDERER_CSP,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'cache-control': 'no-store',
};

/** The routes a page may call: the faces' calls and the event stream. */
const WEB_ROUTES: Partial<Record<LocalRouteId, RouteDef>> = Object.fromEntries(
  [...FACE_ROUTE_IDS, 'events' as const].map((id) => [id, localRoutes[id]]),
);

const SPENT_LINK = `<!doctype html><meta charset="utf-8"><title>Ferry</title>
<p>This link has been used or has expired. Run <code>netcli gui</code> again to open Ferry.</p>\n`;

export interface WebUiOptions {
  engine: EngineApi;
  /** The built renderer (index.html, app.js, ...). */
  rendererDir: string;
  log?: Pick<Logger, 'error'>;
  heartbeatMs?: number;
}

export interface WebUi {
  /** A one-time URL that signs a browser in; starts serving with the first. */
  open(): Promise<OpenGuiResponse>;
  /** Stops serving (ends event streams, aborts calls in flight). */
  close(): Promise<void>;
}

export function createWebUi(options: WebUiOptions): WebUi {
  const sessions = new WebSessions();
  let started:
    Promise<{ app: FastifyInstance; routes: RegisteredRoutes; port: number }> | undefined;
  let closing = false;

  const start = async () => {
    const files = await loadStaticFiles(options.rendererDir);
    // The guard knows the port once listening; until then nothing is served.
    const listening: { guard?: WebGuard } = {};
    const deps: ProtocolDeps = {
      allowed: new AllowedMethods(PREFIX, WEB_ROUTES as Record<string, RouteDef>),
      serving: () => listening.guard !== undefined && !closing,
      guard: (request) => listening.guard!.check(request),
      bug: (error, route) => {
        const e = error as Error | undefined;
        options.log?.error(
          { route, err: { name: e?.name, message: e?.message, stack: e?.stack } },
          'bug',
        );
        return internalProblem();
      },
    };
    const app = Fastify(serverOptions(deps));
    app.addHook('onSend', async (_request, reply, payload) => {
      reply.headers(SECURITY_HEADERS);
      return payload;
    });
    // Streams are hijacked (no onSend): theirs are set before the first byte.
    app.addHook('onRequest', async (_request, reply) => {
      for (const [name, value] of Object.entries(SECURITY_HEADERS))
        reply.raw.setHeader(name, value);
    });
    installProtocol(app, deps);
    const routes = registerRoutes(app, {
      prefix: PREFIX,
      routes: WEB_ROUTES,
      handlers: localHandlers(options.engine, {
        openGui: () => Promise.reject(new HostProblem('forbidden', 'not from the page')),
      }),
      engine: options.engine,
      heartbeatMs: options.heartbeatMs ?? HEARTBEAT_MS,
      deps,
    });
    app.get(`${SESSION_PATH}:token`, async (request, reply) => {
      const session = sessions.redeem((request.params as { token: string }).token);
      if (session === undefined)
        return reply.code(401).type('text/html; charset=utf-8').send(SPENT_LINK);
      return reply.code(303).header('set-cookie', sessionCookie(session)).redirect('/');
    });
    for (const [urlPath, file] of files)
      app.get(urlPath, async (_request, reply) => reply.type(file.type).send(file.body));
    await app.listen({ host: LISTEN_HOST, port: 0 });
    const address = app.server.address();
    if (address === null || typeof address === 'string') throw new Error('no TCP port');
    listening.guard = new WebGuard(address.port, sessions);
    return { app, routes, port: address.port };
  };

  return {
    async open() {
      if (closing) throw new FerryError('not-supported', 'the engine host is stopping');
      started ??= start().catch((e: unknown) => {
        started = undefined;
        throw e;
      });
      const { port } = await started;
      return { url: `http://${LISTEN_HOST}:${port}${SESSION_PATH}${sessions.issueToken()}` };
    },
    async close() {
      closing = true;
      const s = await started?.catch(() => undefined);
      if (!s) return;
      s.routes.abortAll();
      const grace = setTimeout(() => s.app.server.closeAllConnections(), 2_000);
      try {
        await s.app.close();
      } finally {
        clearTimeout(grace);
      }
    },
  };
}

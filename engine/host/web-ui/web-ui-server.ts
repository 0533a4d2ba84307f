// The web graphical mode (netcli gui --web): the engine host serves the desktop app's renderer
// and the faces' part of the local API on an address of its own (a random 127.x.y.z), to browsers
// signed in with a one-time token, and lists those browsers for the app to end. It starts with
// the first link asked for and lasts as long as the host. Every answer carries a strict CSP: the
// page may reach its own origin and nothing else.
import type { ServerResponse } from 'node:http';
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
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
import { browserSessionRoutes } from '../../../contracts/browser-sessions.js';
import { AllowedMethods, pathsOf } from '../../../platform/http/allowed-methods.js';
import { HttpProblem } from '../../../platform/http/http-problem.js';
import { installProtocol, serverOptions } from '../../../platform/http/protocol.js';
import type { EngineApi } from '../../engine-api.js';
import { FerryError } from '../../errors.js';
import { HEARTBEAT_MS } from '../event-stream.js';
import { localProtocol } from '../http-protocol.js';
import { localHandlers } from '../local-handlers.js';
import { registerRoutes, type RegisteredRoutes } from '../route-registry.js';
import { ownLoopbackAddress } from './loopback-address.js';
import { registerSessionRoutes } from './session-routes.js';
import { registerSignIn } from './sign-in-routes.js';
import { loadStaticFiles } from './static-files.js';
import { SIGN_IN_LINK_PATH, WebGuard } from './web-guard.js';
import { WebSessions, type WebSession } from './web-sessions.js';

const PREFIX = LOCAL_API_PREFIXES[0];
/** How often sessions past their time are ended (and their open pages cut off). */
const SWEEP_MS = 60_000;

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

export interface WebUiOptions {
  engine: EngineApi;
  /** The built renderer (index.html, app.js, ...). */
  rendererDir: string;
  log?: Pick<Logger, 'error'>;
  heartbeatMs?: number;
  /** The clock of tokens and sessions (tests move it). */
  now?: () => number;
  /** How often expired sessions are ended (tests shorten it). */
  sweepMs?: number;
}

export interface WebUi {
  /** A one-time URL that signs a browser in; starts serving with the first. */
  open(): Promise<OpenGuiResponse>;
  /** Stops serving (ends event streams, aborts calls in flight). */
  close(): Promise<void>;
}

interface Serving {
  app: FastifyInstance;
  routes: RegisteredRoutes;
  origin: string;
  sweeper: NodeJS.Timeout;
}

export function createWebUi(options: WebUiOptions): WebUi {
  /** Each session's requests under way: cut off when it ends. */
  const open = new Map<WebSession, Set<ServerResponse>>();
  /** The answer to a session's own end, which must still reach it. */
  const sparing = new WeakSet<ServerResponse>();
  const sessions = new WebSessions({
    ...(options.now ? { now: options.now } : {}),
    onEnd: (session) => {
      for (const res of open.get(session) ?? []) if (!sparing.has(res)) res.destroy();
      open.delete(session);
    },
  });
  /** The session the guard admitted each request for. */
  const admitted = new WeakMap<FastifyRequest['raw'], WebSession>();
  let started: Promise<Serving> | undefined;
  let closing = false;

  const start = async (): Promise<Serving> => {
    const files = await loadStaticFiles(options.rendererDir);
    // The guard knows the origin once listening; until then nothing is served.
    const listening: { guard?: WebGuard } = {};
    const protocol = localProtocol({
      allowed: new AllowedMethods(
        [PREFIX],
        pathsOf({ ...(WEB_ROUTES as Record<string, RouteDef>), ...browserSessionRoutes }),
      ),
      serving: () => listening.guard !== undefined && !closing,
      closing: () => closing,
      guard: (request) => {
        const session = listening.guard!.check(request);
        if (session) admitted.set(request.raw, session);
      },
      log: options.log,
    });
    const app = Fastify(serverOptions(protocol));
    app.addHook('onSend', async (_request, reply, payload) => {
      reply.headers(SECURITY_HEADERS);
      return payload;
    });
    // Streams are hijacked (no onSend): theirs are set before the first byte.
    app.addHook('onRequest', async (_request, reply) => {
      for (const [name, value] of Object.entries(SECURITY_HEADERS))
        reply.raw.setHeader(name, value);
    });
    installProtocol(app, protocol);
    // After the guard: a session's request is under way (not idle) until its answer is done.
    app.addHook('onRequest', async (request, reply) => {
      const session = admitted.get(request.raw);
      if (session === undefined) return;
      const release = sessions.hold(session);
      const res = reply.raw;
      const requests = open.get(session) ?? new Set<ServerResponse>();
      open.set(session, requests);
      requests.add(res);
      res.once('close', () => {
        requests.delete(res);
        release();
      });
    });
    const routes = registerRoutes(app, {
      prefix: PREFIX,
      routes: WEB_ROUTES,
      handlers: localHandlers(options.engine, {
        openGui: () => Promise.reject(new HttpProblem('forbidden', 'not from the page')),
      }),
      engine: options.engine,
      heartbeatMs: options.heartbeatMs ?? HEARTBEAT_MS,
      protocol,
    });
    registerSessionRoutes(app, {
      prefix: PREFIX,
      sessions,
      sessionOf: (request) => admitted.get(request.raw),
      end: (id, answering) => {
        sparing.add(answering);
        return sessions.end(id);
      },
      answerFor: protocol.answerFor,
    });
    registerSignIn(app, sessions);
    for (const [urlPath, file] of files)
      app.get(urlPath, async (_request, reply) => reply.type(file.type).send(file.body));
    const host = await ownLoopbackAddress();
    await app.listen({ host, port: 0 });
    const address = app.server.address();
    if (address === null || typeof address === 'string') throw new Error('no TCP port');
    const origin = `http://${host}:${address.port}`;
    listening.guard = new WebGuard(origin, sessions, new Set(files.keys()));
    const sweeper = setInterval(() => sessions.sweep(), options.sweepMs ?? SWEEP_MS);
    sweeper.unref();
    return { app, routes, origin, sweeper };
  };

  return {
    async open() {
      if (closing) throw new FerryError('not-supported', 'the engine host is stopping');
      started ??= start().catch((e: unknown) => {
        started = undefined;
        throw e;
      });
      const { origin } = await started;
      return { url: `${origin}${SIGN_IN_LINK_PATH}${sessions.issueToken()}` };
    },
    async close() {
      closing = true;
      const s = await started?.catch(() => undefined);
      if (!s) return;
      clearInterval(s.sweeper);
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

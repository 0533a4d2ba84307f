// Builds the control-plane server: storage, domain services and the HTTP routes under both prefixes.
import Fastify, { type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { API_PREFIXES } from '../contracts/index.js';
import { AccountService } from './domain/accounts.js';
import { periodOf, systemClock, type Clock } from './domain/clock.js';
import { ConnectionService } from './domain/connections.js';
import { DeviceAuthCache } from './domain/device-auth-cache.js';
import { DeviceConfigService } from './domain/device-configs.js';
import { DeviceService } from './domain/devices.js';
import { FerryError } from './domain/errors.js';
import type { EventBus } from './domain/event-bus.js';
import { Inventory } from './domain/inventory.js';
import type { LiveSessions } from './domain/live-sessions.js';
import { PeerFeed } from './domain/peer-feed.js';
import { Quota } from './domain/quota.js';
import { authenticator } from './http/auth.js';
import { buildHandlers, type Services } from './http/handlers.js';
import { sendProblem } from './http/problems.js';
import { RateLimits, type RateLimitOptions } from './http/rate-limits.js';
import { registerControlRoutes } from './http/register.js';
import { AccountsRepo } from './store/accounts-repo.js';
import { PostgresDeviceAuth } from './store/device-auth.postgres.js';
import { DevicesRepo } from './store/devices-repo.js';
import { MemoryEventBus } from './store/event-bus.memory.js';
import { PostgresEventBus } from './store/event-bus.postgres.js';
import { FeedRepo } from './store/feed-repo.js';
import { MemoryLiveSessions } from './store/live-sessions.memory.js';
import { PostgresLiveSessions } from './store/live-sessions.postgres.js';
import { openDatabase } from './store/open.js';
import { RegionsRepo } from './store/regions-repo.js';

export const VERSION = '0.1.0';
/** Bodies above this are refused with 413 (node routes have their own, larger cap). */
export const BODY_LIMIT = 16 * 1024;
/** In-flight requests get this long to finish on shutdown before connections are cut. */
const SHUTDOWN_GRACE_MS = 10_000;
/**
 * One instance (SQLite): device tokens resolved within this long are answered from memory.
 * Revocations and plan changes drop them at once; the TTL only bounds the harm of a missed
 * invalidation. Several instances (PostgreSQL) keep nothing: see DeviceAuthCache.
 */
const DEVICE_AUTH_TTL_MS = 5_000;
const DEVICE_AUTH_MAX_ENTRIES = 50_000;

export interface ServerOptions {
  dataDir: string;
  databaseUrl?: string | undefined;
  adminToken?: string | undefined;
  /** undefined: no rate limits (benchmarks only). */
  rateLimits: RateLimitOptions | undefined;
  nodeHealthyForMs?: number;
  clock?: Clock;
  logger: Logger;
  validateResponses?: boolean;
}

export interface ControlPlane {
  app: FastifyInstance;
  services: Services;
  /** Stops taking requests, lets those in flight finish, then closes storage. */
  close(): Promise<void>;
}

export async function buildControlPlane(opts: ServerOptions): Promise<ControlPlane> {
  const clock = opts.clock ?? systemClock;
  const store = await openDatabase({ dataDir: opts.dataDir, databaseUrl: opts.databaseUrl });
  let live: LiveSessions;
  let bus: EventBus;
  if (store.pool) {
    live = await PostgresLiveSessions.open(store.pool);
    bus = await PostgresEventBus.open(store.pool);
  } else {
    live = new MemoryLiveSessions();
    bus = new MemoryEventBus();
  }
  const accountsRepo = new AccountsRepo(store.db);
  const devicesRepo = new DevicesRepo(store.db);
  const regionsRepo = new RegionsRepo(store.db);
  const feedRepo = new FeedRepo(store.db, store.dialect);
  const feed = new PeerFeed(feedRepo, devicesRepo, bus, () => periodOf(clock.nowMs()));
  const quota = new Quota(store.db, accountsRepo, devicesRepo, feedRepo, feed, clock);
  // PostgreSQL: the token and the live session in one round trip (nothing is cached there).
  const tokenSource = store.pool ? new PostgresDeviceAuth(store.pool) : devicesRepo;
  const deviceAuth = new DeviceAuthCache(tokenSource, bus, {
    ttlMs: DEVICE_AUTH_TTL_MS,
    maxEntries: DEVICE_AUTH_MAX_ENTRIES,
  });
  const accounts = new AccountService({
    db: store.db,
    dialect: store.dialect,
    accounts: accountsRepo,
    devices: devicesRepo,
    regions: regionsRepo,
    feed,
    bus,
    auth: deviceAuth,
    clock,
  });
  const inventory = new Inventory(regionsRepo, devicesRepo, quota, live, feed, bus, clock, {
    healthyForMs: opts.nodeHealthyForMs ?? 30_000,
  });
  const devices = new DeviceService(store.db, devicesRepo, feed, live, bus, deviceAuth);
  const connections = new ConnectionService(inventory, live, deviceAuth, quota, bus, clock);
  const services: Services = {
    version: VERSION,
    accounts,
    devices,
    deviceConfigs: new DeviceConfigService(devices, connections),
    inventory,
    connections,
    feed,
  };

  // No framework logger: it would write request lines with client addresses.
  const app = Fastify({
    logger: false,
    trustProxy: false,
    bodyLimit: BODY_LIMIT,
    forceCloseConnections: 'idle',
    return503OnClosing: true,
  });
  const shutdown = new AbortController();
  const limits = opts.rateLimits && new RateLimits(opts.rateLimits);

  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = String(body);
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch {
      done(new FerryError('invalid-json', 'the request body is not valid JSON'), undefined);
    }
  });
  if (limits) {
    app.addHook('onRequest', async (request, reply) => {
      const retryAfter = await limits.take('ip', limits.addressKey(request.ip));
      if (retryAfter !== undefined) {
        reply.header('retry-after', String(retryAfter));
        sendProblem(
          reply,
          new FerryError('rate-limited', `too many requests; retry in ${retryAfter} s`),
        );
      }
    });
  }
  app.setErrorHandler((error, _request, reply) => {
    if (error instanceof FerryError) return sendProblem(reply, error);
    const status = (error as { statusCode?: number }).statusCode;
    if (status === 413)
      return sendProblem(
        reply,
        new FerryError('payload-too-large', `request bodies are limited to ${BODY_LIMIT} bytes`),
      );
    if (status === 415)
      return sendProblem(
        reply,
        new FerryError('unsupported-media-type', 'send JSON (content-type: application/json)'),
      );
    if (status !== undefined && status >= 400 && status < 500) {
      return sendProblem(reply, new FerryError('invalid-json', 'the request could not be read'));
    }
    // A bug: log what it was, never who asked or what they sent.
    const bug = error as Error;
    opts.logger.error({ err: { message: bug.message, stack: bug.stack } }, 'unhandled error');
    return sendProblem(reply, new FerryError('internal', 'something went wrong on our side'));
  });
  app.setNotFoundHandler((request, reply) =>
    sendProblem(
      reply,
      new FerryError('not-found', `no route ${request.method} ${request.url.split('?')[0]}`),
    ),
  );
  app.addHook('preClose', async () => shutdown.abort());
  // While shutting down, answers close their connection so that no idle keep-alive socket
  // holds the process open once in-flight requests are done.
  app.addHook('onSend', async (_request, reply) => {
    if (shutdown.signal.aborted) reply.header('connection', 'close');
  });

  const handlers = buildHandlers(services);
  const auth = authenticator({
    devices: deviceAuth,
    regions: regionsRepo,
    adminToken: opts.adminToken,
  });
  for (const prefix of API_PREFIXES) {
    await app.register(
      async (scope) =>
        registerControlRoutes(scope, {
          handlers,
          services,
          bus,
          authenticator: auth,
          limits,
          shutdown: shutdown.signal,
          validateResponses: opts.validateResponses ?? false,
        }),
      { prefix },
    );
  }

  return {
    app,
    services,
    async close() {
      const grace = setTimeout(() => app.server.closeAllConnections(), SHUTDOWN_GRACE_MS);
      await app.close();
      clearTimeout(grace);
      deviceAuth.close();
      await bus.close();
      await live.close();
      await store.close();
    },
  };
}

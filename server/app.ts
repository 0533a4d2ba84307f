// Builds the control-plane server: storage, domain services and the HTTP routes under both prefixes.
import type { Server as HttpsServer } from 'node:https';
import Fastify, { type FastifyHttpsOptions, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import {
  API_PREFIXES,
  ControlDiagnostics,
  SHIPPED_PLATFORMS,
  type PlatformTable,
} from '../contracts/index.js';
import { systemClock, type Clock } from './domain/clock.js';
import type { EventBus } from './domain/event-bus.js';
import type { LiveSessions } from './domain/live-sessions.js';
import { MemoryLiveSessions } from './domain/live-sessions.memory.js';
import { DEFAULT_PLATFORM_FRESH_SECONDS } from './domain/platform-checks.js';
import { buildDomain } from './domain/services.js';
import { installProtocol, serverOptions } from '../platform/http/protocol.js';
import { RequestSignals } from '../platform/http/request-signals.js';
import { authenticator } from './http/auth.js';
import { buildHandlers, type Services } from './http/handlers.js';
import { controlProtocol } from './http/protocol.js';
import { RateLimits, type RateLimitOptions } from './http/rate-limits.js';
import { registerControlRoutes } from './http/register.js';
import { PostgresDeviceAuth } from './store/device-auth.postgres.js';
import { MemoryEventBus } from './store/event-bus.memory.js';
import { PostgresEventBus } from './store/event-bus.postgres.js';
import { PostgresLiveSessions } from './store/live-sessions.postgres.js';
import { openDatabase } from './store/open.js';
import { SqlStores } from './store/stores.js';
import { RelayLists } from './domain/relay-list.js';
import { loadSigningKey } from './signing-key.js';

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
  /**
   * Published to clients for `netcli diagnose` (GET /diagnostics): a DNS zone whose authority
   * answers each name with the asking resolver's address, and `[addr]:port` of a TCP service
   * reachable over IPv6. Other parties' services; nothing of a client's is kept for them.
   */
  dnsLeakZone?: string | undefined;
  /** By country, a name served at home there (ferry-server --domestic-name). */
  domesticNames?: Record<string, string> | undefined;
  ipv6Probe?: string | undefined;
  /** The streaming platforms known by name: the shipped table plus --platforms-file. */
  platforms?: PlatformTable | undefined;
  /** A node's platform check counts as verified for this long (default 1200 s). */
  platformFreshMs?: number | undefined;
  /**
   * Serve HTTPS with this certificate chain and key (PEM). Without it the server speaks plain
   * HTTP, which clients accept only on loopback or when their user says --insecure.
   */
  tls?: { cert: string; key: string } | undefined;
  /** The relay list's signing key (PEM); default: the data dir's, made at the first start. */
  signingKeyFile?: string | undefined;
}

export interface ControlPlane {
  app: FastifyInstance;
  services: Services;
  /** Stops taking requests, lets those in flight finish, then closes storage. */
  close(): Promise<void>;
}

export async function buildControlPlane(opts: ServerOptions): Promise<ControlPlane> {
  const clock = opts.clock ?? systemClock;
  const signer = await loadSigningKey({
    dataDir: opts.dataDir,
    ...(opts.signingKeyFile !== undefined ? { file: opts.signingKeyFile } : {}),
  });
  const store = await openDatabase({ dataDir: opts.dataDir, databaseUrl: opts.databaseUrl });
  // The store's implementations of the domain's ports: the compiler checks each against its port.
  let live: LiveSessions;
  let bus: EventBus;
  if (store.pool) {
    live = await PostgresLiveSessions.open(store.pool);
    bus = await PostgresEventBus.open(store.pool);
  } else {
    live = new MemoryLiveSessions();
    bus = new MemoryEventBus();
  }
  const stores = new SqlStores(store.db, store.dialect);
  const domain = buildDomain(
    {
      stores,
      // PostgreSQL: the token and the live session in one round trip (nothing is cached there).
      tokens: store.pool ? new PostgresDeviceAuth(store.pool) : stores.devices,
      live,
      bus,
      clock,
    },
    {
      nodeHealthyForMs: opts.nodeHealthyForMs ?? 30_000,
      platforms: opts.platforms ?? SHIPPED_PLATFORMS,
      platformFreshMs: opts.platformFreshMs ?? DEFAULT_PLATFORM_FRESH_SECONDS * 1000,
      deviceAuth: { ttlMs: DEVICE_AUTH_TTL_MS, maxEntries: DEVICE_AUTH_MAX_ENTRIES },
    },
  );
  const { deviceAuth } = domain;
  const services: Services = {
    version: VERSION,
    diagnostics: ControlDiagnostics.parse({
      dns_leak_zone: opts.dnsLeakZone?.toLowerCase().replace(/\.$/, '') ?? null,
      ipv6_probe: opts.ipv6Probe ?? null,
      ...(opts.domesticNames ? { domestic_names: opts.domesticNames } : {}),
    }),
    accounts: domain.accounts,
    devices: domain.devices,
    deviceTunnels: domain.deviceTunnels,
    deviceConfigs: domain.deviceConfigs,
    inventory: domain.inventory,
    relayLists: new RelayLists(domain.inventory, signer, clock),
    connections: domain.connections,
    feed: domain.feed,
  };

  const signals = new RequestSignals();
  const limits = opts.rateLimits && new RateLimits(opts.rateLimits);
  const protocol = controlProtocol({ bodyLimit: BODY_LIMIT, signals, limits, logger: opts.logger });
  // Typed as the plain HTTP instance either way: nothing here depends on which server it is.
  const app = (opts.tls
    ? Fastify({
        ...(serverOptions(protocol) as FastifyHttpsOptions<HttpsServer>),
        https: { cert: opts.tls.cert, key: opts.tls.key, minVersion: 'TLSv1.2' },
      })
    : Fastify(serverOptions(protocol))) as unknown as FastifyInstance;
  installProtocol(app, protocol);
  // Long polls answer and event streams end; new requests get 503 from here on.
  app.addHook('preClose', async () => signals.abortAll());

  const handlers = buildHandlers(services);
  const auth = authenticator({
    devices: deviceAuth,
    regions: stores.regions,
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
          signals,
          validateResponses: opts.validateResponses ?? false,
          answerFor: protocol.answerFor,
          bodyLimit: BODY_LIMIT,
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

// The control plane's domain services, built over the ports they need: the service's app.ts hands
// it the SQL stores, the domain's tests hand it memory ones, so both run the same wiring.
import type { PlatformTable } from '../../contracts/index.js';
import { AccountService } from './accounts.js';
import { periodOf, type Clock } from './clock.js';
import { ConnectionService } from './connections.js';
import { DeviceAuthCache, type DeviceAuthSource } from './device-auth-cache.js';
import { DeviceConfigService } from './device-configs.js';
import { DeviceTunnelService } from './device-tunnels.js';
import { DeviceService } from './devices.js';
import type { EventBus } from './event-bus.js';
import { Inventory } from './inventory.js';
import type { LiveSessions } from './live-sessions.js';
import { PeerFeed } from './peer-feed.js';
import { PlatformChecks } from './platform-checks.js';
import type { Stores } from './ports/stores.js';
import { Quota } from './quota.js';

export interface DomainPorts {
  stores: Stores;
  /** Where device tokens are resolved: the devices store, or one that reads sessions with them. */
  tokens: DeviceAuthSource;
  live: LiveSessions;
  bus: EventBus;
  clock: Clock;
}

export interface DomainOptions {
  /** A node is healthy while its last heartbeat is younger than this. */
  nodeHealthyForMs: number;
  /** The streaming platforms known by name. */
  platforms: PlatformTable;
  /** A node's platform check counts as verified for this long. */
  platformFreshMs: number;
  /** How long a resolved device token is served from memory, and how many are kept. */
  deviceAuth: { ttlMs: number; maxEntries: number };
}

export interface Domain {
  accounts: AccountService;
  devices: DeviceService;
  deviceTunnels: DeviceTunnelService;
  deviceConfigs: DeviceConfigService;
  inventory: Inventory;
  connections: ConnectionService;
  feed: PeerFeed;
  quota: Quota;
  /** Resolves device tokens (the HTTP layer's authenticator asks it); close it on shutdown. */
  deviceAuth: DeviceAuthCache;
}

export function buildDomain(ports: DomainPorts, opts: DomainOptions): Domain {
  const { stores, live, bus, clock } = ports;
  const feed = new PeerFeed(stores.feed, stores.devices, bus, () => periodOf(clock.nowMs()));
  const quota = new Quota({
    transactions: stores,
    accounts: stores.accounts,
    devices: stores.devices,
    feedState: stores.feed,
    feed,
    clock,
  });
  const deviceAuth = new DeviceAuthCache(ports.tokens, bus, opts.deviceAuth);
  const accounts = new AccountService({
    transactions: stores,
    accounts: stores.accounts,
    devices: stores.devices,
    regions: stores.regions,
    feed,
    bus,
    auth: deviceAuth,
    clock,
  });
  const platforms = new PlatformChecks(stores.nodePlatforms, opts.platforms, clock, {
    freshMs: opts.platformFreshMs,
  });
  const inventory = new Inventory(
    { transactions: stores, regions: stores.regions, quota, live, feed, bus, clock, platforms },
    { healthyForMs: opts.nodeHealthyForMs },
  );
  const devices = new DeviceService({
    transactions: stores,
    devices: stores.devices,
    feed,
    live,
    bus,
    auth: deviceAuth,
  });
  const deviceTunnels = new DeviceTunnelService({
    transactions: stores,
    devices: stores.devices,
    tunnels: stores.tunnels,
    feed,
    live,
    bus,
  });
  const connections = new ConnectionService(
    inventory,
    live,
    deviceAuth,
    quota,
    bus,
    clock,
    deviceTunnels,
  );
  return {
    accounts,
    devices,
    deviceTunnels,
    deviceConfigs: new DeviceConfigService(devices, connections),
    inventory,
    connections,
    feed,
    quota,
    deviceAuth,
  };
}

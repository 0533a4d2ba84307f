// The control plane's domain on memory ports (test code): the service's own wiring (buildDomain)
// over MemoryStores, memory live sessions, a recording bus and a settable clock; no database.
import { randomBytes } from 'node:crypto';
import { SHIPPED_PLATFORMS } from '../../../contracts/index.js';
import type { Clock } from '../clock.js';
import { MemoryLiveSessions } from '../live-sessions.memory.js';
import type { DeviceAuth } from '../ports/devices.js';
import type { NodeRow, RegionRow } from '../ports/regions.js';
import type { Result } from '../errors.js';
import { hashToken } from '../secrets.js';
import { buildDomain, type Domain } from '../services.js';
import { RecordingEventBus } from './memory-event-bus.js';
import { MemoryStores } from './memory-stores.js';

/** A few regions of the kinds the service seeds: areas with several, and the global one. */
export const TEST_REGIONS: readonly RegionRow[] = [
  { id: 'asia-east', name: 'Asia East (Tokyo)', area: 'asia', country: 'JP', entry: false },
  {
    id: 'asia-southeast',
    name: 'Asia Southeast (Singapore)',
    area: 'asia',
    country: 'SG',
    entry: false,
  },
  { id: 'eu-west', name: 'Europe West (Amsterdam)', area: 'europe', country: 'NL', entry: false },
  { id: 'global', name: 'Global', area: 'global', country: null, entry: false },
];

export const NODE_HEALTHY_FOR_MS = 30_000;

/** A random 32-byte key as the API carries them (the domain checks holders, not curves). */
export function newKey(): string {
  return randomBytes(32).toString('base64');
}

export interface MemoryDomain extends Domain {
  stores: MemoryStores;
  live: MemoryLiveSessions;
  bus: RecordingEventBus;
  clock: Clock & { now: number };
  createAccount(password?: string): Promise<string>;
  /** Signs a new device in; its token resolved as a request's would be. */
  signIn(
    accountNumber: string,
    device?: { name?: string; wireguard_public_key?: string; ferry_public_key?: string },
  ): Promise<{ token: string; auth: DeviceAuth; deviceId: string }>;
  /** Adds a node, registers its keys and sends a first heartbeat: a healthy node. */
  addHealthyNode(region: string): Promise<NodeRow>;
  /** The node as a request authenticated with its token would see it now. */
  node(id: string): Promise<NodeRow>;
  close(): Promise<void>;
}

export function memoryDomain(opts: { nowMs?: number } = {}): MemoryDomain {
  const stores = new MemoryStores({ regions: TEST_REGIONS });
  const live = new MemoryLiveSessions();
  const bus = new RecordingEventBus();
  const clock = {
    now: opts.nowMs ?? Date.UTC(2026, 10, 20, 12),
    nowMs() {
      return clock.now;
    },
  };
  const domain = buildDomain(
    { stores, tokens: stores.devices, live, bus, clock },
    {
      nodeHealthyForMs: NODE_HEALTHY_FOR_MS,
      platforms: SHIPPED_PLATFORMS,
      platformFreshMs: 1_200_000,
      deviceAuth: { ttlMs: 5_000, maxEntries: 1_000 },
    },
  );
  const must = <T>(r: Result<T>): T => {
    if (!r.ok) throw r.error;
    return r.value;
  };
  const node = async (id: string) => {
    const row = await stores.regions.nodeById(id);
    if (!row) throw new Error(`no node ${id}`);
    return row;
  };
  return {
    ...domain,
    stores,
    live,
    bus,
    clock,
    async createAccount(password) {
      return must(await domain.accounts.createAccount(password)).account_number;
    },
    async signIn(accountNumber, device = {}) {
      const signed = must(
        await domain.accounts.signIn({
          account_number: accountNumber,
          device: {
            name: device.name ?? 'laptop',
            kind: 'laptop',
            wireguard_public_key: device.wireguard_public_key ?? newKey(),
            ferry_public_key: device.ferry_public_key ?? newKey(),
          },
        }),
      );
      const auth = await domain.deviceAuth.authByTokenHash(hashToken(signed.token));
      if (!auth) throw new Error('a device just signed in has no token');
      return { token: signed.token, auth, deviceId: signed.device.id };
    },
    async addHealthyNode(region) {
      const created = must(
        await domain.inventory.createNode({
          region,
          endpoint_host: `${region}.example.net`,
          wireguard_port: 51820,
          ferry_port: 443,
          capacity_mbps: 1000,
        }),
      );
      must(await domain.inventory.register(await node(created.id), newKey(), newKey(), null));
      must(
        await domain.inventory.heartbeat(await node(created.id), { load: 0, rx_bps: 0, tx_bps: 0 }),
      );
      return node(created.id);
    },
    node,
    async close() {
      domain.deviceAuth.close();
      await bus.close();
      await live.close();
    },
  };
}

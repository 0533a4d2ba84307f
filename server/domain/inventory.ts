// Regions and nodes: what the operator added, what each node reports, and which are healthy.
import type { z } from 'zod';
import type {
  CreateNodeRequest,
  CreateRegionRequest,
  UpdateRegionRequest,
  Node,
  PlatformCheckReport,
  Protocol,
  Region,
  RegisterNodeResponse,
} from '../../contracts/index.js';
import { GATEWAY_IPV4, GATEWAY_IPV6, TUNNEL_IPV4_CIDR, TUNNEL_IPV6_CIDR } from './addresses.js';
import type { Clock } from './clock.js';
import { fail, ok, type Result } from './errors.js';
import type { EventBus } from './event-bus.js';
import type { HandshakeReport, LiveSessions } from './live-sessions.js';
import type { PeerFeed } from './peer-feed.js';
import type { PlatformChecks } from './platform-checks.js';
import type { Quota } from './quota.js';
import { planAllowsRegion, type PlanRule } from './plans.js';
import type { NodePlatformRow } from './ports/node-platforms.js';
import { forwardsOf, type Forward } from './hops.js';
import type { NodeRow, NodeTls, RegionRow, RegionsStore } from './ports/regions.js';
import type { Transactions } from './ports/stores.js';
import { claimKeys } from './public-keys.js';
import { hashToken, newId, newProbeKey, newToken } from './secrets.js';
import { Snapshot } from './snapshot.js';

export interface InventoryOptions {
  /** A node is healthy while its last heartbeat is younger than this. */
  healthyForMs: number;
  /**
   * How long regions and nodes are served from memory (default 1 s). Writes made through this
   * instance are seen at once; with several instances, another's writes within this time.
   */
  snapshotTtlMs?: number;
}

/** Every region and node as last read. Shared by concurrent requests: frozen, never changed. */
export interface InventoryView {
  regions: readonly RegionRow[];
  nodes: readonly NodeRow[];
  /** Every node's latest platform checks, by node and platform. */
  platforms: readonly NodePlatformRow[];
  /** The same by node id (a node without any: absent). */
  platformsByNode: ReadonlyMap<string, readonly NodePlatformRow[]>;
}

/** The ports and services the inventory works with. */
export interface InventoryDeps {
  transactions: Transactions;
  regions: RegionsStore;
  quota: Quota;
  live: LiveSessions;
  feed: PeerFeed;
  bus: EventBus;
  clock: Clock;
  /** The nodes' streaming-platform checks (stream mode). */
  platforms: PlatformChecks;
}

const DEFAULT_SNAPSHOT_TTL_MS = 1_000;

export class Inventory {
  /**
   * Connect reads every region and node on each call; from memory it costs no query. Health
   * is not part of it: `isHealthy` compares the heartbeat with the clock at the time of use.
   */
  private readonly view: Snapshot<InventoryView>;
  /** The nodes' streaming-platform checks (stream mode). */
  readonly platforms: PlatformChecks;

  constructor(
    private readonly d: InventoryDeps,
    private readonly opts: InventoryOptions,
  ) {
    this.platforms = d.platforms;
    this.view = new Snapshot(() => this.loadView(), {
      ttlMs: opts.snapshotTtlMs ?? DEFAULT_SNAPSHOT_TTL_MS,
    });
  }

  get heartbeatSeconds(): number {
    return Math.max(1, Math.floor(this.opts.healthyForMs / 3000));
  }

  isHealthy(node: NodeRow, nowMs = this.d.clock.nowMs()): boolean {
    return (
      node.wireguard_public_key !== null &&
      node.last_heartbeat_ms !== null &&
      nowMs - node.last_heartbeat_ms < this.opts.healthyForMs
    );
  }

  /**
   * Whether the node may take a new session of `protocol`: healthy, and not reporting that data
   * plane degraded (its peer updates failing, so a new device might never get on, and
   * revocations might not apply). Sessions already on it are left alone.
   */
  takesSessions(node: NodeRow, protocol: Protocol, nowMs = this.d.clock.nowMs()): boolean {
    return this.isHealthy(node, nowMs) && !(node.degraded?.split(',') ?? []).includes(protocol);
  }

  /** Regions and nodes (ordered by id), at most `snapshotTtlMs` old. */
  snapshot(): Promise<InventoryView> {
    return this.view.get();
  }

  async listRegionRows(): Promise<readonly RegionRow[]> {
    return (await this.view.get()).regions;
  }

  async listRegions(plan: PlanRule): Promise<Region[]> {
    const { regions, nodes, platformsByNode } = await this.view.get();
    const now = this.d.clock.nowMs();
    return regions.map((r) => {
      const healthy = nodes.filter((n) => n.region_id === r.id && this.isHealthy(n, now));
      const load = healthy.length
        ? healthy.reduce((sum, n) => sum + n.load, 0) / healthy.length
        : 0;
      const verified = new Set(
        healthy.flatMap((n) =>
          (platformsByNode.get(n.id) ?? [])
            .filter((p) => this.platforms.isVerified(p, now))
            .map((p) => p.platform),
        ),
      );
      return {
        ...r,
        load: Math.round(load * 1000) / 1000,
        nodes_healthy: healthy.length,
        platforms_verified: [...verified].sort(),
        allowed: planAllowsRegion(plan, r.id),
      };
    });
  }

  async listNodes(regionId: string | undefined): Promise<Node[]> {
    const view = await this.view.get();
    const { nodes } = view;
    const now = this.d.clock.nowMs();
    const inRegion = regionId === undefined ? nodes : nodes.filter((n) => n.region_id === regionId);
    return inRegion.map((n) => ({
      id: n.id,
      region: n.region_id,
      endpoint_host: n.endpoint_host,
      wireguard_port: n.wireguard_port,
      ferry_port: n.ferry_port,
      wireguard_public_key: n.wireguard_public_key,
      ferry_public_key: n.ferry_public_key,
      tls_port: n.tls_port,
      tls_server_name: n.tls_server_name,
      load: n.load,
      capacity_mbps: n.capacity_mbps,
      healthy: this.isHealthy(n, now),
      probe:
        n.probe_port !== null && n.probe_key !== null
          ? { port: n.probe_port, key: n.probe_key }
          : null,
      platforms: this.platforms.view(view.platformsByNode.get(n.id) ?? [], now),
    }));
  }

  /**
   * An operator asks a node to check its streaming platforms now: its next heartbeat answer
   * says so. Answers within how many seconds the node hears of it.
   */
  async requestPlatformCheck(nodeId: string): Promise<Result<number>> {
    // From the database, not the snapshot: a node just added on another instance counts.
    if (!(await this.d.regions.nodeById(nodeId))) return fail('not-found', 'no such node');
    await this.platforms.requestCheck(nodeId);
    return ok(this.heartbeatSeconds);
  }

  async createRegion(req: z.output<typeof CreateRegionRequest>): Promise<Result<RegionRow>> {
    const row = {
      id: req.id,
      name: req.name,
      area: req.area,
      country: req.country,
      entry: req.entry ?? false,
    };
    const inserted = await this.written(this.d.regions.insertRegion(row));
    return inserted ? ok(row) : fail('region-exists', `region "${req.id}" exists`);
  }

  /** An operator renames a region or offers (or withdraws) its relays as multihop entries. */
  async updateRegion(
    id: string,
    req: z.output<typeof UpdateRegionRequest>,
  ): Promise<Result<RegionRow>> {
    const row = await this.written(this.d.regions.updateRegion(id, req));
    return row ? ok(row) : fail('not-found', `no region "${id}"`);
  }

  async createNode(
    req: z.output<typeof CreateNodeRequest>,
  ): Promise<Result<{ id: string; token: string; region: string }>> {
    // From the database, not the snapshot: a region just added on another instance counts.
    const regions = await this.d.regions.listRegions();
    if (!regions.some((r) => r.id === req.region)) {
      return fail('validation-failed', `unknown region "${req.region}"`, {
        errors: [{ field: 'region', message: 'unknown region', allowed: regions.map((r) => r.id) }],
      });
    }
    const id = newId('node');
    const token = newToken('node');
    await this.written(
      this.d.regions.insertNode({
        id,
        region_id: req.region,
        endpoint_host: req.endpoint_host,
        wireguard_port: req.wireguard_port,
        ferry_port: req.ferry_port ?? null,
        capacity_mbps: req.capacity_mbps,
        token_hash: hashToken(token),
        probe_key: newProbeKey(),
      }),
    );
    return ok({ id, token, region: req.region });
  }

  /**
   * A node publishes its keys, its probe port and its TLS port (again, after a restart):
   * refused if another holds one of the keys. The answer carries the node's probe key.
   */
  async register(
    node: NodeRow,
    wireguardKey: string,
    ferryKey: string | null,
    probePort: number | null,
    tls: NodeTls | null = null,
  ): Promise<Result<z.input<typeof RegisterNodeResponse>>> {
    const probeKeyIfNone = newProbeKey();
    const claimed = await this.written(
      this.d.transactions.transaction(async (tx) => {
        const free = await claimKeys(tx.keys, {
          owner: { kind: 'node', id: node.id },
          after: { wireguard_public_key: wireguardKey, ferry_public_key: ferryKey },
          changed:
            ferryKey === null
              ? ['wireguard_public_key']
              : ['wireguard_public_key', 'ferry_public_key'],
          fieldPrefix: '',
        });
        if (!free.ok) return free;
        await tx.regions.setNodeKeys(node.id, {
          wireguardKey,
          ferryKey,
          probePort,
          tls,
          probeKeyIfNone,
        });
        // Read back: the key made here counts only where the node had none.
        const row = await tx.regions.nodeById(node.id);
        return ok(row?.probe_key ?? probeKeyIfNone);
      }),
    );
    if (!claimed.ok) return claimed;
    return ok({
      id: node.id,
      region: node.region_id,
      tunnel: {
        ipv4_cidr: TUNNEL_IPV4_CIDR,
        ipv6_cidr: TUNNEL_IPV6_CIDR,
        ipv4_gateway: GATEWAY_IPV4,
        ipv6_gateway: GATEWAY_IPV6,
      },
      heartbeat_seconds: this.heartbeatSeconds,
      capacity_mbps: node.capacity_mbps,
      probe_key: claimed.value,
    });
  }

  async heartbeat(
    node: NodeRow,
    h: {
      load: number;
      rx_bps: number;
      tx_bps: number;
      fresh_handshakes?: { device_id: string; latency_ms?: number | undefined }[] | undefined;
      usage?: { device_id: string; bytes: number }[] | undefined;
      degraded?: Protocol[] | undefined;
      platforms?: PlatformCheckReport[] | undefined;
    },
  ): Promise<
    Result<{
      feed_version: number;
      healthy_for_seconds: number;
      probe_key?: string | undefined;
      check_platforms?: boolean | undefined;
      forwards?: Forward[] | undefined;
    }>
  > {
    if (node.wireguard_public_key === null) {
      return fail(
        'node-not-registered',
        'register the node (POST /node/register) before its heartbeats',
      );
    }
    const now = this.d.clock.nowMs();
    // A node that was unhealthy is a candidate again from this answer on, not a TTL later.
    await this.written(
      this.d.regions.recordHeartbeat(node.id, {
        load: h.load,
        rx_bps: h.rx_bps,
        tx_bps: h.tx_bps,
        nowMs: now,
        degraded: h.degraded?.length ? [...new Set(h.degraded)].join(',') : null,
      }),
    );
    const reports: HandshakeReport[] = (h.fresh_handshakes ?? []).map((r) => ({
      deviceId: r.device_id,
      latencyMs: r.latency_ms,
    }));
    const changed = await this.d.live.applyHandshakes(
      node.id,
      reports,
      now + this.opts.healthyForMs,
      now,
    );
    for (const deviceId of changed)
      await this.d.bus.publish({ kind: 'device', deviceId, change: 'status' });
    if (h.usage?.length) await this.d.quota.recordDeviceUsage(h.usage);
    const checks = await this.platforms.record(node.id, h.platforms);
    if (checks.changed) this.view.invalidate();
    await this.d.quota.rollOver();
    // A relay of an entry region forwards to every other relay (multihop).
    const view = await this.view.get();
    const forwards = view.regions.find((r) => r.id === node.region_id)?.entry
      ? forwardsOf(node, view.nodes)
      : undefined;
    return ok({
      feed_version: await this.d.feed.currentVersion(),
      healthy_for_seconds: Math.floor(this.opts.healthyForMs / 1000),
      // Registration made it, so a registered node always has one.
      ...(node.probe_key === null ? {} : { probe_key: node.probe_key }),
      ...(checks.checkNow ? { check_platforms: true } : {}),
      ...(forwards ? { forwards } : {}),
    });
  }

  /** Drops the snapshot once a write of regions or nodes has ended, even if it failed. */
  private async written<T>(write: Promise<T>): Promise<T> {
    try {
      return await write;
    } finally {
      this.view.invalidate();
    }
  }

  private async loadView(): Promise<InventoryView> {
    const [regions, nodes, platforms] = await Promise.all([
      this.d.regions.listRegions(),
      this.d.regions.listNodes(),
      this.platforms.listAll(),
    ]);
    const byNode = new Map<string, NodePlatformRow[]>();
    for (const p of platforms) {
      Object.freeze(p);
      const list = byNode.get(p.node_id);
      if (list) list.push(p);
      else byNode.set(p.node_id, [p]);
    }
    return Object.freeze({
      regions: Object.freeze(regions.map((r) => Object.freeze(r))),
      nodes: Object.freeze(nodes.map((n) => Object.freeze(n))),
      platforms: Object.freeze(platforms),
      platformsByNode: byNode,
    });
  }
}

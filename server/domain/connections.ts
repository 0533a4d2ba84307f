// Connect, status and disconnect: picks a node for a device and tracks its live session.
import type {
  ConnectRequest,
  ConnectResponse,
  Device,
  Encryption,
  ListedDevice,
  Notice,
  Protocol,
  RegionStrategy,
  StatusResponse,
} from '../../contracts/index.js';
import {
  CLIENT_LATENCY_FRESH_SECONDS,
  MODE_OF_USAGE,
  REGION_STRATEGIES,
  shardOf,
} from '../../contracts/index.js';
import { GATEWAY_IPV4 } from './addresses.js';
import type { Clock } from './clock.js';
import type { Revocations } from './device-auth-cache.js';
import type { DeviceTunnelService } from './device-tunnels.js';
import { fail, ok, type Result } from './errors.js';
import type { EventBus } from './event-bus.js';
import type { Inventory } from './inventory.js';
import {
  shownLatencyMs,
  shownState,
  type LiveSession,
  type LiveSessions,
} from './live-sessions.js';
import type { DeviceAuth } from './ports/devices.js';
import { entryPorts, hopSlots } from './hops.js';
import type { NodeRow, RegionRow } from './ports/regions.js';
import type { Quota } from './quota.js';
import { planAllowsRegion, planOf, type PlanRule } from './plans.js';
import { chooseNode, type Candidate } from './routing.js';
import { newId } from './secrets.js';

const MTU: Record<Protocol, number> = { wireguard: 1420, ferry: 1380 };
const KEEPALIVE_SECONDS = 25;
const SESSION_KEY_SECONDS = 120;
const FERRY_SESSION_KEY_BYTES = 1 << 30;

interface Scope {
  regionIds: string[];
  strategy: RegionStrategy;
  label: string;
  /** Rule strategy `fallback`: when the area has no candidate, use every allowed region. */
  fallback: boolean;
}

export const DISCONNECTED: StatusResponse = {
  status: 'disconnected',
  latency: null,
  region: null,
  session_id: null,
  node_id: null,
  protocol: null,
  cipher: null,
};

export class ConnectionService {
  constructor(
    private readonly inventory: Inventory,
    private readonly live: LiveSessions,
    private readonly revocations: Revocations,
    private readonly quota: Quota,
    private readonly bus: EventBus,
    private readonly clock: Clock,
    private readonly tunnels: DeviceTunnelService,
  ) {}

  async connect(auth: DeviceAuth, req: ConnectRequest): Promise<Result<ConnectResponse>> {
    const plan = planOf(auth.plan);
    const protocol = req.protocol ?? 'wireguard';
    // A platform is stream mode's: it implies streaming (the schema refuses another usage).
    const usage = req.usage ?? (req.platform === undefined ? 'general' : 'streaming');
    const notices: Notice[] = [];
    let cipher: Encryption;
    if (protocol === 'wireguard') {
      // WireGuard has one cipher suite; say so instead of pretending.
      cipher = 'ChaCha20-Poly1305';
      if (req.encryption === 'AES-256-GCM') {
        notices.push({
          code: 'cipher-substituted',
          message:
            'WireGuard always encrypts with ChaCha20-Poly1305; AES-256-GCM was asked for, so ChaCha20-Poly1305 is in effect. Choose protocol "ferry" for AES-256-GCM.',
          params: { asked: 'AES-256-GCM', used: 'ChaCha20-Poly1305' },
        });
      }
    } else {
      cipher = req.encryption ?? 'AES-256-GCM';
    }
    if (!plan.protocols.includes(protocol)) {
      return fail('forbidden', `the ${plan.name} plan does not include protocol ${protocol}`);
    }
    if (await this.quota.overCap(auth.accountId, plan)) {
      return fail(
        'data-cap-reached',
        `this month's data on the ${plan.name} plan is used up; it resets on the 1st (UTC), or upgrade to premium`,
      );
    }

    // Whose session this is: the device's own, or one of its tunnels' (own peer, own addresses).
    let peer = { id: auth.deviceId, ipv4: auth.tunnelIpv4, ipv6: auth.tunnelIpv6 };
    if (req.tunnel !== undefined) {
      const tunnel = await this.tunnels.find(auth, req.tunnel);
      if (!tunnel) {
        return fail(
          'not-found',
          `this device has no tunnel tagged ${req.tunnel}: register it first (POST /devices/:id/tunnels)`,
        );
      }
      peer = { id: tunnel.id, ipv4: tunnel.tunnel_ipv4, ipv6: tunnel.tunnel_ipv6 };
    }

    const view = await this.inventory.snapshot();
    const { regions, nodes } = view;
    const scoped = resolveRegion(req.region ?? 'auto', regions, plan);
    if (!scoped.ok) return scoped;
    const scope = scoped.value;
    const checks = this.inventory.platforms;
    let platform: string | undefined;
    if (req.platform !== undefined) {
      platform = checks.resolve(req.platform, view.platforms);
      if (platform === undefined) {
        const allowed = checks.names(view.platforms);
        return fail('validation-failed', `unknown platform "${req.platform}"`, {
          errors: [{ field: 'platform', message: 'a platform of the service’s table', allowed }],
        });
      }
    }

    const now = this.clock.nowMs();
    const usable = (n: NodeRow) =>
      this.inventory.takesSessions(n, protocol, now) &&
      n.load < 1 &&
      (protocol === 'wireguard' || (n.ferry_port !== null && n.ferry_public_key !== null)) &&
      (req.transport !== 'tls' || (n.tls_port !== null && n.tls_server_name !== null));
    /** Stream mode: the node's own latest check of the platform, when it counts. */
    const verifiedCheck = (n: NodeRow) =>
      view.platformsByNode
        .get(n.id)
        ?.find((p) => p.platform === platform && checks.isVerified(p, now));
    const qualifies = (n: NodeRow) => usable(n) && (platform === undefined || !!verifiedCheck(n));
    const toCandidate = (n: NodeRow): Candidate => ({
      id: n.id,
      region: n.region_id,
      load: n.load,
      latencyMs: req.latencies?.[n.id],
    });
    let candidates = nodes
      .filter((n) => scope.regionIds.includes(n.region_id) && qualifies(n))
      .map(toCandidate);
    if (candidates.length === 0 && scope.fallback) {
      candidates = nodes
        .filter((n) => planAllowsRegion(plan, n.region_id) && qualifies(n))
        .map(toCandidate);
      if (candidates.length) {
        notices.push({
          code: 'region-fallback',
          message: `no node is available in ${scope.label}; connected to the best other region`,
          params: { asked: scope.label },
        });
      }
    }
    if (candidates.length === 0 && platform !== undefined) {
      // Nodes are there but none is verified for the platform: say where one is.
      const there = nodes.some(
        (n) =>
          (scope.regionIds.includes(n.region_id) ||
            (scope.fallback && planAllowsRegion(plan, n.region_id))) &&
          usable(n),
      );
      if (there) {
        const verifiedRegions = [
          ...new Set(
            nodes
              .filter((n) => planAllowsRegion(plan, n.region_id) && qualifies(n))
              .map((n) => n.region_id),
          ),
        ].sort();
        const name = checks.nameOf(platform);
        return fail(
          'platform-unverified',
          `no node in ${scope.label} is verified for ${name} now (its latest check found a proxy verdict, no catalogue, or is too old)` +
            (verifiedRegions.length
              ? `; verified in: ${verifiedRegions.join(', ')}`
              : '; no region of your plan has a verified node now'),
          { extra: { platform, verified_regions: verifiedRegions } },
        );
      }
    }
    // Failover: nodes the client could not reach are passed over while any other is left.
    const unreachable = new Set(req.unreachable ?? []);
    const reachable = candidates.filter((c) => !unreachable.has(c.id));
    if (reachable.length > 0 && reachable.length < candidates.length) {
      candidates = reachable;
      notices.push({
        code: 'unreachable-passed-over',
        message: 'chose another node than the one this device could not reach',
      });
    }
    // On PostgreSQL the session came with the token: one round trip fewer.
    const current =
      peer.id === auth.deviceId && auth.sessionAtAuth !== undefined
        ? auth.sessionAtAuth
        : await this.live.get(peer.id);
    const choice = chooseNode(candidates, scope.strategy, current?.nodeId);
    if (!choice) {
      const serving = req.transport ? ` serving ${req.transport.toUpperCase()}` : '';
      return fail(
        'no-node-available',
        `no healthy ${protocol} node${serving} with free capacity in ${scope.label}; try again shortly or another region`,
        // A node becomes a candidate with its next heartbeat.
        { retryAfterSeconds: this.inventory.heartbeatSeconds },
      );
    }
    const node = nodes.find((n) => n.id === choice.node.id)!;
    const reasons = [...choice.reasons];
    let entry: ConnectResponse['entry'];
    if (req.entry_region !== undefined) {
      const hop = this.entryFor(req.entry_region, node, nodes, regions, protocol, peer.ipv4, now);
      if (!hop.ok) return hop;
      entry = hop.value;
      reasons.push(`entering at ${entry.id} (${entry.region}), which forwards to this node`);
    }
    if (platform !== undefined) {
      const check = verifiedCheck(node)!;
      const age = Math.max(0, Math.floor((now - check.checked_ms) / 1000));
      const catalogue = check.catalog_region ? `, ${check.catalog_region} catalogue` : '';
      reasons.unshift(
        `${checks.nameOf(platform)} verified on this node ${age} s ago (its own check${catalogue})`,
      );
    }

    const sessionId = newId('ses');
    await this.live.put({
      deviceId: peer.id,
      sessionId,
      nodeId: node.id,
      region: node.region_id,
      protocol,
      cipher,
      clientLatencyMs: req.latencies?.[node.id] ?? null,
      clientLatencyUntilMs: null,
      nodeLatencyMs: null,
      upUntilMs: null,
    });
    // Checked after the write: a revoke that ran meanwhile may have deleted the live session
    // before we wrote it, so ours is removed here; a later revoke deletes it itself.
    if (this.revocations.wasRevoked(auth.deviceId)) {
      await this.live.delete(peer.id);
      return fail('unauthorized', 'this device was revoked');
    }
    // Likewise a tunnel removed meanwhile: its session must not outlive it.
    if (req.tunnel !== undefined && (await this.tunnels.find(auth, req.tunnel))?.id !== peer.id) {
      await this.live.delete(peer.id);
      return fail('not-found', `the tunnel tagged ${req.tunnel} was removed meanwhile`);
    }
    await this.bus.publish({ kind: 'device', deviceId: peer.id, change: 'status' });

    return ok({
      session_id: sessionId,
      status: 'connecting',
      region: node.region_id,
      protocol,
      cipher,
      usage,
      mode: MODE_OF_USAGE[usage],
      node: {
        id: node.id,
        region: node.region_id,
        endpoint_host: node.endpoint_host,
        // Each block of 65,536 devices has its own interface and port on the node.
        wireguard_port: node.wireguard_port + shardOf(peer.ipv4),
        wireguard_public_key: node.wireguard_public_key!,
        ferry_port: node.ferry_port,
        ferry_public_key: node.ferry_public_key,
        tls_port: node.tls_port,
        tls_server_name: node.tls_server_name,
      },
      ...(entry ? { entry } : {}),
      tunnel: {
        ipv4: peer.ipv4,
        ipv6: peer.ipv6,
        dns: [GATEWAY_IPV4],
        mtu: MTU[protocol],
        keepalive: KEEPALIVE_SECONDS,
        allowed_ips: ['0.0.0.0/0', '::/0'],
      },
      rotation: {
        session_key_seconds: SESSION_KEY_SECONDS,
        session_key_bytes: protocol === 'ferry' ? FERRY_SESSION_KEY_BYTES : null,
      },
      routing: { strategy: `${scope.label}: ${scope.strategy}`, reasons },
      notices,
    });
  }

  /**
   * Multihop's entry: the least loaded healthy relay of `regionId` (a region marked entry) other
   * than the exit, and its ports that forward to the exit (hops.ts).
   */
  private entryFor(
    regionId: string,
    exit: NodeRow,
    nodes: readonly NodeRow[],
    regions: readonly RegionRow[],
    protocol: Protocol,
    ipv4: string,
    now: number,
  ): Result<NonNullable<ConnectResponse['entry']>> {
    const region = regions.find((r) => r.id === regionId);
    if (!region?.entry) {
      const entries = regions.filter((r) => r.entry).map((r) => r.id);
      return fail(
        'not-found',
        `"${regionId}" is not an entry region; entry regions: ${entries.join(', ') || 'none'}`,
      );
    }
    // WireGuard's port differs per block of devices (shards): the entry forwards the first.
    if (protocol === 'wireguard' && shardOf(ipv4) !== 0)
      return fail(
        'no-node-available',
        'multihop carries WireGuard for this device only with protocol ferry',
      );
    const candidates = nodes
      .filter(
        (n) =>
          n.region_id === regionId &&
          n.id !== exit.id &&
          this.inventory.takesSessions(n, protocol, now) &&
          n.load < 1,
      )
      .sort((a, b) => a.load - b.load || (a.id < b.id ? -1 : 1));
    const hop = candidates[0];
    if (!hop)
      return fail('no-node-available', `no healthy entry relay in ${regionId}; try again shortly`, {
        retryAfterSeconds: this.inventory.heartbeatSeconds,
      });
    const ports = entryPorts(hopSlots(nodes).get(exit.id)!, exit);
    return ok({ id: hop.id, region: hop.region_id, endpoint_host: hop.endpoint_host, ...ports });
  }

  status(auth: DeviceAuth): Promise<StatusResponse> {
    return this.statusOf(auth.deviceId);
  }

  /** A device's status by its id: the caller has checked that it may see the device. */
  async statusOf(deviceId: string): Promise<StatusResponse> {
    const s = await this.live.get(deviceId);
    return s ? statusView(s, this.clock.nowMs()) : DISCONNECTED;
  }

  /**
   * The account's devices, each with its live state as its status shows it: one read of the
   * live sessions for the whole list. The caller has checked that it may see the devices.
   */
  async withLiveState(devices: readonly Device[]): Promise<ListedDevice[]> {
    const sessions = await this.live.getMany(devices.map((d) => d.id));
    const byDevice = new Map(sessions.map((s) => [s.deviceId, s]));
    const now = this.clock.nowMs();
    return devices.map((d) => {
      const session = byDevice.get(d.id);
      const { status, latency, region } = session ? statusView(session, now) : DISCONNECTED;
      return { ...d, status, latency, region };
    });
  }

  /**
   * The client's own measurement of its tunnel: shown over the node's for a while. Nothing
   * changes without a session, or when `sessionId` names one that is no longer current.
   */
  async reportLatency(
    auth: DeviceAuth,
    latencyMs: number,
    sessionId: string | undefined,
  ): Promise<StatusResponse> {
    const before = await this.live.get(auth.deviceId);
    if (!before) return DISCONNECTED;
    const taken = await this.live.reportClientLatency(
      auth.deviceId,
      sessionId,
      latencyMs,
      this.clock.nowMs() + CLIENT_LATENCY_FRESH_SECONDS * 1000,
    );
    const after = await this.status(auth);
    // A tunnel that was up without a latency is connected from this report on: say so.
    if (taken && after.status !== shownState(before, this.clock.nowMs()))
      await this.bus.publish({ kind: 'device', deviceId: auth.deviceId, change: 'status' });
    return after;
  }

  async disconnect(auth: DeviceAuth): Promise<void> {
    if (await this.live.delete(auth.deviceId)) {
      await this.bus.publish({ kind: 'device', deviceId: auth.deviceId, change: 'status' });
    }
  }
}

/** What GET /status shows of a live session. */
function statusView(s: LiveSession, nowMs: number): StatusResponse {
  const latency = shownLatencyMs(s, nowMs);
  return {
    status: shownState(s, nowMs),
    latency: latency === null ? null : `${Math.round(latency)}ms`,
    region: s.region,
    session_id: s.sessionId,
    node_id: s.nodeId,
    protocol: s.protocol,
    cipher: s.cipher,
  };
}

/** `auto`, a region id, or a rule `<area>[:<strategy>]` → the regions to choose from. */
export function resolveRegion(
  value: string,
  regions: readonly RegionRow[],
  plan: PlanRule,
): Result<Scope> {
  const allowed = regions.filter((r) => planAllowsRegion(plan, r.id)).map((r) => r.id);
  if (value === 'auto')
    return ok({ regionIds: allowed, strategy: 'lowest-latency', label: 'auto', fallback: false });
  const notInPlan = (what: string) =>
    fail(
      'region-not-in-plan',
      `the ${plan.name} plan does not include ${what}; allowed: ${allowed.join(', ')}`,
      {
        extra: { allowed_regions: allowed },
      },
    );

  if (regions.some((r) => r.id === value)) {
    return allowed.includes(value)
      ? ok({ regionIds: [value], strategy: 'lowest-latency', label: value, fallback: false })
      : notInPlan(`region ${value}`);
  }
  const [area, strategy = 'lowest-latency', ...rest] = value.split(':');
  const areas = [...new Set(regions.map((r) => r.area))];
  if (
    area &&
    rest.length === 0 &&
    areas.includes(area) &&
    (REGION_STRATEGIES as readonly string[]).includes(strategy)
  ) {
    const inArea = regions.filter((r) => r.area === area).map((r) => r.id);
    const ids = inArea.filter((id) => allowed.includes(id));
    if (ids.length === 0 && strategy !== 'fallback') return notInPlan(`area ${area}`);
    return ok({
      regionIds: ids,
      strategy: strategy === 'fallback' ? 'lowest-latency' : (strategy as RegionStrategy),
      label: `area ${area}`,
      fallback: strategy === 'fallback',
    });
  }
  return fail('validation-failed', `unknown region "${value}"`, {
    errors: [
      {
        field: 'region',
        message: 'auto, a region id, or a region rule <area>[:lowest-latency|least-load|fallback]',
        allowed: ['auto', ...regions.map((r) => r.id), ...areas.map((a) => `${a}[:strategy]`)],
      },
    ],
  });
}

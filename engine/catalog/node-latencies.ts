// The client's own latency to the nodes: authenticated probe rounds (netcli latency-check, and a
// short round while a connect is under way, when the last is old, of the nodes of its region
// that its answer named), smoothed per node for smart routing and the regions' readout, kept in
// memory only. The kill switch lets the probes out by the policy of the state they run in (the
// caller's business).
import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import { isIP } from 'node:net';

import {
  latencyText,
  type ConnectResponse,
  type ControlClient,
  type NodeLatency,
} from '../../contracts/index.js';
import { runCommand } from '../../platform/os/command.js';
import { round2, summarizeRtts } from '../probes/statistics.js';
import { probeRoundTrip } from '../tunnel/probe.js';
import {
  probeNodes,
  probeTargets,
  smoothLatencies,
  type Datagrams,
  type ProbeTarget,
} from '../probes/index.js';
import type { Endpoint } from '../protection/firewall-policy.js';

/** One echo through a tunnel to its gateway: the round trip in ms, null when unanswered. */
export type TunnelPing = (interfaceName: string, gateway: string) => Promise<number | null>;

/** What latency-check says of a measurement through the tunnel. */
export const THROUGH_TUNNEL_METHOD = 'ICMP echo to the node through the tunnel';
const THROUGH_TUNNEL_INTERVAL_MS = 150;

/** How long probe results steer a connect before a new round is taken. */
const FRESH_MS = 5 * 60_000;

/** The healthy nodes of the regions the plan allows (latency-check's: two calls of its own). */
export async function allowedNodes(control: ControlClient, signal?: AbortSignal) {
  const [{ regions }, { nodes }] = await Promise.all([
    control.listRegions({ signal }),
    control.listNodes({ signal }),
  ]);
  const allowed = new Set(regions.filter((r) => r.allowed).map((r) => r.id));
  return nodes.filter((n) => n.healthy && allowed.has(n.region));
}

/** The probe responders of `targets` as the kill switch lets them out (addresses, UDP). */
export function probeEndpoints(targets: readonly ProbeTarget[]): Endpoint[] {
  return targets.map((t) => ({ address: t.host, port: t.port, protocol: 'udp' as const }));
}

export class NodeLatencies {
  /** Smoothed latency per node id (ms), and when the last round was taken. */
  #smoothed: Record<string, number> = {};
  #at = -Infinity;
  /** The nodes the last connect answer named for measuring (with an address, not a name). */
  #known: ProbeTarget[] = [];

  /**
   * `datagrams`: the probes' sockets (default: the engine's marked UDP sockets, which go around
   * the tunnel); `ping`: one echo through a tunnel to its gateway (default: ping -I).
   */
  constructor(
    private readonly datagrams?: Datagrams,
    private readonly ping: TunnelPing = (iface, gateway) =>
      probeRoundTrip(runCommand, iface, gateway),
  ) {}

  /** The smoothed latencies, for POST /connect's `latencies`. */
  get smoothed(): Readonly<Record<string, number>> {
    return this.#smoothed;
  }

  /** A region's best node's smoothed latency, as "<n>ms"; null when none was measured. */
  ofRegion(region: string, nodes: readonly { id: string; region: string }[]): string | null {
    const measured = nodes
      .filter((n) => n.region === region && this.#smoothed[n.id] !== undefined)
      .map((n) => this.#smoothed[n.id]!);
    return measured.length > 0 ? latencyText(Math.min(...measured)) : null;
  }

  /** Takes in the nodes a connect answer names for measuring. */
  know(answer: Pick<ConnectResponse, 'probe_nodes'>): void {
    if (!answer.probe_nodes) return;
    this.#known = usable(probeTargets(answer.probe_nodes));
    // No node to measure: that round is taken (asking again at every connect gains nothing).
    if (this.#known.length === 0) this.#at = performance.now();
  }

  /** Whether the last round is old (or there was none): a connect then asks for the nodes. */
  stale(): boolean {
    return performance.now() - this.#at >= FRESH_MS;
  }

  /**
   * The nodes of `region` a round during this connect would measure (the ones a failover there
   * would choose from): none while the last round is fresh.
   */
  due(region: string): ProbeTarget[] {
    return this.stale() ? this.#known.filter((t) => t.region === region) : [];
  }

  /** Probes `nodes` `count` times each and takes the results in (sorted, unanswered last). */
  async measure(targets: readonly ProbeTarget[], count: number): Promise<NodeLatency[]> {
    const results = await probeNodes([...targets], { count, ...this.sockets() });
    this.remember(results);
    return results.sort((x, y) => (x.avg_ms ?? Infinity) - (y.avg_ms ?? Infinity));
  }

  /**
   * The node in use, measured through the tunnel (nothing leaves beside it): `count` echoes to
   * its gateway on the tunnel's interface, one after the other, taken in as any measurement.
   */
  async measureThroughTunnel(
    node: { id: string; region: string },
    tunnel: { interfaceName: string; gateway: string },
    count: number,
  ): Promise<NodeLatency> {
    const rtts: (number | null)[] = [];
    for (let i = 0; i < count; i++) {
      if (i > 0) await delay(THROUGH_TUNNEL_INTERVAL_MS);
      rtts.push(await this.ping(tunnel.interfaceName, tunnel.gateway).catch(() => null));
    }
    const s = summarizeRtts(rtts);
    const result: NodeLatency = {
      node_id: node.id,
      region: node.region,
      method: THROUGH_TUNNEL_METHOD,
      samples: s.samples,
      avg_ms: s.avgMs === null ? null : round2(s.avgMs),
      jitter_ms: s.jitterMs === null ? null : round2(s.jitterMs),
      loss: s.loss,
    };
    this.remember([result]);
    return result;
  }

  /**
   * A short round of probes, bounded so that it never takes long: nodes that do not answer in
   * time simply have no measurement, and routing falls back to load.
   */
  async refresh(targets: readonly ProbeTarget[], signal?: AbortSignal): Promise<void> {
    if (targets.length === 0) return;
    try {
      const results = await probeNodes([...targets], {
        count: 2,
        intervalMs: 50,
        timeoutMs: 400,
        deadlineMs: 500,
        ...(signal ? { signal } : {}),
        ...this.sockets(),
      });
      this.remember(results);
    } catch {
      // Without measurements the control plane routes by load.
    }
  }

  private sockets(): { datagrams?: Datagrams } {
    return this.datagrams ? { datagrams: this.datagrams } : {};
  }

  private remember(results: readonly NodeLatency[]): void {
    this.#smoothed = smoothLatencies(this.#smoothed, results);
    this.#at = performance.now();
  }
}

/** The targets with an address: the kill switch lets addresses out, not names. */
export const usable = (targets: readonly ProbeTarget[]) =>
  targets.filter((t) => isIP(t.host) !== 0);

// The client's own latency to the nodes: authenticated probe rounds (netcli latency-check, and a
// short round before a connect when the last is old), smoothed per node for smart routing and
// the regions' readout, kept in memory only. The kill switch lets the probes out while it holds.
import { performance } from 'node:perf_hooks';
import { isIP } from 'node:net';

import { latencyText, type ControlClient, type NodeLatency } from '../contracts/index.js';
import { probeNodes, probeTargets, smoothLatencies, type ProbeTarget } from './probes/index.js';
import type { ConnectionGuard } from './protection/connection-guard.js';

/** How long probe results steer a connect before a new round is taken. */
const FRESH_MS = 5 * 60_000;

/** The healthy nodes of the regions the plan allows. */
export async function allowedNodes(control: ControlClient, signal?: AbortSignal) {
  const [{ regions }, { nodes }] = await Promise.all([
    control.listRegions({ signal }),
    control.listNodes({ signal }),
  ]);
  const allowed = new Set(regions.filter((r) => r.allowed).map((r) => r.id));
  return nodes.filter((n) => n.healthy && allowed.has(n.region));
}

export class NodeLatencies {
  /** Smoothed latency per node id (ms), and when the last round was taken. */
  #smoothed: Record<string, number> = {};
  #at = -Infinity;

  constructor(private readonly guard: ConnectionGuard) {}

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

  /** Probes `nodes` `count` times each and takes the results in (sorted, unanswered last). */
  async measure(nodes: Parameters<typeof probeTargets>[0], count: number): Promise<NodeLatency[]> {
    const results = await probeNodes(await this.allowProbes(probeTargets(nodes)), { count });
    this.remember(results);
    return results.sort((x, y) => (x.avg_ms ?? Infinity) - (y.avg_ms ?? Infinity));
  }

  /**
   * A short round of probes before a connect when the last is old (or there was none), bounded
   * so that it never holds a connect up for long: nodes that do not answer in time simply have
   * no measurement, and routing falls back to load.
   */
  async refresh(control: ControlClient, signal: AbortSignal): Promise<void> {
    if (performance.now() - this.#at < FRESH_MS) return;
    try {
      const targets = await this.allowProbes(probeTargets(await allowedNodes(control, signal)));
      const results = await probeNodes(targets, {
        count: 2,
        intervalMs: 50,
        timeoutMs: 400,
        deadlineMs: 500,
        signal,
      });
      this.remember(results);
    } catch {
      // Without measurements the control plane routes by load.
    }
  }

  /**
   * The probe targets the kill switch lets out (to the nodes' responders only, UDP, from the
   * engine's probe sockets): probes go around the tunnel, the way the tunnel's own packets go.
   */
  private async allowProbes(targets: ProbeTarget[]): Promise<ProbeTarget[]> {
    if (this.guard.facts.stage === 'off') return targets;
    const usable = targets.filter((t) => isIP(t.host) !== 0);
    const known = new Set(this.guard.facts.probes.map((p) => `${p.address}:${p.port}`));
    if (usable.some((t) => !known.has(`${t.host}:${t.port}`)))
      await this.guard.update({
        probes: usable.map((t) => ({ address: t.host, port: t.port, protocol: 'udp' })),
      });
    return usable;
  }

  private remember(results: readonly NodeLatency[]): void {
    this.#smoothed = smoothLatencies(this.#smoothed, results);
    this.#at = performance.now();
  }
}

// What the account may connect to: the regions (with the latency this client measured), the
// user's region rules, latency checks of the nodes, and stream-test of a platform through the
// tunnel. Reads the control plane; the connection's state only for what it measures.
import { findPlatform, latencyText, type RegionRule } from '../../contracts/index.js';
import type { MainConnection } from '../connection/connection.js';
import { platformAddresses } from '../connection/platform-pins.js';
import type { EngineContext } from '../engine-context.js';
import { FerryError } from '../errors.js';
import { probeTargets, type ProbeTarget } from '../probes/index.js';
import { gatewayOf } from '../tunnel/probe.js';
import { runStreamTest } from '../stream-test.js';
import { allowedNodes, probeEndpoints, usable } from './node-latencies.js';
import { checkedRule } from './region-rules.js';

export class CatalogService {
  constructor(
    private readonly ctx: EngineContext,
    private readonly connection: MainConnection,
  ) {}

  async listRegions() {
    const control = await this.ctx.signedInControl();
    const [{ regions }, { nodes }, rules] = await Promise.all([
      control.listRegions(),
      control.listNodes(),
      this.ctx.rules.list(),
    ]);
    const snap = this.connection.mem.machine.snapshot;
    return {
      regions: regions.map((r) => ({
        ...r,
        // A region's latency: the tunnel's while connected there, else its best node's probes.
        latency:
          snap.tunnel?.region === r.id && snap.latencyMs !== null
            ? latencyText(snap.latencyMs)
            : this.ctx.latencies.ofRegion(r.id, nodes),
      })),
      rules,
    };
  }

  async addRegionRule(request: {
    area: string;
    strategy: RegionRule['strategy'];
    name?: string | undefined;
  }): Promise<RegionRule> {
    const control = await this.ctx.signedInControl();
    const { regions } = await control.listRegions();
    return this.ctx.rules.add(checkedRule(regions, request));
  }

  removeRegionRule(name: string): Promise<void> {
    return this.ctx.rules.remove(name);
  }

  /**
   * Average, jitter and loss from authenticated probes: to the current node, or with `all` to
   * every healthy node the plan allows, sorted (unanswered last). Feeds smart routing. While
   * connected only the node in use is measured, through the tunnel: a probe to another node
   * would leave beside the tunnel and give it away (the answer's note says so).
   */
  async latencyCheck(request: { all: boolean; count: number }) {
    const control = await this.ctx.signedInControl();
    const started = performance.now();
    const mem = this.connection.mem;
    const live = this.connection.state === 'connected' ? mem.live : null;
    if (!request.all && !live) {
      throw new FerryError(
        'not-connected',
        'not connected: connect first, or measure every node with latency-check --all',
      );
    }
    const nodes = await allowedNodes(control);
    const took = () => Math.round(performance.now() - started);
    if (live) {
      const tunnel = { interfaceName: live.tunnel.interfaceName, gateway: gatewayOf(live.answer) };
      const results = [
        await this.ctx.latencies.measureThroughTunnel(live.answer.node, tunnel, request.count),
      ];
      return {
        results,
        duration_ms: took(),
        ...(request.all
          ? {
              note: 'only the node in use is measured while connected, through the tunnel: probes to other nodes would leave beside it and give it away; disconnect to measure every node',
            }
          : {}),
      };
    }
    const targets = await this.allowProbes(probeTargets(nodes));
    const results = await this.ctx.latencies.measure(targets, request.count);
    return { results, duration_ms: took() };
  }

  /**
   * The probe targets the kill switch lets out while it holds (to the nodes' responders only,
   * UDP, from the engine's probe sockets): probes go around the tunnel, as its packets do.
   */
  private async allowProbes(targets: ProbeTarget[]): Promise<ProbeTarget[]> {
    const { guard } = this.ctx;
    if (guard.facts.stage === 'off') return targets;
    const allowed = usable(targets);
    const known = new Set(guard.facts.probes.map((p) => `${p.address}:${p.port}`));
    if (allowed.some((t) => !known.has(`${t.host}:${t.port}`)))
      await guard.update({ probes: probeEndpoints(allowed) });
    return allowed;
  }

  /** A streaming platform of the table asked through the tunnel: reachable, catalogue, verdict. */
  async streamTest(request: { platform: string }, signal?: AbortSignal) {
    const { ctx } = this;
    const live = this.connection.state === 'connected' ? this.connection.mem.live : null;
    const control = live ? await ctx.controlClient() : null;
    // Asked through the tunnel even where the split tunnel would send the platform directly:
    // its addresses are pinned to the tunnel while the test runs.
    const id = live ? findPlatform(ctx.platforms, request.platform) : undefined;
    const pinnedBefore = ctx.guard.facts.pinned;
    const pin = id !== undefined && ctx.guard.facts.split !== null;
    if (pin) {
      const addresses = await platformAddresses(ctx.platforms, id, ctx.deps.lookupHost);
      await ctx.guard.update({ pinned: [...new Set([...pinnedBefore, ...addresses])] });
    }
    try {
      return await runStreamTest({
        table: ctx.platforms,
        platform: request.platform,
        nodeRegion: live?.answer.node.region ?? null,
        regions: async () => (control ? (await control.listRegions({ signal })).regions : []),
        signal,
        timeoutMs: ctx.deps.streamProbeTimeoutMs,
      });
    } finally {
      // Stream mode's own pins stay; what the test added goes.
      if (pin && ctx.guard.facts.pinned !== pinnedBefore)
        await ctx.guard.update({ pinned: pinnedBefore }).catch(() => undefined);
    }
  }
}

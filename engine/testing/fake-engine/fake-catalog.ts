// The fake engine's catalog: the regions with the latency the engine knows (the tunnel's where it
// is connected, else the last latency-check's), region rules kept by name, latency-check's
// measurements, and stream-test's verdicts, refused as the real engine refuses them.
import {
  SHIPPED_PLATFORMS,
  latencyText,
  type LocalStatus,
  type NodeLatency,
  type PlatformTable,
  type RegionRule,
} from '../../../contracts/index.js';
import type { EngineApi } from '../../engine-api.js';
import { checkedRule } from '../../catalog/region-rules.js';
import { FerryError } from '../../errors.js';
import { smoothLatencies } from '../../probes/index.js';
import { choosePlatform, streamVerdict, type ProbeOutcome } from '../../stream-test.js';
import { FAKE_REGIONS, NODE_OF_REGION } from './fake-world.js';

type Answer<K extends keyof EngineApi> = EngineApi[K] extends (...a: never[]) => infer R
  ? Awaited<R>
  : never;

/** What each node answers latency-check: avg ms (null: nothing came back) and loss. */
const MEASURED: Readonly<Record<string, { avg: number | null; loss: number }>> = {
  global: { avg: 48.25, loss: 0 },
  'asia-east': { avg: 12.5, loss: 0.2 },
};

export class FakeCatalog {
  rules: RegionRule[] = [];
  /** The platform table stream-test knows (the shipped one unless a test adds entries). */
  platforms: PlatformTable = SHIPPED_PLATFORMS;
  /**
   * What each platform answers stream-test, by platform id; a platform without one answers 200
   * with the node country's markers of the shipped entries' body readers.
   */
  readonly streamAnswers = new Map<string, ProbeOutcome>();
  /** Smoothed latency per node from latency-check, as the engine keeps it (memory only). */
  #smoothed: Record<string, number> = {};

  listRegions(current: LocalStatus): Answer<'listRegions'> {
    return {
      regions: FAKE_REGIONS.map((r) => ({ ...r, latency: this.regionLatency(r.id, current) })),
      rules: this.rules.map((r) => ({ ...r })),
    };
  }

  /** The tunnel's latency while connected there, else its node's measured one, else none. */
  private regionLatency(region: string, current: LocalStatus): string | null {
    if (current.region === region && current.latency !== null) return current.latency;
    const measured = this.#smoothed[NODE_OF_REGION[region]!];
    return measured === undefined ? null : latencyText(measured);
  }

  addRegionRule(request: {
    area: string;
    strategy: RegionRule['strategy'];
    name?: string | undefined;
  }): RegionRule {
    // The engine's own check: the fake's regions in place of the control plane's.
    const rule = checkedRule(FAKE_REGIONS, request);
    if (this.rules.some((r) => r.name === rule.name))
      throw new FerryError('rule-exists', `a region rule named ${rule.name} exists`);
    this.rules.push(rule);
    return { ...rule };
  }

  removeRegionRule(name: string): void {
    const typed = name.toLowerCase();
    if (!this.rules.some((r) => r.name === typed))
      throw new FerryError('rule-not-found', `there is no region rule named ${typed}`);
    this.rules = this.rules.filter((r) => r.name !== typed);
  }

  /** Every allowed node with `all`, else the current one's; not connected: not-connected. */
  latencyCheck(request: { all: boolean; count: number }, current: LocalStatus) {
    const node = current.status === 'connected' ? current.node : null;
    if (!request.all && !node) {
      throw new FerryError(
        'not-connected',
        'not connected: connect first, or measure every node with latency-check --all',
      );
    }
    const results: NodeLatency[] = FAKE_REGIONS.filter((r) => r.allowed && MEASURED[r.id])
      .map((r) => {
        const { avg, loss } = MEASURED[r.id]!;
        return {
          node_id: NODE_OF_REGION[r.id]!,
          region: r.id,
          method: 'authenticated UDP probe',
          samples: request.count,
          avg_ms: avg,
          jitter_ms: avg === null ? null : Math.round(avg * 10) / 100,
          loss,
        };
      })
      .filter((r) => request.all || r.node_id === node!.id)
      .sort((x, y) => (x.avg_ms ?? Infinity) - (y.avg_ms ?? Infinity));
    this.#smoothed = smoothLatencies(this.#smoothed, results);
    return { results, duration_ms: 840 };
  }

  /** The platform asked through the tunnel; one the table lacks first, then the sign-in. */
  streamTest(
    request: { platform: string },
    current: LocalStatus,
    requireSession: () => void,
  ): Answer<'streamTest'> {
    const { id, def } = choosePlatform(this.platforms, request.platform);
    requireSession();
    const region = current.status === 'connected' ? current.region : null;
    if (region === null) throw new FerryError('not-connected', 'not connected: connect first');
    const country = FAKE_REGIONS.find((r) => r.id === region)?.country ?? null;
    const markers = country
      ? `data-country="${country}" "INNERTUBE_CONTEXT_GL":"${country}" "currentTerritory":"${country}"`
      : '';
    const outcome: ProbeOutcome = this.streamAnswers.get(id) ?? {
      ok: true,
      answer: { status: 200, headers: {}, locations: [], body: markers },
    };
    return streamVerdict({
      id,
      platform: def,
      outcome,
      nodeRegion: region,
      nodeCountry: country,
      regions: FAKE_REGIONS,
      checkedAt: new Date('2026-05-04T10:00:00Z'),
      durationMs: 320,
    });
  }
}

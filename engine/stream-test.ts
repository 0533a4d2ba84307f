// netcli stream-test: one streaming platform asked through the current tunnel as its table entry
// says (contracts/platforms.ts), its answer read, and a verdict a person can act on. Nothing here
// logs: a platform's URL and answer are destinations, which the no-logs rule keeps out of logs.
import { readFile } from 'node:fs/promises';
import { Agent, fetch as undiciFetch } from 'undici';
import {
  readPlatformsFile,
  SHIPPED_PLATFORMS,
  findPlatform,
  readAnswer,
  type PlatformDef,
  type PlatformTable,
  type Region,
  type StreamTestResult,
  type StreamVerdict,
} from '../contracts/index.js';
import {
  PROBE_MAX_REDIRECTS,
  probePlatform as probeWith,
  type ProbeOutcome,
} from '../platform/probes/platform-probe.js';
import { FerryError, errnoCode } from './errors.js';

export const STREAM_PROBE_TIMEOUT_MS = 10_000;

// ---- the table ----------------------------------------------------------------------------------

/**
 * The shipped table with a `--platforms-file`'s entries added or replacing whole entries. A file
 * that cannot be read or is not the table's shape is refused (a host refuses to start with it).
 */
export async function loadPlatformTable(file?: string): Promise<PlatformTable> {
  if (file === undefined) return SHIPPED_PLATFORMS;
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    throw new FerryError(
      'config-unreadable',
      `the platforms file could not be read (${errnoCode(e) ?? 'I/O error'})`,
      { cause: e },
    );
  }
  const read = readPlatformsFile(text);
  // The fields and what is wrong with each travel as `errors` (netcli prints them as hints).
  if (!read.ok)
    throw new FerryError(
      'config-invalid',
      read.message,
      read.errors.length ? { errors: read.errors } : {},
    );
  return read.table;
}

/** The platform `--platform` names, or config-invalid listing the ones there are. */
export function choosePlatform(
  table: PlatformTable,
  name: string,
): { id: string; def: PlatformDef } {
  const id = findPlatform(table, name);
  if (id === undefined) {
    const allowed = Object.keys(table).sort();
    throw new FerryError(
      'config-invalid',
      `there is no platform ${name} in the table: the platforms are ${allowed.join(', ')}`,
      { errors: [{ field: 'platform', message: 'a platform of the table', allowed }] },
    );
  }
  return { id, def: table[id]! };
}

// ---- the probe ----------------------------------------------------------------------------------

export type { ProbeOutcome };

/**
 * Asks the platform as its table entry says (platform/probes/platform-probe.ts, which the relays' checks
 * use too), over a connection pool of its own: made now, so through the tunnel that is up now,
 * and closed after.
 */
export async function probePlatform(
  platform: PlatformDef,
  opts: { timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<ProbeOutcome> {
  const timeoutMs = opts.timeoutMs ?? STREAM_PROBE_TIMEOUT_MS;
  const agent = new Agent({ connect: { timeout: timeoutMs }, connections: 2 });
  try {
    return await probeWith(platform, {
      fetch: (url, init) =>
        undiciFetch(url, { ...init, dispatcher: agent }) as unknown as Promise<Response>,
      timeoutMs,
      signal: opts.signal,
    });
  } catch (e) {
    if (opts.signal?.aborted) {
      throw new FerryError('cancelled', 'the stream-test was cancelled', { cause: e });
    }
    throw e;
  } finally {
    agent.destroy().catch(() => undefined);
  }
}

// ---- the verdict --------------------------------------------------------------------------------

export interface VerdictInput {
  id: string;
  platform: PlatformDef;
  outcome: ProbeOutcome;
  /** The region of the node the tunnel goes to, and that region's country (null: none). */
  nodeRegion: string | null;
  nodeCountry: string | null;
  /** The regions the account sees (GET /regions): a fix names one where the platform is. */
  regions: readonly Pick<Region, 'id' | 'country' | 'allowed'>[];
  checkedAt: Date;
  durationMs: number;
  timeoutMs?: number;
}

function where(region: string | null, country: string | null): string {
  if (!region) return 'this node';
  return country ? `${region} (${country})` : region;
}

/** The answer read against the table, the catalogue's country against the node's, and a fix. */
export function streamVerdict(v: VerdictInput): StreamTestResult {
  const { id, platform: p, outcome, nodeRegion, nodeCountry } = v;
  const name = p.name;
  const base = {
    platform: id,
    name,
    node_region: nodeRegion,
    node_country: nodeCountry,
    checked_at: v.checkedAt.toISOString(),
    duration_ms: Math.round(v.durationMs),
  };
  const result = (
    verdict: StreamVerdict,
    r: {
      reachable: boolean;
      status: number | null;
      catalog?: string | null;
      matches?: boolean | null;
      detail: string;
      fix: string | null;
    },
  ): StreamTestResult => ({
    ...base,
    reachable: r.reachable,
    http_status: r.status,
    catalog_region: r.catalog ?? null,
    matches: r.matches ?? null,
    verdict,
    detail: r.detail,
    fix: r.fix,
  });
  const retry = `check the tunnel (netcli status), then try again or another region (netcli region list)`;
  if (!outcome.ok) {
    const seconds = Math.round((v.timeoutMs ?? STREAM_PROBE_TIMEOUT_MS) / 1000);
    const detail = {
      timeout: `${name} did not answer through the tunnel within ${seconds} s`,
      network: `${name} could not be reached through the tunnel`,
      'too-many-redirects': `${name} sent more than ${PROBE_MAX_REDIRECTS} redirects`,
    }[outcome.reason];
    return result('unreachable', { reachable: false, status: null, detail, fix: retry });
  }
  const status = outcome.answer.status;
  const reading = readAnswer(p, outcome.answer);
  const here = where(nodeRegion, nodeCountry);
  switch (reading.kind) {
    case 'unrecognised':
      return result('unreachable', {
        reachable: false,
        status,
        detail: `${name} answered HTTP ${status}, which its table entry does not recognise`,
        fix: `${retry}; if it persists, the platform changed and its table entry needs an update`,
      });
    case 'proxy':
      return result('proxy-detected', {
        reachable: true,
        status,
        detail: `${name} flags this node as a proxy or VPN (HTTP ${status})`,
        fix: `this node is flagged by ${name}: netcli connect --mode stream --platform ${id} picks a verified one`,
      });
    case 'unavailable':
      return result('unavailable', {
        reachable: true,
        status,
        detail: `${name} is not offered where this node exits, ${here}`,
        fix: p.unavailable_fix ?? unavailableFix(name, p.countries, v.regions),
      });
    case 'served': {
      const catalog = reading.catalogRegion;
      const matches = catalog && nodeCountry ? catalog === nodeCountry : null;
      if (matches === false) {
        const target = v.regions.find((r) => r.allowed && r.country === nodeCountry)?.id;
        return result('region-mismatch', {
          reachable: true,
          status,
          catalog,
          matches,
          detail: `${name} serves its ${catalog} catalogue through ${here}`,
          fix:
            `${name} places this node in ${catalog}: for the ${nodeCountry} catalogue, ` +
            `netcli connect --mode stream --platform ${id}${target ? ` --region ${target}` : ''} ` +
            `picks a node ${name} places in ${nodeCountry}`,
        });
      }
      return result('ok', {
        reachable: true,
        status,
        catalog,
        matches,
        detail:
          catalog === null
            ? `${name} answers through ${here}; the catalogue region could not be read`
            : matches
              ? `the ${catalog} catalogue, as expected for ${here}`
              : `the ${catalog} catalogue through ${here}`,
        fix: null,
      });
    }
  }
}

function unavailableFix(
  name: string,
  countries: readonly string[] | null,
  regions: VerdictInput['regions'],
): string {
  if (countries === null) {
    return `connect to a region where ${name} is offered (netcli region list shows the regions and their countries)`;
  }
  const there = regions.find((r) => r.allowed && r.country && countries.includes(r.country));
  const list = countries.join(', ');
  return there
    ? `${name} is offered in ${list}: connect to a region there: netcli connect --region ${there.id}`
    : `${name} is offered in ${list} only: connect to a region in ${list} (none of your plan's regions is there; netcli region list)`;
}

// ---- one stream-test, as the engine runs it -------------------------------------------------------

export interface StreamTestInput {
  table: PlatformTable;
  /** As typed: an id or alias in any letter case. */
  platform: string;
  /** The region of the node the tunnel goes to; null: no tunnel is up. */
  nodeRegion: string | null;
  /** The account's regions (GET /regions), for the node's country and the fixes. */
  regions: () => Promise<readonly Region[]>;
  signal?: AbortSignal | undefined;
  timeoutMs?: number | undefined;
  now?: () => Date;
}

/** The platform checked first (a typo is cheaper to fix than a connection), then the tunnel. */
export async function runStreamTest(input: StreamTestInput): Promise<StreamTestResult> {
  const { id, def } = choosePlatform(input.table, input.platform);
  if (input.nodeRegion === null) {
    throw new FerryError(
      'not-connected',
      'not connected: stream-test asks the platform through the tunnel, so connect first ' +
        `(netcli connect --mode stream --platform ${id})`,
    );
  }
  const timeoutMs = input.timeoutMs ?? STREAM_PROBE_TIMEOUT_MS;
  const started = performance.now();
  const checkedAt = input.now?.() ?? new Date();
  // Both through the tunnel, at once; without the regions the verdict still stands, less exact.
  const [outcome, regions] = await Promise.all([
    probePlatform(def, { timeoutMs, ...(input.signal ? { signal: input.signal } : {}) }),
    input.regions().catch(() => [] as readonly Region[]),
  ]);
  const nodeCountry = regions.find((r) => r.id === input.nodeRegion)?.country ?? null;
  return streamVerdict({
    id,
    platform: def,
    outcome,
    nodeRegion: input.nodeRegion,
    nodeCountry,
    regions,
    checkedAt,
    durationMs: performance.now() - started,
    timeoutMs,
  });
}

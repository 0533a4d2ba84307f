// The censorship benchmark's table: each case's runs (the first on a new network, the rest from
// what the autopilot remembered) summed up as one row.
import { markdownTable, median, spread } from './bench-kit.js';

/** One connect that got traffic through: what it took and what it ran on. */
export interface RunSample {
  /** From starting `netcli connect` until an HTTP request through the tunnel was answered. */
  connectMs: number;
  /** `transport` of `netcli status --json`: udp, tcp or tls. */
  transport: string;
  /** `protocol` of the same status: wireguard or ferry (the autopilot leaves WireGuard off UDP). */
  protocol: string | null;
  /** `transport_reason.message` of the same status (undefined when it gave none). */
  reason: string | undefined;
  /** iperf3 from the laptop to the foreign server through the tunnel, Mbit/s. */
  mbps: number;
  /**
   * The autopilot moved the tunnel while connected (a throttled UDP): the carrier before ("UDP
   * (WireGuard)") and how long a download ran until the move.
   */
  moved?: { from: string; ms: number };
}

/** A run is a sample, or why it failed. */
export type RunOutcome = RunSample | { failed: string };

export interface CaseOutcome {
  /** The censor's profile(s), as the table's first column says them. */
  name: string;
  /** The runs asked for. */
  planned: number;
  /** The runs in order (the first on a network the autopilot had not seen). */
  runs: RunOutcome[];
  /** Why the case as a whole failed (its test internet did not start, the laptop did not sign up). */
  failed?: string;
}

export const HEADERS = [
  'censor profile(s)',
  'transport',
  'runs ok',
  'first connect s',
  'remembered connect s',
  'throughput Mbit/s',
  'why (the status, in words)',
] as const;

const ok = (r: RunOutcome): r is RunSample => !('failed' in r);
const seconds = (ms: number) => (ms / 1000).toFixed(1);
/** Small figures (a throttled UDP tunnel) keep two decimals; large ones are whole. */
const mbit = (x: number) => (x < 10 ? x.toFixed(2) : x.toFixed(0));
const PROTOCOL_NAME: Record<string, string> = { wireguard: 'WireGuard', ferry: 'Ferry' };
/** "TLS (Ferry)": the transport and the protocol over it. */
export const carrier = (r: Pick<RunSample, 'transport' | 'protocol'>) =>
  `${r.transport.toUpperCase()}${r.protocol ? ` (${PROTOCOL_NAME[r.protocol] ?? r.protocol})` : ''}`;
/** The reason, and the move while connected when there was one. */
const why = (r: RunSample) =>
  `${r.reason ?? '(none given)'}${r.moved ? ` (moved off ${r.moved.from} after ${seconds(r.moved.ms)} s of a download)` : ''}`;
/** The distinct values of `xs` in the order they first came. */
const distinct = (xs: readonly string[]) => [...new Set(xs)];

/** The first line of a failure, for a table cell (no pipes, which would split it). */
export function oneLine(why: string): string {
  return (why.split('\n')[0] ?? '').replace(/\|/g, '/').slice(0, 200);
}

/** One case as a row of HEADERS. */
export function caseRow(c: CaseOutcome): string[] {
  if (c.failed !== undefined)
    return [c.name, '-', `0 of ${c.planned}`, '-', '-', '-', `failed: ${oneLine(c.failed)}`];
  const samples = c.runs.filter(ok);
  const [first, ...rest] = c.runs;
  const remembered = rest.filter(ok).map((r) => r.connectMs);
  const transports = distinct(
    samples.flatMap((r) => (r.moved ? [r.moved.from, carrier(r)] : [carrier(r)])),
  );
  const reasons = distinct(samples.map(why));
  return [
    c.name,
    transports.join(', then ') || '-',
    `${samples.length} of ${c.planned}`,
    first && ok(first) ? seconds(first.connectMs) : 'failed',
    spread(remembered, seconds),
    samples.length ? mbit(median(samples.map((r) => r.mbps))) : '-',
    reasons.join('; later: ') || '-',
  ];
}

/** The failures of every case, one line each ("case run N: why"). */
export function failures(cases: readonly CaseOutcome[]): string[] {
  return cases.flatMap((c) => [
    ...(c.failed !== undefined ? [`${c.name}: ${oneLine(c.failed)}`] : []),
    ...c.runs.flatMap((r, i) => (ok(r) ? [] : [`${c.name} run ${i + 1}: ${oneLine(r.failed)}`])),
  ]);
}

/** The benchmark's table. */
export function caseTable(cases: readonly CaseOutcome[]): string {
  return markdownTable(HEADERS, cases.map(caseRow));
}

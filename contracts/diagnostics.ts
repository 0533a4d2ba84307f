// One-click diagnostics (`netcli diagnose`, POST /api/v1/diagnose): the report's shape, the fixed
// check ids and their titles, the report of an engine that does not answer, and what the control
// plane publishes for the checks (GET /diagnostics). No I/O here.
import { z } from 'zod';

import { CountryCode } from './platforms.js';

/** The checks, in the order a report lists them. */
export const DIAGNOSTIC_CHECK_IDS = [
  'engine',
  'control-plane',
  'api-access',
  'clock',
  'node-udp',
  'node-tcp',
  'censorship',
  'dns-leak',
  'ipv6-leak',
  'mtu',
  'kill-switch',
  'split',
  'domestic-dns',
] as const;
export type DiagnosticCheckId = (typeof DIAGNOSTIC_CHECK_IDS)[number];

/** `skipped`: the check does not apply now (not connected, nothing to compare with). */
export const DIAGNOSTIC_VERDICTS = ['ok', 'warning', 'problem', 'skipped'] as const;
export type DiagnosticVerdict = (typeof DIAGNOSTIC_VERDICTS)[number];

export const DIAGNOSTIC_TITLES: Readonly<Record<DiagnosticCheckId, string>> = {
  engine: 'Engine',
  'control-plane': 'Control plane',
  'api-access': 'API access',
  clock: 'Clock',
  'node-udp': 'Node over UDP',
  'node-tcp': 'Node over TCP',
  censorship: 'Censorship',
  'dns-leak': 'DNS leak',
  'ipv6-leak': 'IPv6 leak',
  mtu: 'MTU',
  'kill-switch': 'Kill switch',
  split: 'Split tunnel',
  'domestic-dns': 'Domestic names',
};

export const DiagnosticCheck = z
  .object({
    id: z.enum(DIAGNOSTIC_CHECK_IDS),
    title: z.string(),
    verdict: z.enum(DIAGNOSTIC_VERDICTS),
    summary: z.string().describe('What was found, in one line a person reads.'),
    fix: z
      .string()
      .nullable()
      .describe('What to do, in one sentence; null when there is nothing to do (ok, skipped).'),
  })
  .meta({ id: 'DiagnosticCheck' });
export type DiagnosticCheck = z.infer<typeof DiagnosticCheck>;

export const DiagnosticsReport = z
  .object({
    checks: z.array(DiagnosticCheck).describe('Every check, in the order of the ids.'),
    problems: z.number().int().min(0),
    warnings: z.number().int().min(0),
    checked_at: z.string().describe('ISO 8601.'),
    duration_ms: z.number().min(0),
  })
  .meta({ id: 'DiagnosticsReport' });
export type DiagnosticsReport = z.infer<typeof DiagnosticsReport>;

/** A check's result; `fix` only where there is something to do. */
export function diagnosticCheck(
  id: DiagnosticCheckId,
  verdict: DiagnosticVerdict,
  summary: string,
  fix: string | null = null,
): DiagnosticCheck {
  return {
    id,
    title: DIAGNOSTIC_TITLES[id],
    verdict,
    summary,
    fix: verdict === 'ok' || verdict === 'skipped' ? null : fix,
  };
}

/** A report of these checks: in the ids' order, one per id (a missing one as skipped), counted. */
export function diagnosticsReport(
  checks: readonly DiagnosticCheck[],
  checkedAt: Date,
  durationMs: number,
): DiagnosticsReport {
  const byId = new Map(checks.map((c) => [c.id, c]));
  const ordered = DIAGNOSTIC_CHECK_IDS.map(
    (id) => byId.get(id) ?? diagnosticCheck(id, 'skipped', 'not checked'),
  );
  return {
    checks: ordered,
    problems: ordered.filter((c) => c.verdict === 'problem').length,
    warnings: ordered.filter((c) => c.verdict === 'warning').length,
    checked_at: checkedAt.toISOString(),
    duration_ms: Math.max(0, Math.round(durationMs)),
  };
}

/**
 * The report netcli gives when the engine does not answer: the engine check a problem with what
 * to do, every other check skipped (they all ask the engine).
 */
export function engineDownReport(summary: string, fix: string, checkedAt: Date): DiagnosticsReport {
  return diagnosticsReport(
    [
      diagnosticCheck('engine', 'problem', summary, fix),
      ...DIAGNOSTIC_CHECK_IDS.filter((id) => id !== 'engine').map((id) =>
        diagnosticCheck(id, 'skipped', 'the engine does not answer'),
      ),
    ],
    checkedAt,
    0,
  );
}

// ---- what the control plane publishes for the checks (GET /diagnostics) ---------------------

/** A DNS zone name: labels of letters, digits and dashes, lower case, no trailing dot. */
export const DnsZone = z
  .string()
  .max(200)
  .regex(
    /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/,
    'a DNS zone such as whoami.example.net',
  );

/** `[addr]:port` of a TCP service reachable over IPv6. */
export const Ipv6ProbeEndpoint = z
  .string()
  .regex(/^\[[0-9A-Fa-f:.]+\]:\d{1,5}$/, 'an IPv6 endpoint [addr]:port')
  .refine((s) => parseIpv6Endpoint(s) !== null, 'an IPv6 address and a port 1..65535');

/**
 * What the control plane tells clients for their diagnostics: a zone whose authority answers
 * every name with the address of the resolver that asked it (a "whoami" zone), and a TCP
 * service reachable over IPv6. Names of other parties' services: nothing about any client.
 */
export const ControlDiagnostics = z
  .object({
    dns_leak_zone: DnsZone.nullable().describe(
      'Names <label>.<zone> are answered with an A record: the address of the resolver that asked (null: none).',
    ),
    ipv6_probe: Ipv6ProbeEndpoint.nullable().describe(
      '[addr]:port of a TCP service reachable over IPv6 (null: none).',
    ),
    domestic_names: z
      .record(CountryCode, DnsZone)
      .optional()
      .describe(
        'By country: a name served at home there, which a client at home checks resolves at home (absent: the shipped ones).',
      ),
  })
  .meta({ id: 'ControlDiagnostics' });
export type ControlDiagnostics = z.infer<typeof ControlDiagnostics>;

/**
 * A name served at home in each country that has one here: what `netcli diagnose` resolves to
 * check that domestic names are answered at home (the control plane's `domestic_names` first).
 */
export const SHIPPED_DOMESTIC_NAMES: Readonly<Record<string, string>> = {
  CN: 'www.baidu.com',
  RU: 'ya.ru',
  IR: 'www.aparat.com',
  TR: 'www.trendyol.com',
  DE: 'www.tagesschau.de',
  US: 'www.usa.gov',
  JP: 'www.yahoo.co.jp',
};

/** `[addr]:port` as its address and port, or null when it is not one (the address checked). */
export function parseIpv6Endpoint(text: string): { address: string; port: number } | null {
  const m = /^\[([0-9A-Fa-f:.]+)\]:(\d{1,5})$/.exec(text);
  if (!m) return null;
  const port = Number(m[2]);
  if (!isIpv6(m[1]!) || port < 1 || port > 65535) return null;
  return { address: m[1]!, port };
}

const HEX_GROUP = /^[0-9A-Fa-f]{1,4}$/;
const IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

/** Whether `text` is an IPv4 address in dotted-quad form. */
export function isIpv4(text: string): boolean {
  return IPV4.test(text);
}

/**
 * Whether `text` is an IPv6 address (RFC 4291 text forms: full, `::`-compressed, with a dotted
 * IPv4 tail; no zone). Written out here because contracts/ may not use node:net.
 */
export function isIpv6(text: string): boolean {
  const halves = text.split('::');
  if (halves.length > 2) return false;
  const parts = halves.map((half) => (half === '' ? [] : half.split(':')));
  const all = parts.flat();
  let count = 0;
  for (const [i, g] of all.entries()) {
    if (HEX_GROUP.test(g)) count += 1;
    else if (i === all.length - 1 && isIpv4(g)) count += 2;
    else return false;
  }
  // A dotted tail must end the address (not the first half before `::`).
  if (halves.length === 2 && parts[0]!.some((g) => g.includes('.'))) return false;
  return halves.length === 2 ? count <= 7 : count === 8;
}

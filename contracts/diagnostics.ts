// One-click diagnostics (`netcli diagnose`, POST /api/v1/diagnose): the report's shape, the fixed
// check ids and their titles, the report of an engine that does not answer, and what the control
// plane publishes for the checks (GET /diagnostics). No I/O here.
import { z } from 'zod';

import {
  CONFIG_KEYS,
  ClientConfig,
  setConfigValue,
  type ClientConfigPatch,
} from './client-config.js';
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

/**
 * What each check can find, with the verdict it gives: the `finding` a check carries, which every
 * face words in its own language (contracts/words/diagnostics.ts, the catalog's `diagnose` area).
 * A finding names an outcome within its check; the same name in two checks may mean two things.
 */
export const DIAGNOSTIC_FINDINGS = {
  engine: {
    running: 'ok',
    connected: 'ok',
    'not-running': 'problem',
    'not-answering': 'problem',
    'permission-denied': 'problem',
  },
  'control-plane': {
    'not-configured': 'problem',
    timeout: 'problem',
    unreachable: 'problem',
    'untrusted-certificate': 'problem',
    'not-ferry': 'problem',
    'server-error': 'problem',
    'http-error': 'problem',
    'not-asked': 'problem',
    answers: 'ok',
    insecure: 'problem',
  },
  'api-access': {
    'list-expired': 'warning',
    'list-expired-none': 'warning',
    'list-refused': 'warning',
    'list-refused-none': 'warning',
    'not-reached': 'ok',
    'not-reached-no-list': 'skipped',
    direct: 'ok',
    'direct-no-list': 'ok',
    'direct-unverified': 'warning',
    'via-relay': 'ok',
    'via-proxy': 'ok',
  },
  clock: {
    'in-step': 'ok',
    'slightly-ahead': 'ok',
    'slightly-behind': 'ok',
    'drifting-ahead': 'warning',
    'drifting-behind': 'warning',
    'far-ahead': 'problem',
    'far-behind': 'problem',
    'no-control-plane': 'skipped',
    'no-answer': 'skipped',
    'no-date': 'skipped',
  },
  'node-udp': {
    tunnel: 'ok',
    'fell-back': 'problem',
    obfuscated: 'skipped',
    'tunnel-other': 'skipped',
    'no-probe': 'skipped',
    answers: 'ok',
    'udp-blocked': 'problem',
    unreachable: 'problem',
    ...nodeNone(),
  },
  'node-tcp': {
    'not-needed': 'skipped',
    tunnel: 'ok',
    'no-port': 'skipped',
    connects: 'ok',
    unreachable: 'problem',
    'fallback-fails': 'warning',
    ...nodeNone(),
  },
  censorship: {
    fixed: 'skipped',
    interferes: 'warning',
    'udp-gets-through': 'ok',
    'blocked-before': 'warning',
    'transport-reason': 'ok',
    'no-history': 'skipped',
    'udp-before': 'ok',
    'blocked-before-idle': 'warning',
  },
  'dns-leak': {
    'not-connected': 'skipped',
    'no-zone': 'skipped',
    'no-answer': 'warning',
    'through-node': 'ok',
    'through-resolver': 'ok',
    'resolver-or-leak': 'warning',
    leak: 'problem',
  },
  'ipv6-leak': {
    'not-connected': 'skipped',
    'no-route': 'ok',
    dropped: 'ok',
    open: 'warning',
    leak: 'problem',
    'leak-answered': 'problem',
    firewall: 'ok',
    'no-answer': 'ok',
    'no-way-out': 'ok',
  },
  mtu: {
    'not-connected': 'skipped',
    'no-ping': 'warning',
    'nothing-crosses': 'problem',
    fits: 'ok',
    'black-hole': 'problem',
  },
  'kill-switch': {
    off: 'warning',
    armed: 'ok',
    'not-in-force': 'problem',
    incomplete: 'problem',
    'in-force': 'ok',
    'in-force-lockdown': 'ok',
  },
  split: {
    'by-country': 'ok',
    'by-country-brief': 'ok',
    'unknown-home': 'warning',
    'next-connect': 'ok',
    off: 'ok',
  },
  'domestic-dns': {
    'not-connected': 'skipped',
    'no-resolver': 'skipped',
    'not-ferry': 'warning',
    'no-home': 'ok',
    'no-test-name': 'ok',
    'no-answer': 'warning',
    'at-home': 'ok',
    abroad: 'warning',
  },
} as const satisfies Record<DiagnosticCheckId, Record<string, DiagnosticVerdict>>;

/** Why the node checks (node-udp, node-tcp) probe no node: worded once for both (`node`). */
function nodeNone() {
  return {
    'no-service': 'skipped',
    'signed-out': 'skipped',
    'no-node-list': 'skipped',
    'no-node': 'skipped',
    'no-address': 'skipped',
    lockdown: 'skipped',
  } as const;
}

/** What any check can find: not run, the engine down, failed, out of time. */
export const COMMON_DIAGNOSTIC_FINDINGS = {
  'not-checked': 'skipped',
  'engine-down': 'skipped',
  failed: 'warning',
  'timed-out': 'warning',
} as const satisfies Record<string, DiagnosticVerdict>;

/** A finding of check `I`: its own, or one any check can have. */
export type DiagnosticFinding<I extends DiagnosticCheckId = DiagnosticCheckId> =
  (keyof (typeof DIAGNOSTIC_FINDINGS)[I] & string) | keyof typeof COMMON_DIAGNOSTIC_FINDINGS;

/** The verdict a finding gives (undefined: a finding this build does not know). */
export function findingVerdict(id: string, finding: string): DiagnosticVerdict | undefined {
  const own = (DIAGNOSTIC_FINDINGS as Record<string, Record<string, DiagnosticVerdict>>)[id];
  if (own && Object.hasOwn(own, finding)) return own[finding];
  return Object.hasOwn(COMMON_DIAGNOSTIC_FINDINGS, finding)
    ? COMMON_DIAGNOSTIC_FINDINGS[finding as keyof typeof COMMON_DIAGNOSTIC_FINDINGS]
    : undefined;
}

/**
 * What fixes a finding, as something a face can do for the user (a button, a setting): never a
 * command line. netcli words it as its own command (diagnosticCommand in words/diagnostics.ts).
 */
export const DiagnosticAction = z
  .discriminatedUnion('kind', [
    z
      .object({
        kind: z.literal('setting'),
        key: z.enum(CONFIG_KEYS),
        value: z.string().describe('As `netcli config set <key> <value>` takes it.'),
      })
      .describe('Set a setting to this value (the kill switch on, the MTU to 1380, DNS auto).'),
    z
      .object({ kind: z.literal('choose-setting'), key: z.enum(CONFIG_KEYS) })
      .describe('The user picks a value of this setting (their home country).'),
    z.object({ kind: z.literal('reconnect') }).describe('Disconnect and connect again.'),
    z.object({ kind: z.literal('rerun') }).describe('Run the diagnostics again.'),
    z.object({ kind: z.literal('region') }).describe('Connect to another region.'),
    z.object({ kind: z.literal('setup') }).describe('Set the service up (its address, its keys).'),
  ])
  .meta({ id: 'DiagnosticAction' });
export type DiagnosticAction = z.infer<typeof DiagnosticAction>;
/** The actions' kinds. */
export type DiagnosticActionKind = DiagnosticAction['kind'];

/**
 * The configuration change a `setting` action makes, as the local API's PATCH /config takes it
 * (`{ kill_switch: true }`, `{ mtu: 1380 }`): its value read as `netcli config set` reads it.
 * Null for any other action, or a value the setting does not take.
 */
export function diagnosticSettingPatch(action: DiagnosticAction): ClientConfigPatch | null {
  if (action.kind !== 'setting') return null;
  const set = setConfigValue(ClientConfig.parse({}), action.key, action.value);
  return set.ok ? ({ [set.key]: set.config[set.key] } as ClientConfigPatch) : null;
}

/** A finding's facts (sizes, times, counts, the node, the service's host): no user's query. */
export const DiagnosticParams = z.record(z.string(), z.union([z.string(), z.number()]));
export type DiagnosticParams = Record<string, string | number>;

export const DiagnosticCheck = z
  .object({
    id: z.enum(DIAGNOSTIC_CHECK_IDS),
    title: z.string(),
    verdict: z.enum(DIAGNOSTIC_VERDICTS),
    summary: z.string().describe('What was found, in one line a person reads (English).'),
    fix: z
      .string()
      .nullable()
      .describe(
        'What to do, in one sentence (English); null when there is nothing to do (ok, skipped).',
      ),
    finding: z
      .string()
      .regex(/^[a-z0-9-]{1,64}$/)
      .optional()
      .catch(undefined)
      .describe(
        'What was found, as a code within the check (e.g. mtu: black-hole): faces word it in their language. Absent from an older engine.',
      ),
    params: DiagnosticParams.optional()
      .catch(undefined)
      .describe(
        'The finding’s facts the words are filled with (e.g. {"mtu": 1380}): sizes, times, counts, names of the service and its nodes; never a destination or query of the user’s.',
      ),
    action: DiagnosticAction.optional()
      .catch(undefined)
      .describe(
        'What fixes it, for a face to offer as a button or a setting; absent when nothing does (or nothing is to be done). One a face does not know reads as absent.',
      ),
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

/** What a check found, for the faces to word: the finding, its facts, what fixes it. */
export interface DiagnosticFound<I extends DiagnosticCheckId = DiagnosticCheckId> {
  finding: DiagnosticFinding<I>;
  params?: DiagnosticParams;
  action?: DiagnosticAction;
}

/** A check's result; `fix` and `action` only where there is something to do. */
export function diagnosticCheck<I extends DiagnosticCheckId>(
  id: I,
  verdict: DiagnosticVerdict,
  summary: string,
  fix: string | null = null,
  found?: DiagnosticFound<I>,
): DiagnosticCheck {
  const nothingToDo = verdict === 'ok' || verdict === 'skipped';
  return {
    id,
    title: DIAGNOSTIC_TITLES[id],
    verdict,
    summary,
    fix: nothingToDo ? null : fix,
    ...(found && { finding: found.finding }),
    ...(found?.params && { params: found.params }),
    ...(found?.action && !nothingToDo && { action: found.action }),
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
    (id) =>
      byId.get(id) ??
      diagnosticCheck(id, 'skipped', 'not checked', null, { finding: 'not-checked' }),
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
 * to do, every other check skipped (they all ask the engine). `found`: the engine check's finding
 * (not-running, not-answering, permission-denied) with `{ socket, seconds }`.
 */
export function engineDownReport(
  summary: string,
  fix: string,
  checkedAt: Date,
  found?: DiagnosticFound<'engine'>,
): DiagnosticsReport {
  return diagnosticsReport(
    [
      diagnosticCheck('engine', 'problem', summary, fix, found),
      ...DIAGNOSTIC_CHECK_IDS.filter((id) => id !== 'engine').map((id) =>
        diagnosticCheck(id, 'skipped', 'the engine does not answer', null, {
          finding: 'engine-down',
        }),
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

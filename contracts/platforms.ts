// The streaming-platform table (platforms.json, data to update) and its schema, the pure reading
// of a platform's answer (served, proxy verdict, not offered; the catalogue's country), and the
// local API's stream-test shapes. Probing is the engine's (and the relays') business: no I/O here.
import { z } from 'zod';
import shippedTable from './platforms.json' with { type: 'json' };
import { text } from './values.js';

/** A platform's id: what `--platform` takes (besides its aliases), lower case. */
export const PlatformId = z
  .string()
  .regex(/^[a-z][a-z0-9-]{1,31}$/, 'lower-case letters, digits and dashes, 2-32 characters');

/** An ISO 3166-1 alpha-2 country code, upper case. */
export const CountryCode = z.string().regex(/^[A-Z]{2}$/, 'an ISO 3166-1 alpha-2 code, e.g. JP');

function compiles(source: string): boolean {
  try {
    new RegExp(source, 'i');
    return true;
  } catch {
    return false;
  }
}

/** A JavaScript regular expression, matched case-insensitively. */
const Pattern = z.string().min(1).max(500).refine(compiles, 'a valid regular expression');
/** A pattern whose first group captures a country code. */
const CapturePattern = Pattern.refine(
  (s) => !compiles(s) || new RegExp(`${s}|`, 'i').exec('')!.length > 1,
  'a pattern with a capture group for the country',
);

/**
 * What an answer must look like, every given part at once: the final status, the final body, a
 * redirect on the way (any of them), a header of the final answer, whether there was a redirect.
 */
export const AnswerMatch = z
  .strictObject({
    status: z.array(z.number().int().min(100).max(599)).min(1).optional(),
    body: Pattern.optional(),
    location: Pattern.optional(),
    header: z.strictObject({ name: z.string().min(1).max(100), pattern: Pattern }).optional(),
    redirected: z.boolean().optional(),
  })
  .refine((m) => Object.keys(m).length > 0, 'at least one of status, body, location, header');
export type AnswerMatch = z.infer<typeof AnswerMatch>;

/** Where the catalogue's country is read from a served answer; the first reader that reads wins. */
export const RegionReader = z.discriminatedUnion('from', [
  /** The first redirect location on the way that the pattern captures from. */
  z.strictObject({ from: z.literal('location'), pattern: CapturePattern }),
  z.strictObject({ from: z.literal('body'), pattern: CapturePattern }),
  z.strictObject({
    from: z.literal('header'),
    name: z.string().min(1).max(100),
    pattern: CapturePattern,
  }),
  /** A platform that serves one country only (or whose answer says which, `when`). */
  z.strictObject({ from: z.literal('fixed'), country: CountryCode, when: AnswerMatch.optional() }),
]);
export type RegionReader = z.infer<typeof RegionReader>;

export const PlatformDef = z.strictObject({
  name: text(1, 64),
  /** Other names `--platform` takes (any letter case). */
  aliases: z.array(z.string().min(1).max(32)).default([]),
  /** Where the platform is offered at all (a fix names a region there); null: most countries. */
  countries: z.array(CountryCode).min(1).nullable(),
  /**
   * The platform's own host names besides the probe URL's (its site, its API, its video CDN's
   * names), whose addresses stream mode pins to the tunnel even when the split tunnel would send
   * them directly.
   */
  domains: z
    .array(
      z
        .string()
        .regex(/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i, 'a host name'),
    )
    .max(32)
    .default([]),
  probe: z.strictObject({
    url: z.url({ protocol: /^https?$/ }),
    headers: z.record(z.string().min(1).max(100), z.string().max(1000)).optional(),
  }),
  /** What the platform's ordinary answer looks like (once proxy and unavailable did not match). */
  served: AnswerMatch,
  /** Empty, or none that reads: the catalogue region could not be read. */
  region: z.array(RegionReader).default([]),
  /** Answers that say the platform flags this address as a proxy or VPN. */
  proxy: z.array(AnswerMatch).default([]),
  /** Answers that say the platform is not offered where the address is. */
  unavailable: z.array(AnswerMatch).default([]),
  /** The fix for `unavailable` when the generic one would mislead (a domestic platform). */
  unavailable_fix: text(1, 500).optional(),
  /** Where the patterns come from and how sure they are. */
  notes: z.string().max(2000).optional(),
});
export type PlatformDef = z.infer<typeof PlatformDef>;

/** The shape of platforms.json and of a `--platforms-file`. */
export const PlatformsFile = z.strictObject({
  about: z.string().optional(),
  platforms: z.record(PlatformId, PlatformDef),
});
export type PlatformsFile = z.infer<typeof PlatformsFile>;

export type PlatformTable = Readonly<Record<string, PlatformDef>>;

/** The table shipped with Ferry (checked when loaded: a broken table is a build defect). */
export const SHIPPED_PLATFORMS: PlatformTable = PlatformsFile.parse(shippedTable).platforms;

/** `extra`'s entries added to `base`, each replacing a whole entry of the same id. */
export function mergePlatforms(base: PlatformTable, extra: PlatformTable): PlatformTable {
  return { ...base, ...extra };
}

/** The platform id `--platform` names (an id or an alias, any letter case), or undefined. */
export function findPlatform(table: PlatformTable, name: string): string | undefined {
  const wanted = name.trim().toLowerCase();
  if (Object.hasOwn(table, wanted)) return wanted;
  return Object.keys(table).find((id) =>
    table[id]!.aliases.some((a) => a.toLowerCase() === wanted),
  );
}

/** A platform's answer as a probe saw it, after following its redirects. */
export interface PlatformAnswer {
  /** The final answer's status. */
  status: number;
  /** The final answer's headers, names in lower case. */
  headers: Readonly<Record<string, string>>;
  /** Each redirect's target on the way, absolute, in order. */
  locations: readonly string[];
  /** The final answer's body (as much of it as was read), as text. */
  body: string;
}

/** How the answer reads against the table. */
export type AnswerReading =
  | { kind: 'served'; catalogRegion: string | null }
  | { kind: 'proxy' }
  | { kind: 'unavailable' }
  | { kind: 'unrecognised' };

function test(pattern: string, s: string): boolean {
  return new RegExp(pattern, 'i').test(s);
}

export function answerMatches(m: AnswerMatch, a: PlatformAnswer): boolean {
  if (m.status && !m.status.includes(a.status)) return false;
  if (m.body !== undefined && !test(m.body, a.body)) return false;
  if (m.location !== undefined && !a.locations.some((l) => test(m.location!, l))) return false;
  if (m.header) {
    const value = a.headers[m.header.name.toLowerCase()];
    if (value === undefined || !test(m.header.pattern, value)) return false;
  }
  if (m.redirected !== undefined && m.redirected !== a.locations.length > 0) return false;
  return true;
}

function country(pattern: string, s: string): string | null {
  const code = new RegExp(pattern, 'i').exec(s)?.[1]?.toUpperCase();
  return code !== undefined && /^[A-Z]{2}$/.test(code) ? code : null;
}

/** The catalogue's country by the platform's readers, or null when none reads. */
export function readCatalogRegion(p: PlatformDef, a: PlatformAnswer): string | null {
  for (const r of p.region) {
    let found: string | null = null;
    switch (r.from) {
      case 'location':
        for (const l of a.locations) if ((found = country(r.pattern, l))) break;
        break;
      case 'body':
        found = country(r.pattern, a.body);
        break;
      case 'header': {
        const value = a.headers[r.name.toLowerCase()];
        found = value === undefined ? null : country(r.pattern, value);
        break;
      }
      case 'fixed':
        found = !r.when || answerMatches(r.when, a) ? r.country : null;
        break;
    }
    if (found) return found;
  }
  return null;
}

/** Proxy verdicts first (a flagged address may also look "not offered"), then unavailable. */
export function readAnswer(p: PlatformDef, a: PlatformAnswer): AnswerReading {
  if (p.proxy.some((m) => answerMatches(m, a))) return { kind: 'proxy' };
  if (p.unavailable.some((m) => answerMatches(m, a))) return { kind: 'unavailable' };
  if (answerMatches(p.served, a)) return { kind: 'served', catalogRegion: readCatalogRegion(p, a) };
  return { kind: 'unrecognised' };
}

// ---- the local API's stream-test ----------------------------------------------------------------

export const STREAM_VERDICTS = [
  'ok',
  'region-mismatch',
  'proxy-detected',
  'unavailable',
  'unreachable',
] as const;
export type StreamVerdict = (typeof STREAM_VERDICTS)[number];

export const StreamTestRequest = z.strictObject({
  platform: text(1, 64).describe(
    'A platform id or alias of the engine’s table (the shipped one plus --platforms-file).',
  ),
});

export const StreamTestResult = z
  .object({
    platform: z.string().describe('The platform’s id in the table.'),
    name: z.string(),
    reachable: z
      .boolean()
      .describe('The platform answered through the tunnel with an answer the table recognises.'),
    http_status: z.number().int().nullable(),
    catalog_region: z
      .string()
      .nullable()
      .describe('The country of the catalogue the platform serves here; null: not read.'),
    node_region: z.string().nullable(),
    node_country: z
      .string()
      .nullable()
      .describe('The country of the node’s region; null for a region without one (global).'),
    matches: z
      .boolean()
      .nullable()
      .describe('Whether the catalogue is the node country’s; null when either is unknown.'),
    verdict: z.enum(STREAM_VERDICTS),
    detail: z.string().describe('The verdict in words.'),
    fix: z.string().nullable(),
    checked_at: z.string().describe('ISO 8601.'),
    duration_ms: z.number(),
  })
  .meta({ id: 'StreamTestResult' });
export type StreamTestResult = z.infer<typeof StreamTestResult>;

/** A node's verdict on a platform: the stream-test verdicts but `region-mismatch`. */
export const PLATFORM_CHECK_VERDICTS = [
  'ok',
  'proxy-detected',
  'unavailable',
  'unreachable',
] as const;
export type PlatformCheckVerdict = (typeof PLATFORM_CHECK_VERDICTS)[number];

// ---- a --platforms-file ---------------------------------------------------------------------------

export type PlatformsFileReading =
  | { ok: true; table: PlatformTable }
  | { ok: false; message: string; errors: { field: string; message: string }[] };

/**
 * A `--platforms-file`'s text (read by the caller) as the shipped table with the file's entries
 * added or replacing whole entries; or why it is not a platform table.
 */
export function readPlatformsFile(
  text: string,
  base: PlatformTable = SHIPPED_PLATFORMS,
): PlatformsFileReading {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, message: 'the platforms file is not JSON', errors: [] };
  }
  const parsed = PlatformsFile.safeParse(json);
  if (!parsed.success) {
    return {
      ok: false,
      message:
        'the platforms file is not a platform table (contracts/platforms.json has its shape)',
      errors: parsed.error.issues.map((i) => ({
        field: i.path.map(String).join('.'),
        message: i.message,
      })),
    };
  }
  return { ok: true, table: mergePlatforms(base, parsed.data.platforms) };
}

/** A refused platforms file in one line: what it is not, and each field that is wrong. */
export function platformsFileProblem(
  reading: Extract<PlatformsFileReading, { ok: false }>,
): string {
  const fields = reading.errors.map((e) => `${e.field || '(file)'}: ${e.message}`).join('; ');
  return fields ? `${reading.message}: ${fields}` : reading.message;
}

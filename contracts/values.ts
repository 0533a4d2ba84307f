// The closed value sets of the control API, their case-insensitive parsing, and the shapes of
// keys, names and numbers, each with the JSON Schema the API document shows for it.
import { z } from 'zod';

export const PROTOCOLS = ['wireguard', 'ferry'] as const;
export const ENCRYPTIONS = ['AES-256-GCM', 'ChaCha20-Poly1305'] as const;
export const USAGES = ['remote-work', 'streaming', 'general'] as const;
export const MODES = ['secure', 'stream'] as const;
export const DEVICE_KINDS = ['phone', 'tablet', 'laptop', 'desktop'] as const;
export const REGION_STRATEGIES = ['lowest-latency', 'least-load', 'fallback'] as const;
export const CONNECTION_STATES = ['connected', 'connecting', 'disconnected'] as const;
export const PLAN_IDS = ['basic', 'premium'] as const;

export type Protocol = (typeof PROTOCOLS)[number];
export type Encryption = (typeof ENCRYPTIONS)[number];
export type Usage = (typeof USAGES)[number];
export type Mode = (typeof MODES)[number];
export type DeviceKind = (typeof DEVICE_KINDS)[number];
export type RegionStrategy = (typeof REGION_STRATEGIES)[number];
export type ConnectionState = (typeof CONNECTION_STATES)[number];
export type PlanId = (typeof PLAN_IDS)[number];

/** The mode a usage implies (the spec's `remote-work` is the secure office mode). */
export const MODE_OF_USAGE: Record<Usage, Mode> = {
  'remote-work': 'secure',
  streaming: 'stream',
  general: 'secure',
};

/**
 * Metadata key: the JSON Schema the API document shows instead of the one zod derives, where
 * zod cannot express what the schema enforces (refinements, case-insensitive values, lengths
 * in characters). The contract test checks that the two agree.
 */
export const JSON_SCHEMA = 'x-ferry-json-schema';
/**
 * Metadata key: a value set only the running service knows (its regions, its streaming
 * platforms); see openapi.ts.
 */
export const VALUE_SET = 'x-ferry-value-set';
export type ValueSetName = 'region-id' | 'region-choice' | 'platform';

/** Escapes regex syntax characters (only those: a needless escape is an error in 'u' mode). */
function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/** A JSON Schema pattern that matches exactly `values`, in any letter case. */
export function caseInsensitivePattern(values: readonly string[]): string {
  const alternatives = values.map((v) =>
    [...v]
      .map((c) => {
        const lower = c.toLowerCase();
        const upper = c.toUpperCase();
        return lower === upper ? escapeRegExp(c) : `[${upper}${lower}]`;
      })
      .join(''),
  );
  return `^(?:${alternatives.join('|')})$`;
}

/**
 * An enum that accepts any letter case and yields the canonical spelling; the spec shows
 * `WireGuard` in one place and `wireguard` in another, and users type both.
 */
export function caseInsensitiveEnum<const T extends readonly [string, ...string[]]>(values: T) {
  const canonical = new Map(values.map((v) => [v.toLowerCase(), v] as const));
  const description = `One of ${values.join(', ')} (any letter case).`;
  return z
    .preprocess(
      (input) =>
        typeof input === 'string' ? (canonical.get(input.toLowerCase()) ?? input) : input,
      z.enum(values),
    )
    .meta({
      description,
      [JSON_SCHEMA]: {
        type: 'string',
        pattern: caseInsensitivePattern(values),
        examples: [...values],
        description,
      },
    });
}

/** Length in characters (code points), as JSON Schema counts it; `.length` counts UTF-16 units. */
export function characterCount(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** A string of `min`..`max` characters, counted as JSON Schema counts them. */
export function text(min: number, max: number) {
  return z
    .string()
    .refine(
      (s) => {
        const n = characterCount(s);
        return n >= min && n <= max;
      },
      `${min === 0 ? 'at most' : `${min} to`} ${max} characters`,
    )
    .meta({ [JSON_SCHEMA]: { type: 'string', minLength: min, maxLength: max } });
}

/**
 * Characters refused in names: C0 and C1 controls (Cc, with NUL, ESC, VT, FF, NEL), the line
 * and paragraph separators (Zl, Zp) and the bidirectional controls (ALM, LRM, RLM, LRE..RLO,
 * LRI..PDI). Each either breaks a line in some reader of the name (the WireGuard apps split
 * config lines on every Unicode newline) or makes the name display as something else.
 */
export const UNSAFE_NAME_CHARACTERS =
  '\\u0000-\\u001f\\u007f-\\u009f\\u061c\\u200e\\u200f\\u2028-\\u202e\\u2066-\\u2069';
const UNSAFE_NAME = new RegExp(`[${UNSAFE_NAME_CHARACTERS}]`, 'u');
/** The spaces String.prototype.trim removes, besides the unsafe characters above. */
const TRIMMED_SPACES = ' \\u00a0\\u1680\\u2000-\\u200a\\u202f\\u205f\\u3000\\ufeff';

export function hasUnsafeNameCharacters(s: string): boolean {
  return UNSAFE_NAME.test(s);
}

/**
 * A name people give (a device, a region): 1..max characters as sent, no unsafe characters,
 * not blank; leading and trailing spaces are dropped.
 */
export function displayName(max: number) {
  const allowed = `[^${UNSAFE_NAME_CHARACTERS}]`;
  const visible = `[^${UNSAFE_NAME_CHARACTERS}${TRIMMED_SPACES}]`;
  return z
    .string()
    .refine(
      (s) => !hasUnsafeNameCharacters(s),
      'control, line-separator and bidirectional-control characters are not allowed',
    )
    .refine((s) => s.trim() !== '', 'must not be blank')
    .refine((s) => characterCount(s) <= max, `at most ${max} characters`)
    .transform((s) => s.trim())
    .meta({
      [JSON_SCHEMA]: {
        type: 'string',
        minLength: 1,
        maxLength: max,
        pattern: `^${allowed}*${visible}${allowed}*$`,
      },
    });
}

/** A region identifier as the API stores it: lower-case letters, digits and dashes. */
export const RegionId = z
  .string()
  .regex(/^[a-z][a-z0-9-]{1,31}$/, 'lower-case letters, digits and dashes, 2-32 characters');

// ---- X25519 public keys -----------------------------------------------------------------------

const P25519 = 2n ** 255n - 19n;
/**
 * The u-coordinates (mod p) of the points of order 1, 2, 4 and 8 on Curve25519 and its twist.
 * X25519 with such a key gives an all-zero shared secret whatever the private key: no key pair
 * has one, and a peer that used one would share no secret at all.
 */
const LOW_ORDER_U: readonly bigint[] = [
  0n,
  1n,
  P25519 - 1n,
  325606250916557431795983626356110631294008115727848805560023387167927233504n,
  39382357235489614581723060781553021112529911719440698176882885853963445705823n,
];

function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

function littleEndian(n: bigint): Uint8Array {
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i++) {
    out[i] = Number(n & 0xffn);
    n >>= 8n;
  }
  return out;
}

/**
 * Every 32-byte encoding of a low-order point: X25519 ignores the top bit and reduces values
 * from p up, so each u has the encodings u and u + p (when below 2^255), each with or without
 * bit 255. Fourteen keys.
 */
export const LOW_ORDER_PUBLIC_KEYS: readonly string[] = LOW_ORDER_U.flatMap((u) =>
  [u, u + P25519]
    .filter((v) => v < 2n ** 255n)
    .flatMap((v) => [v, v | (1n << 255n)])
    .map((v) => toBase64(littleEndian(v))),
);

/** True when `key` (base64, 32 bytes) is the all-zero key or another point of small order. */
export function isLowOrderPublicKey(key: string): boolean {
  let binary: string;
  try {
    binary = atob(key);
  } catch {
    return false;
  }
  if (binary.length !== 32) return false;
  let u = 0n;
  for (let i = 31; i >= 0; i--)
    u = (u << 8n) | BigInt(binary.charCodeAt(i) & (i === 31 ? 0x7f : 0xff));
  return LOW_ORDER_U.includes(u % P25519);
}

const PUBLIC_KEY_PATTERN = /^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=$/;

/** A base64 X25519 public key (32 bytes), as WireGuard and Ferry both print them. */
export const PublicKey = z
  .string()
  .regex(PUBLIC_KEY_PATTERN, 'a base64-encoded 32-byte public key')
  .refine(
    (k) => !isLowOrderPublicKey(k),
    'the all-zero key or another low-order point, which no key pair has: generate a new key pair',
  )
  .meta({
    [JSON_SCHEMA]: {
      type: 'string',
      pattern: PUBLIC_KEY_PATTERN.source,
      not: { enum: LOW_ORDER_PUBLIC_KEYS },
      description: 'A base64 X25519 public key; not the all-zero key or another low-order point.',
    },
  });

// ---- numbers as people type them ----------------------------------------------------------------

export const AccountNumber = z.string().regex(/^\d{16}$/, '16 digits');

const TYPED_ACCOUNT_NUMBER = /^[ -]*(?:[0-9][ -]*){16}$/;

/** An account number as typed: 16 digits, perhaps grouped with spaces or dashes. */
export const TypedAccountNumber = z
  .string()
  .regex(TYPED_ACCOUNT_NUMBER, '16 digits (spaces and dashes between them are fine)')
  .refine((s) => s.length <= 64, 'at most 64 characters')
  .transform((s) => s.replace(/[ -]/g, ''))
  .meta({
    [JSON_SCHEMA]: {
      type: 'string',
      maxLength: 64,
      pattern: TYPED_ACCOUNT_NUMBER.source,
      description: '16 digits; spaces and dashes between them are ignored.',
    },
  });

/** A whole number in a query string: decimal digits only (no sign, exponent or spaces). */
export function queryInteger(min: number, max: number, fallback: number) {
  return (
    z
      .string()
      // 16 digits hold every safe integer; the range check below says which are allowed.
      .regex(/^[0-9]{1,16}$/, 'a whole number')
      .transform(Number)
      .pipe(z.number().int().min(min).max(max))
      .optional()
      .transform((n) => n ?? fallback)
      .meta({
        [JSON_SCHEMA]: { type: 'integer', minimum: min, maximum: max, default: fallback },
      })
  );
}

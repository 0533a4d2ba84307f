// The closed value sets of the control API and their case-insensitive parsing.
import { z } from 'zod';

export const PROTOCOLS = ['wireguard', 'ferry'] as const;
export const ENCRYPTIONS = ['AES-256-GCM', 'ChaCha20-Poly1305'] as const;
export const USAGES = ['remote-work', 'streaming', 'general'] as const;
export const MODES = ['secure', 'stream'] as const;
export const DEVICE_KINDS = ['phone', 'tablet', 'laptop', 'desktop'] as const;
export const REGION_STRATEGIES = ['lowest-latency', 'least-load', 'fallback'] as const;
export const CONNECTION_STATES = ['connected', 'connecting', 'disconnected'] as const;

export type Protocol = (typeof PROTOCOLS)[number];
export type Encryption = (typeof ENCRYPTIONS)[number];
export type Usage = (typeof USAGES)[number];
export type Mode = (typeof MODES)[number];
export type DeviceKind = (typeof DEVICE_KINDS)[number];
export type RegionStrategy = (typeof REGION_STRATEGIES)[number];
export type ConnectionState = (typeof CONNECTION_STATES)[number];

/** The mode a usage implies (the spec's `remote-work` is the secure office mode). */
export const MODE_OF_USAGE: Record<Usage, Mode> = {
  'remote-work': 'secure',
  streaming: 'stream',
  general: 'secure',
};

/**
 * An enum that accepts any letter case and yields the canonical spelling; the spec shows
 * `WireGuard` in one place and `wireguard` in another, and users type both.
 */
export function caseInsensitiveEnum<const T extends readonly [string, ...string[]]>(values: T) {
  const canonical = new Map(values.map((v) => [v.toLowerCase(), v] as const));
  return z
    .preprocess(
      (input) =>
        typeof input === 'string' ? (canonical.get(input.toLowerCase()) ?? input) : input,
      z.enum(values),
    )
    .describe(`One of ${values.join(', ')} (any letter case).`);
}

/** A region identifier as the API stores it: lower-case letters, digits and dashes. */
export const RegionId = z
  .string()
  .regex(/^[a-z][a-z0-9-]{1,31}$/, 'lower-case letters, digits and dashes, 2-32 characters');

/** A base64 X25519 public key (32 bytes), as WireGuard and Ferry both print them. */
export const PublicKey = z
  .string()
  .regex(/^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=$/, 'a base64-encoded 32-byte public key');

export const AccountNumber = z.string().regex(/^\d{16}$/, '16 digits');

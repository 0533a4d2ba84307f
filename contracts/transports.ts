// The tunnel's transports (UDP, Ferry over TCP, Ferry inside TLS), what the transport autopilot
// saw block one, and why the tunnel runs over the one it does: codes and schemas only (the
// words are in words/transports.ts).
import { z } from 'zod';

/** udp: WireGuard or Ferry datagrams; tcp: Ferry over TCP; tls: Ferry inside a TLS session. */
export const TRANSPORTS = ['udp', 'tcp', 'tls'] as const;
export type Transport = (typeof TRANSPORTS)[number];

/** What an attempt over a transport ran into, as the autopilot classifies it. */
export const BLOCKAGES = [
  /** UDP datagrams went out and nothing came back. */
  'udp-unanswered',
  /** UDP worked, then fell to a trickle (a throttled flow). */
  'udp-throttled',
  /** The TCP connection's first packet (its SYN) got no answer: the port looks blocked. */
  'tcp-unanswered',
  /** The TCP connection was refused or reset. */
  'tcp-reset',
  /** TCP connected, and nothing came back after the first data (or it was closed). */
  'tcp-silenced',
  /** The connection carried a few kilobytes, then stalled. */
  'tcp-stalled',
  /** The TLS hello was answered with a reset. */
  'tls-reset',
  /** Something else failed (the node itself, a local error). */
  'failed',
] as const;
export type Blockage = (typeof BLOCKAGES)[number];

/** Why the tunnel runs over its transport. */
export const TRANSPORT_REASON_CODES = [
  /** The obfuscation setting names it (on, tcp, tls, off). */
  'chosen',
  /** The first the autopilot tried, and it worked. */
  'first-choice',
  /** It worked on this network before, and again now. */
  'remembered',
  /** Faster transports were blocked (their blockages say how). */
  'fallback',
  /** The node offers no other. */
  'only-offered',
  /** A faster transport tried again while connected (the autopilot now and then), and it worked. */
  'retried',
] as const;
export type TransportReasonCode = (typeof TRANSPORT_REASON_CODES)[number];

export const TransportReason = z
  .object({
    code: z.enum(TRANSPORT_REASON_CODES),
    /**
     * What the faster transports ran into (fallback), in order seen: on this connect, or, for a
     * switch while connected, on the tunnel it replaced (UDP throttled).
     */
    blocked: z.array(z.object({ transport: z.enum(TRANSPORTS), blockage: z.enum(BLOCKAGES) })),
    message: z
      .string()
      .describe('The reason in words, e.g. "UDP looks blocked on this network: using TLS".'),
  })
  .meta({ id: 'TransportReason' });
export type TransportReason = z.infer<typeof TransportReason>;

/** A value that came over a boundary (a notice's or a finding's facts), checked as a transport. */
export const isTransport = (v: unknown): v is Transport =>
  typeof v === 'string' && (TRANSPORTS as readonly string[]).includes(v);
export const isBlockage = (v: unknown): v is Blockage =>
  typeof v === 'string' && (BLOCKAGES as readonly string[]).includes(v);
export const isTransportReasonCode = (v: unknown): v is TransportReasonCode =>
  typeof v === 'string' && (TRANSPORT_REASON_CODES as readonly string[]).includes(v);

// Decides, for each datagram that reaches the probe port, whether it is a probe made with the
// node's key, fresh and never seen, from a source within its rate, within the budget of all;
// answers only those. Every other datagram is dropped the same way, without an answer (a scanner
// learns nothing).
import { createHmac } from 'node:crypto';
import {
  PROBE_FRESHNESS_MS,
  PROBE_KEY_BYTES,
  encodeProbeReply,
  isFreshProbe,
  openProbeRequest,
  type HmacSha256,
} from '../../platform/probes/latency-probe.js';
import { ReplayCache } from './replay-cache.js';
import { DEFAULT_RATES, SourceLimiter, type RateOptions } from './source-limiter.js';

export const hmacSha256: HmacSha256 = (key, message) =>
  createHmac('sha256', key).update(message).digest();

/** rate: over its source's rate; busy: a good probe over the budget of all. */
export type DropReason = 'rate' | 'invalid' | 'stale' | 'replay' | 'busy';

export interface GateCounters {
  answered: number;
  dropped: Record<DropReason, number>;
}

export interface GateOptions {
  rates?: RateOptions;
  windowMs?: number;
  /** After a key change, probes made with the old key are still answered this long. */
  keyOverlapMs?: number;
  maxReplayEntries?: number;
}

/** Long enough for devices to fetch the node list again after a rotation. */
const DEFAULT_KEY_OVERLAP_MS = 10 * 60_000;

export class ProbeGate {
  private key: Uint8Array;
  private previous: { key: Uint8Array; untilMs: number } | undefined;
  private readonly limiter: SourceLimiter;
  private readonly replays: ReplayCache;
  private readonly windowMs: number;
  private readonly counts: GateCounters = {
    answered: 0,
    dropped: { rate: 0, invalid: 0, stale: 0, replay: 0, busy: 0 },
  };

  constructor(
    key: Uint8Array,
    private readonly o: GateOptions = {},
  ) {
    this.key = checkedKey(key);
    this.windowMs = o.windowMs ?? PROBE_FRESHNESS_MS;
    this.limiter = new SourceLimiter(o.rates ?? DEFAULT_RATES);
    this.replays = new ReplayCache(this.windowMs, o.maxReplayEntries);
  }

  /** A new key (rotated by the control plane); the old one is honoured for a while. */
  setKey(key: Uint8Array, nowMs: number): void {
    const next = checkedKey(key);
    if (Buffer.compare(next, this.key) === 0) return;
    this.previous = {
      key: this.key,
      untilMs: nowMs + (this.o.keyOverlapMs ?? DEFAULT_KEY_OVERLAP_MS),
    };
    this.key = next;
  }

  /** The reply to send back to `source`, or undefined: send nothing. */
  answer(datagram: Uint8Array, source: string, nowMs: number): Uint8Array | undefined {
    // Cheapest first: a source's flood is refused before any MAC is computed for it.
    if (!this.limiter.takeSource(source, nowMs)) return this.drop('rate');
    let key = this.key;
    let request = openProbeRequest(datagram, key, hmacSha256);
    if (!request && this.previous && this.previous.untilMs > nowMs) {
      key = this.previous.key;
      request = openProbeRequest(datagram, key, hmacSha256);
    }
    if (!request) return this.drop('invalid');
    if (!isFreshProbe(request.timestampMs, nowMs, this.windowMs)) return this.drop('stale');
    if (!this.replays.admit(request.nonce, request.timestampMs, nowMs)) return this.drop('replay');
    // The budget of all only now: junk, from however many (spoofed) sources, never spends it,
    // and a recorded probe sent again from elsewhere neither.
    if (!this.limiter.takeAnswer(nowMs)) return this.drop('busy');
    this.counts.answered++;
    return encodeProbeReply(key, request.nonce, hmacSha256);
  }

  /** Forgets the sources that no longer need remembering (call it every SWEEP_MS). */
  sweep(nowMs: number): void {
    this.limiter.sweep(nowMs);
  }

  get trackedSources(): number {
    return this.limiter.trackedSources;
  }

  counters(): GateCounters {
    return { answered: this.counts.answered, dropped: { ...this.counts.dropped } };
  }

  private drop(reason: DropReason): undefined {
    this.counts.dropped[reason]++;
    return undefined;
  }
}

function checkedKey(key: Uint8Array): Uint8Array {
  if (key.length !== PROBE_KEY_BYTES) throw new RangeError('a probe key has 32 bytes');
  return Uint8Array.from(key);
}

// The relay's own measurement of each connected device's round trip through its tunnel, for
// clients that report none (a stock WireGuard app): an ICMP echo from the relay to the device's
// tunnel address every few seconds, which the client's kernel answers, smoothed per device.
// Memory only, the latest value per device, gone when the device is: never a history.
import type { Logger } from 'pino';

import { sleepUnlessAborted } from '../../contracts/index.js';
import { runCommand, type CommandRunner } from '../../platform/os/command.js';
import { reasonOf } from '../health.js';

/** One echo to `address`: its round trip in ms, or null when no answer came in time. */
export type EchoPing = (address: string, timeoutMs: number) => Promise<number | null>;

export interface TunnelTarget {
  deviceId: string;
  /** The device's tunnel address. */
  address: string;
}

export interface TunnelLatencyOptions {
  ping: EchoPing;
  /** The devices to measure now (those with a live tunnel). */
  targets: () => readonly TunnelTarget[];
  /** Between the starts of two rounds. */
  intervalMs: number;
  timeoutMs: number;
  /** Echoes in flight at once. */
  concurrency: number;
  /** Devices per round; with more, rounds take turns over them. */
  maxPerRound: number;
  /**
   * A device that has not answered for this long has no latency any more (at least three of
   * its turns, when there are more devices than one round takes).
   */
  staleAfterMs: number;
  /** Weight of a new sample in the smoothed value (EWMA), 0..1. */
  alpha: number;
  nowMs?: () => number;
}

export const DEFAULT_TUNNEL_LATENCY = {
  intervalMs: 5_000,
  timeoutMs: 1_000,
  concurrency: 16,
  maxPerRound: 256,
  staleAfterMs: 30_000,
  alpha: 0.3,
} as const;

interface Measured {
  ms: number;
  /** Counts until then (epoch ms): an expiry, not a record of when. */
  untilMs: number;
}

export class TunnelLatency {
  private readonly byDevice = new Map<string, Measured>();
  /** Where the next round starts in the target list, so that every device gets its turn. */
  private cursor = 0;
  /** How long a measurement counts, given how many rounds a device waits for its turn. */
  private validForMs: number;
  private readonly now: () => number;

  constructor(private readonly o: TunnelLatencyOptions) {
    this.now = o.nowMs ?? Date.now;
    this.validForMs = o.staleAfterMs;
  }

  /** The smoothed round trip to a device in ms, while it is recent. */
  latencyOf(deviceId: string): number | undefined {
    const m = this.byDevice.get(deviceId);
    return m && m.untilMs > this.now() ? m.ms : undefined;
  }

  /** Measures up to `maxPerRound` of the current targets once. */
  async round(): Promise<void> {
    const targets = this.o.targets();
    const wanted = new Set(targets.map((t) => t.deviceId));
    for (const id of this.byDevice.keys()) if (!wanted.has(id)) this.byDevice.delete(id);
    if (targets.length === 0) return;
    const count = Math.min(targets.length, this.o.maxPerRound);
    const roundsPerTurn = Math.ceil(targets.length / this.o.maxPerRound);
    this.validForMs = Math.max(this.o.staleAfterMs, 3 * roundsPerTurn * this.o.intervalMs);
    const start = this.cursor % targets.length;
    const batch = Array.from({ length: count }, (_, i) => targets[(start + i) % targets.length]!);
    this.cursor = (start + count) % targets.length;
    await this.measure(batch);
  }

  /**
   * Measures tunnels that just came up now, between rounds: their status says connected only
   * once a latency is known, so it should not wait for their turn. At most `maxPerRound` of
   * them (the rounds take the rest, as after a restart). Returns the devices that answered.
   */
  async measureNow(targets: readonly TunnelTarget[]): Promise<string[]> {
    return this.measure(targets.slice(0, this.o.maxPerRound));
  }

  /** One echo to each target, `concurrency` at a time; the devices that answered. */
  private async measure(batch: readonly TunnelTarget[]): Promise<string[]> {
    const answered: string[] = [];
    let next = 0;
    const worker = async () => {
      while (next < batch.length) {
        const t = batch[next++]!;
        let rtt: number | null;
        try {
          rtt = await this.o.ping(t.address, this.o.timeoutMs);
        } catch {
          rtt = null;
        }
        if (rtt !== null) {
          this.record(t.deviceId, rtt);
          answered.push(t.deviceId);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.o.concurrency, batch.length) }, worker));
    return answered;
  }

  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      const started = this.now();
      await this.round();
      await sleepUnlessAborted(Math.max(0, this.o.intervalMs - (this.now() - started)), signal);
    }
  }

  private record(deviceId: string, rtt: number): void {
    const prev = this.byDevice.get(deviceId);
    const smoothed =
      prev && prev.untilMs > this.now() ? prev.ms + this.o.alpha * (rtt - prev.ms) : rtt;
    this.byDevice.set(deviceId, { ms: smoothed, untilMs: this.now() + this.validForMs });
  }
}

/**
 * Measures tunnels that just came up without holding up the caller (the heartbeat that saw
 * them), then hands the devices that answered to `onAnswered`. Never rejects: a rejection
 * nobody awaits would stop the relay (Node ends the process on one), for a measurement the
 * rounds take again anyway; it is logged (never the devices or their addresses).
 */
export function measureInBackground(
  meter: Pick<TunnelLatency, 'measureNow'>,
  targets: readonly TunnelTarget[],
  onAnswered: (deviceIds: string[]) => void,
  log: Pick<Logger, 'warn'>,
): void {
  void meter
    .measureNow(targets)
    .then(onAnswered)
    .catch((e: unknown) =>
      log.warn({ err: reasonOf(e) }, 'measuring new tunnels failed; the rounds will'),
    );
}

const RTT = /= [\d.]+\/([\d.]+)\/[\d.]+\/[\d.]+ ms/;

/**
 * iputils `ping` through `run`, one echo per call (Node has no ICMP sockets; the relay runs as
 * root, as ping needs). Only an IP address is accepted: nothing that reads as an option or a name.
 */
export function pingWith(run: CommandRunner): EchoPing {
  return async (address, timeoutMs) => {
    if (!/^[0-9.]+$|^[0-9a-fA-F:]+$/.test(address) || address.startsWith('-'))
      throw new Error('not an IP address');
    const waitSeconds = String(Math.max(1, Math.ceil(timeoutMs / 1000)));
    const out = await run('ping', ['-n', '-q', '-c', '1', '-W', waitSeconds, address]).catch(
      () => null,
    );
    const m = out?.exitCode === 0 ? RTT.exec(out.stdout) : null;
    return m ? Number(m[1]) : null;
  };
}

/** ping on this host, through platform/os's command runner. */
export const systemPing: EchoPing = pingWith(runCommand);

// The transport autopilot while connected (obfuscation auto): a tunnel over UDP that the network
// throttles to a trickle moves to the web's look-alike (TLS, else Ferry over TCP), and a tunnel
// that runs over TCP or TLS because UDP failed tries UDP again now and then, when it is idle (a
// switch is a short reconnect under the kill switch: nobody should feel it). It reads the tunnel's
// own byte count once a second; what it sends (a burst of echoes that tells a trickle, a switch's
// attempts) goes to the node in use only.
import type { ClientConfig } from '../../contracts/index.js';
import { nodeTransports, type TransportChange } from '../transports/plan.js';
import {
  DEFAULT_THROTTLE_RULES,
  ThrottleJudge,
  type ThrottleRules,
} from '../transports/throttle.js';
import type { LiveTunnel } from './memory.js';

export interface TransportWatchTiming {
  /** Between two readings of the tunnel's totals. */
  tickMs: number;
  /** The waits before UDP is tried again, one per try that did not stay on UDP; the last repeats. */
  retryUdpMs: readonly number[];
  /** Readings in a row below the throttle rules' demand before the tunnel counts as idle. */
  idleTicks: number;
  /**
   * Between two bursts while the tunnel stays in the trickle's band and the bursts pass (a busy
   * but slow path that is not throttled); the last repeats.
   */
  burstPauseMs: readonly number[];
  throttle: Partial<ThrottleRules>;
}

/** The waits before UDP is tried again: the first, then twice, four and six times as long. */
export function udpRetryWaits(firstSeconds: number): number[] {
  return [1, 2, 4, 6].map((k) => k * firstSeconds * 1_000);
}

export const DEFAULT_TRANSPORT_WATCH_TIMING: TransportWatchTiming = {
  tickMs: 1_000,
  // 10 minutes, then 20, 40 and 60.
  retryUdpMs: udpRetryWaits(600),
  idleTicks: 5,
  burstPauseMs: [30_000, 60_000, 120_000, 300_000, 600_000],
  throttle: {},
};

/** Asks for a switch of the tunnel in use; settles when it was made (or was not). */
export type SwitchTransport = (live: LiveTunnel, change: TransportChange) => Promise<void>;

/** What the watch does for a tunnel: nothing, judge its UDP, or try UDP again later. */
export function watchFor(
  config: Pick<ClientConfig, 'obfuscation'>,
  live: Pick<LiveTunnel, 'answer' | 'transport'>,
): 'throttle' | 'retry-udp' | null {
  if (config.obfuscation !== 'auto') return null;
  const offered = nodeTransports(live.answer.node);
  if (live.transport === 'udp') return offered.size > 1 ? 'throttle' : null;
  return offered.has('udp') ? 'retry-udp' : null;
}

export class TransportWatch {
  readonly #timing: TransportWatchTiming;
  #timer: NodeJS.Timeout | null = null;
  #live: LiveTunnel | null = null;
  /** Tries of UDP (and throttled UDP tunnels) since the user last connected: the wait grows. */
  #setbacks = 0;

  constructor(
    private readonly switchTransport: SwitchTransport,
    timing: Partial<TransportWatchTiming> = {},
  ) {
    this.#timing = { ...DEFAULT_TRANSPORT_WATCH_TIMING, ...timing };
  }

  /** The user connected: UDP gets its next chance after the first wait again. */
  reset(): void {
    this.#setbacks = 0;
  }

  /** Watches the tunnel now in use (the one before is no longer watched). */
  follow(config: Pick<ClientConfig, 'obfuscation'>, live: LiveTunnel): void {
    this.stop();
    const kind = watchFor(config, live);
    if (kind === null) return;
    this.#live = live;
    if (kind === 'throttle') this.judgeUdp(live);
    else this.retryUdpLater(live);
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    this.#live = null;
  }

  private every(live: LiveTunnel, tick: () => Promise<boolean>): void {
    let busy = false;
    this.#timer = setInterval(() => {
      if (busy || this.#live !== live) return;
      busy = true;
      void tick()
        .then((done) => {
          if (done && this.#live === live) this.stop();
        })
        .catch(() => undefined)
        .finally(() => (busy = false));
    }, this.#timing.tickMs);
    this.#timer.unref();
  }

  private judgeUdp(live: LiveTunnel): void {
    const judge = new ThrottleJudge(this.#timing.throttle, this.#timing.tickMs / 1_000);
    const { burstPauseMs } = this.#timing;
    let bursts = 0;
    let nextBurst = 0;
    this.every(live, async () => {
      const totals = await live.tunnel.health();
      if (totals === null || !judge.feed(totals)?.suspect) return false;
      if (performance.now() < nextBurst) return false;
      const burst = await live.tunnel.burst(judge.rules.burstCount, judge.rules.burstSize);
      if (!judge.throttledBy(burst)) {
        nextBurst =
          performance.now() + (burstPauseMs[Math.min(bursts, burstPauseMs.length - 1)] ?? 0);
        bursts += 1;
        return false;
      }
      this.#setbacks += 1;
      await this.switchTransport(live, {
        kind: 'leave-udp',
        seen: [{ transport: 'udp', blockage: 'udp-throttled' }],
      });
      return true;
    });
  }

  private retryUdpLater(live: LiveTunnel): void {
    const { retryUdpMs, idleTicks, tickMs } = this.#timing;
    const wait = retryUdpMs[Math.min(this.#setbacks, retryUdpMs.length - 1)] ?? 0;
    const perSecond =
      this.#timing.throttle.demandBytesPerSecond ?? DEFAULT_THROTTLE_RULES.demandBytesPerSecond;
    const demand = perSecond * (tickMs / 1_000);
    const due = performance.now() + wait;
    let last: number | null = null;
    let quiet = 0;
    this.every(live, async () => {
      const totals = await live.tunnel.health();
      if (totals === null) return false;
      // Idle: only keepalives crossed in the last readings.
      quiet = last !== null && totals.bytes - last < demand ? quiet + 1 : 0;
      last = totals.bytes;
      if (performance.now() < due || quiet < idleTicks) return false;
      this.#setbacks += 1;
      await this.switchTransport(live, { kind: 'retry-udp' });
      return true;
    });
  }
}

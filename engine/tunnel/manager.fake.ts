// An in-memory TunnelManager for unit tests of the connect flow: up() succeeds with a set latency,
// fails with a given error, or waits at a hold until released or cancelled; each tunnel it hands
// out emits latency, lost, restored and rekey on demand. The same rules as the real one: a name
// in use is refused, a cancelled up() rejects with `cancelled`, close() is idempotent.
import type { Transport } from '../../contracts/index.js';
import { FerryError } from '../errors.js';
import { isTunnelInterfaceName } from './names.js';
import type {
  ActiveTunnel,
  BurstResult,
  TunnelEvent,
  TunnelHealth,
  TunnelManager,
  TunnelPlan,
} from './tunnel.js';

export class FakeActiveTunnel implements ActiveTunnel {
  readonly interfaceName: string;
  readonly protocol: TunnelPlan['answer']['protocol'];
  closed = false;
  closeCalls = 0;
  /** What health() reports: the bytes carried so far (carry() adds). */
  totals: TunnelHealth = { bytes: 0 };
  /** The share of a burst's echoes answered (1: a healthy path), and the bursts sent. */
  burstAnswers = 1;
  bursts = 0;
  private latency: number;
  private readonly listeners = new Set<(e: TunnelEvent) => void>();

  constructor(
    readonly plan: TunnelPlan,
    latencyMs: number,
    private readonly onClose: (t: FakeActiveTunnel) => void,
  ) {
    this.interfaceName = plan.interfaceName;
    this.protocol = plan.answer.protocol;
    this.latency = latencyMs;
  }

  latencyMs(): number {
    return this.latency;
  }

  /** The plan's transport, or UDP when a race was won by it (FakeTunnelManager.up decides). */
  raceWonByUdp = false;

  transport(): Transport {
    return this.raceWonByUdp ? 'udp' : (this.plan.transport ?? 'udp');
  }

  health(): Promise<TunnelHealth | null> {
    return Promise.resolve(this.closed ? null : { ...this.totals });
  }

  /** Adds traffic to the totals. */
  carry(bytes: number): void {
    this.totals = { bytes: this.totals.bytes + bytes };
  }

  burst(count: number): Promise<BurstResult | null> {
    if (this.closed) return Promise.resolve(null);
    this.bursts += 1;
    return Promise.resolve({ sent: count, answered: Math.round(count * this.burstAnswers) });
  }

  on(listener: (e: TunnelEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Delivers an event to the listeners at once (none after close, as the real one). */
  emit(e: TunnelEvent): void {
    if (this.closed) return;
    if (e.type === 'latency') this.latency = e.ms;
    for (const l of [...this.listeners]) l(e);
  }

  measure(ms: number): void {
    this.emit({ type: 'latency', ms });
  }

  lose(reason = 'the node stopped answering'): void {
    this.emit({ type: 'lost', reason });
  }

  restore(): void {
    this.emit({ type: 'restored' });
  }

  rekey(cipher: string): void {
    this.emit({ type: 'rekey', cipher });
  }

  async close(): Promise<void> {
    this.closeCalls += 1;
    if (this.closed) return;
    this.closed = true;
    this.listeners.clear();
    this.onClose(this);
  }
}

export class FakeTunnelManager implements TunnelManager {
  /** Every plan up() was given, in order. */
  readonly plans: TunnelPlan[] = [];
  /** Every tunnel handed out, closed or not, in order. */
  readonly tunnels: FakeActiveTunnel[] = [];
  /** The latency the next tunnels come up with. */
  latencyMs = 20;
  /** When set, the next up() rejects with it (then it is cleared). */
  failNext: FerryError | null = null;
  /** When set, every up() whose plan it returns an error for rejects with that error. */
  refuse: ((plan: TunnelPlan) => FerryError | null) | null = null;
  cleanupCalls = 0;
  private readonly active = new Map<string, FakeActiveTunnel>();
  private holds: Promise<void>[] = [];
  private waitingForPending: (() => void)[] = [];
  private heldNow = 0;

  /**
   * Makes the next up() wait until the returned function is called (or its signal aborts: it then
   * rejects with `cancelled`), as a handshake that takes its time would.
   */
  holdNext(): () => void {
    let release!: () => void;
    this.holds.push(new Promise<void>((r) => (release = r)));
    return release;
  }

  /** Resolves once an up() is waiting at a hold (at once when one is). */
  waitForPending(): Promise<void> {
    if (this.heldNow > 0) return Promise.resolve();
    return new Promise((r) => this.waitingForPending.push(r));
  }

  /** The names of the tunnels up and not closed, in the order they came up. */
  open(): string[] {
    return [...this.active.keys()];
  }

  /** The last tunnel handed out (throws when there is none: a test bug). */
  last(): FakeActiveTunnel {
    const t = this.tunnels[this.tunnels.length - 1];
    if (!t) throw new Error('no fake tunnel was brought up');
    return t;
  }

  /** The tunnel up under this name (throws when there is none: a test bug). */
  tunnel(name: string): FakeActiveTunnel {
    const t = this.active.get(name);
    if (!t) throw new Error(`no active fake tunnel ${name}`);
    return t;
  }

  async up(plan: TunnelPlan, signal?: AbortSignal): Promise<ActiveTunnel> {
    this.plans.push(plan);
    if (!isTunnelInterfaceName(plan.interfaceName))
      throw new TypeError('tunnel interface names come from tunnelInterfaceName()');
    const hold = this.holds.shift();
    // A race: UDP wins where it is not refused; else the stream's own fate.
    const { raceUdp: _race, ...alone } = plan;
    const udpWins = plan.raceUdp === true && !this.refuse?.({ ...alone, transport: 'udp' });
    const failure = this.failNext ?? (udpWins ? null : this.refuse?.(plan)) ?? null;
    this.failNext = null;
    const cancelled = () => new FerryError('cancelled', 'connecting was cancelled');
    if (signal?.aborted) throw cancelled();
    if (this.active.has(plan.interfaceName))
      throw new FerryError(
        'tunnel-failed',
        `an interface named ${plan.interfaceName} exists already`,
      );
    // Asynchronous like the real one: the caller's state may change before up() settles.
    await new Promise((r) => setImmediate(r));
    if (hold) await this.wait(hold, signal, cancelled);
    if (signal?.aborted) throw cancelled();
    if (failure) throw failure;
    const t = new FakeActiveTunnel(plan, this.latencyMs, (closed) =>
      this.active.delete(closed.interfaceName),
    );
    t.raceWonByUdp = udpWins;
    this.active.set(plan.interfaceName, t);
    this.tunnels.push(t);
    return t;
  }

  private async wait(
    hold: Promise<void>,
    signal: AbortSignal | undefined,
    cancelled: () => FerryError,
  ): Promise<void> {
    this.heldNow += 1;
    for (const r of this.waitingForPending.splice(0)) r();
    let onAbort = () => {};
    try {
      await Promise.race([
        hold,
        new Promise<never>((_, reject) => {
          onAbort = () => reject(cancelled());
          if (signal?.aborted) onAbort();
          signal?.addEventListener('abort', onAbort, { once: true });
        }),
      ]);
    } finally {
      this.heldNow -= 1;
      signal?.removeEventListener('abort', onAbort);
    }
  }

  async cleanupLeftovers(): Promise<void> {
    this.cleanupCalls += 1;
  }
}

// Brings a lost connection back by itself (failover): attempts one after another with a growing
// pause, each passing over the nodes that were just lost or could not be reached, until one
// carries traffic or the user takes over (connect, disconnect). The kill switch holds meanwhile.
import { setTimeout as sleep } from 'node:timers/promises';

export interface RecoveryTiming {
  /** Pause before each attempt; the last one repeats. */
  backoffMs: readonly number[];
  /** How long a node stays passed over after it was lost or could not be reached. */
  unreachableForMs: number;
}

export const DEFAULT_RECOVERY_TIMING: RecoveryTiming = {
  backoffMs: [0, 1_000, 2_000, 4_000, 8_000, 15_000],
  unreachableForMs: 60_000,
};

export interface RecoveryDeps {
  /**
   * One attempt, passing over `unreachable` (node ids). Resolves when traffic flows again;
   * rejects otherwise. Resolving `stop` ends the recovery without success (the user took over).
   */
  attempt: (unreachable: string[]) => Promise<'recovered' | 'stop'>;
  timing?: Partial<RecoveryTiming>;
  now?: () => number;
}

interface Run {
  stopped: boolean;
  /** Ends the pause under way: stop() and hurry() both do, and the loop tells them apart. */
  pause: AbortController;
}

export class Recovery {
  readonly #timing: RecoveryTiming;
  readonly #unreachable = new Map<string, number>();
  #run: Run | null = null;
  #attempts = 0;

  constructor(private readonly deps: RecoveryDeps) {
    this.#timing = { ...DEFAULT_RECOVERY_TIMING, ...deps.timing };
  }

  get running(): boolean {
    return this.#run !== null;
  }

  /** Attempts made by the current (or last) recovery. */
  get attempts(): number {
    return this.#attempts;
  }

  /** Passes over `nodeId` for a while. */
  markUnreachable(nodeId: string): void {
    this.#unreachable.set(nodeId, this.now());
  }

  /** Forgets every node passed over (a tunnel came up: what failed before may work again). */
  forgetUnreachable(): void {
    this.#unreachable.clear();
  }

  /** The nodes passed over right now. */
  unreachable(): string[] {
    const now = this.now();
    for (const [id, at] of this.#unreachable)
      if (now - at > this.#timing.unreachableForMs) this.#unreachable.delete(id);
    return [...this.#unreachable.keys()];
  }

  /** Starts recovering unless a recovery runs already; settles when it ends (never rejects). */
  start(): Promise<void> {
    if (this.#run) return Promise.resolve();
    const run: Run = { stopped: false, pause: new AbortController() };
    this.#run = run;
    this.#attempts = 0;
    return this.loop(run).finally(() => {
      if (this.#run === run) this.#run = null;
    });
  }

  /** Ends the recovery (a user's connect or disconnect); an attempt under way is left to them. */
  stop(): void {
    if (!this.#run) return;
    this.#run.stopped = true;
    this.#run.pause.abort();
    this.#run = null;
  }

  /**
   * The network changed (a link came back, a new address): the next attempt goes now, not
   * after the pause, and the pauses start short again.
   */
  hurry(): void {
    if (!this.#run) return;
    this.#hurried = true;
    this.#run.pause.abort();
  }

  #hurried = false;

  private async loop(run: Run): Promise<void> {
    const { backoffMs } = this.#timing;
    for (let i = 0; !run.stopped; i++) {
      if (this.#hurried) {
        this.#hurried = false;
        i = 0;
      }
      const pause = backoffMs[Math.min(i, backoffMs.length - 1)] ?? 0;
      if (pause > 0) {
        try {
          await sleep(pause, undefined, { signal: run.pause.signal });
        } catch {
          // Hurried or stopped: stopped ends the loop below.
          run.pause = new AbortController();
          this.#hurried = false;
        }
      }
      if (run.stopped) return;
      this.#attempts += 1;
      try {
        await this.deps.attempt(this.unreachable());
        return;
      } catch {
        // The next attempt, after a longer pause.
      }
    }
  }

  private now(): number {
    return (this.deps.now ?? Date.now)();
  }
}

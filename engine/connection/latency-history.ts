// The tunnel's recent latency, kept by the engine (the status's latency_history) so that every
// face draws the same chart from the same numbers: a bounded ring of the last measurements of
// the connection's tunnel to its node, following the state machine's changes.
import { LATENCY_HISTORY_SIZE, latencyFigure } from '../../contracts/index.js';
import type { ConnectionChange } from './machine.js';

export class LatencyHistory {
  /** The node the measurements are of (null: none kept). */
  #node: string | null = null;
  #samples: number[] = [];

  constructor(private readonly size = LATENCY_HISTORY_SIZE) {}

  /** The measurements (ms, rounded as the status's latency is), oldest first: a copy. */
  get samples(): number[] {
    return [...this.#samples];
  }

  /**
   * Follows the machine: each measurement of the tunnel in use is kept (the first comes with the
   * tunnel's coming up); a tunnel to another node starts afresh, and so do a connect that begins
   * and the end of a disconnect. A reconnect to the same node goes on where it was.
   */
  follow(change: ConnectionChange): void {
    const { snapshot } = change;
    if (change.kind === 'state' && (change.to === 'connecting' || change.to === 'disconnected')) {
      this.clear();
      return;
    }
    const measured = change.kind === 'latency' || change.to === 'connected';
    if (measured && snapshot.tunnel && snapshot.latencyMs !== null)
      this.add(snapshot.tunnel.nodeId, snapshot.latencyMs);
  }

  /** A measurement of the tunnel to `node` (another node than the last starts afresh). */
  add(node: string, ms: number): void {
    if (node !== this.#node) {
      this.#node = node;
      this.#samples = [];
    }
    this.#samples.push(latencyFigure(ms));
    if (this.#samples.length > this.size) this.#samples.splice(0, this.#samples.length - this.size);
  }

  clear(): void {
    this.#node = null;
    this.#samples = [];
  }
}

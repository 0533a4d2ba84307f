// The renderer's one seam to the engine: a call per face route and the engine's event stream.
// Electron IPC (the app) and HTTP (the web graphical mode) implement it; tests use the fake.
import type { BrowserSession } from '../../contracts/browser-sessions.js';
import type { FaceEvent, FacePayload, FaceRouteId, FaceValue } from '../../contracts/ipc.js';

/**
 * Whether the event stream from the engine is open (`up`) or broken and being retried; in the
 * web graphical mode also `signed-out`: this browser's session is over (ended, expired, or the
 * page was opened without signing in), and nothing is retried.
 */
export type TransportState = 'up' | 'down' | 'signed-out';

/** The browsers signed in to the web graphical mode (which only it has). */
export interface BrowserSessionsAccess {
  list(): Promise<BrowserSession[]>;
  /** Signs that browser out (this one too); rejects with a FaceCallError. */
  end(id: string): Promise<void>;
}

export interface EngineListener {
  /** Every engine event, in order: `status` on each change (latency included), `notice`. */
  event(e: FaceEvent): void;
  /** Called on each change of the link only (never twice in a row with the same state). */
  connection(state: TransportState): void;
}

export interface EngineTransport {
  /**
   * One call of the local API. Resolves with the engine's answer; rejects with a
   * FaceCallError only (the engine's code, or `unreachable`/`timeout`/`bad-response`/`internal`
   * when the call never got an answer that could be read).
   */
  call<K extends FaceRouteId>(id: K, payload: FacePayload<K>): Promise<FaceValue<K>>;
  /**
   * Listens to the engine until the returned function is called. A broken stream is reopened
   * with backoff; nothing is delivered after unsubscribing.
   */
  subscribe(listener: EngineListener): () => void;
  /** The browsers signed in: present in the web graphical mode only. */
  readonly browserSessions?: BrowserSessionsAccess | undefined;
}

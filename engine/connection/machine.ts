// The engine's connection state machine: a pure reducer over an explicit transition table, and
// a small holder that emits every change; it knows nothing of tunnels, HTTP or the OS.
import {
  ENGINE_STATES,
  type Encryption,
  type EngineState,
  type Mode,
  type Protocol,
  latencyText,
} from '../../contracts/index.js';
import { FerryError } from '../errors.js';

export { ENGINE_STATES, type EngineState };

/** What a connect asked for (the configuration and the request merged). */
export interface ConnectTarget {
  /** `auto`, a region id, a rule name or `<area>[:strategy]`, as asked. */
  region: string;
  protocol: Protocol;
  encryption: Encryption;
  mode: Mode;
  /** Stream mode's platform (its table id), null: none asked for. */
  platform?: string | null;
  /** Multihop: the entry region (`auto`: one the service offers); null/absent: one hop. */
  entryRegion?: string | null;
}

/** The tunnel in use, as the control plane's connect answer and the data plane describe it. */
export interface TunnelInfo {
  nodeId: string;
  region: string;
  protocol: Protocol;
  /** The cipher in effect (WireGuard's is always ChaCha20-Poly1305, whatever was asked). */
  cipher: Encryption;
  interfaceName: string;
}

/** Why a failure stopped the connection; `code` is a stable code (the engine's or the API's). */
export interface EngineFailure {
  code: string;
  /** User-safe: no destination, DNS query, user address or key. */
  message: string;
}

export type ConnectReason = 'user-connect' | 'auto-connect' | 'retry';
export type ReconnectReason =
  | 'node-unreachable'
  | 'tunnel-failed'
  | 'network-changed'
  | 'settings-changed'
  | 'keys-rotated'
  /** The transport autopilot moves the tunnel to another transport (engine/connection/transport-watch.ts). */
  | 'transport-changed';
export type DisconnectReason = 'user-disconnect' | 'signed-out' | 'device-revoked' | 'shutdown';

/** Why the machine is in its current state: stable codes that the faces put into words. */
export type TransitionReason =
  | 'initial'
  | ConnectReason
  | 'tunnel-up'
  | ReconnectReason
  | 'failed'
  | DisconnectReason
  | 'cleaned-up';

export type ConnectionEvent =
  | { type: 'connect'; reason: ConnectReason; target: ConnectTarget }
  /** The tunnel carries traffic; `latencyMs` is the first round trip measured through it. */
  | { type: 'tunnel-up'; tunnel: TunnelInfo; latencyMs: number }
  | { type: 'tunnel-lost'; reason: ReconnectReason; target?: ConnectTarget }
  | { type: 'fail'; error: EngineFailure }
  | { type: 'disconnect'; reason: DisconnectReason }
  /** Everything the connection made on this host is gone again. */
  | { type: 'cleaned-up' }
  /** A new latency measurement of the tunnel in use. */
  | { type: 'latency'; latencyMs: number };
export type ConnectionEventType = ConnectionEvent['type'];

/**
 * Which states each event may arrive in, and the state it leads to. Everything else is a bug
 * in the engine and is refused loudly. Leaving any state for `disconnected` goes through
 * `disconnecting`, where the engine removes what it made; `error` is left only by a new
 * connect or an explicit disconnect (the kill switch holds until then).
 */
export const TRANSITIONS: Readonly<
  Record<Exclude<ConnectionEventType, 'latency'>, { from: readonly EngineState[]; to: EngineState }>
> = {
  connect: { from: ['disconnected', 'error'], to: 'connecting' },
  'tunnel-up': { from: ['connecting', 'reconnecting'], to: 'connected' },
  'tunnel-lost': { from: ['connected'], to: 'reconnecting' },
  fail: { from: ['connecting', 'connected', 'reconnecting', 'disconnecting'], to: 'error' },
  disconnect: { from: ['connecting', 'connected', 'reconnecting', 'error'], to: 'disconnecting' },
  'cleaned-up': { from: ['disconnecting'], to: 'disconnected' },
};

/**
 * Where the connection is. Invariants: `tunnel` and `latencyMs` are set exactly while
 * `connected`; `error` exactly while in `error`; `target` from a connect until `disconnected`.
 */
export interface ConnectionSnapshot {
  readonly state: EngineState;
  readonly reason: TransitionReason;
  readonly target: ConnectTarget | null;
  readonly tunnel: TunnelInfo | null;
  readonly latencyMs: number | null;
  readonly error: EngineFailure | null;
}

export const INITIAL_SNAPSHOT: ConnectionSnapshot = Object.freeze({
  state: 'disconnected',
  reason: 'initial',
  target: null,
  tunnel: null,
  latencyMs: null,
  error: null,
});

function checkLatency(ms: number): number {
  if (!Number.isFinite(ms) || ms < 0) {
    throw new FerryError('illegal-transition', 'a latency must be a finite number of ms, >= 0');
  }
  return ms;
}

/** True when `event` may be applied in `state` (a latency is always accepted). */
export function allows(state: EngineState, type: ConnectionEventType): boolean {
  return type === 'latency' || TRANSITIONS[type].from.includes(state);
}

/**
 * The next snapshot. Throws FerryError `illegal-transition` for an event its state does not
 * allow (a bug). A latency outside `connected` is dropped (a probe that finished after its
 * tunnel went): the same snapshot comes back.
 */
export function reduce(s: ConnectionSnapshot, event: ConnectionEvent): ConnectionSnapshot {
  if (event.type === 'latency') {
    const latencyMs = checkLatency(event.latencyMs);
    if (s.state !== 'connected') return s;
    return Object.freeze({ ...s, latencyMs });
  }
  const rule = TRANSITIONS[event.type];
  if (!rule.from.includes(s.state)) {
    throw new FerryError(
      'illegal-transition',
      `the connection cannot take "${event.type}" while ${s.state} (a bug in the engine)`,
    );
  }
  const base = { state: rule.to, tunnel: null, latencyMs: null, error: null };
  let next: ConnectionSnapshot;
  switch (event.type) {
    case 'connect':
      next = { ...base, reason: event.reason, target: { ...event.target } };
      break;
    case 'tunnel-up':
      next = {
        ...base,
        reason: 'tunnel-up',
        target: s.target,
        tunnel: { ...event.tunnel },
        latencyMs: checkLatency(event.latencyMs),
      };
      break;
    case 'tunnel-lost':
      // Settings changed on a live tunnel: the connection goes on toward the new target.
      next = {
        ...base,
        reason: event.reason,
        target: event.target ? { ...event.target } : s.target,
      };
      break;
    case 'fail':
      next = { ...base, reason: 'failed', target: s.target, error: { ...event.error } };
      break;
    case 'disconnect':
      next = { ...base, reason: event.reason, target: s.target };
      break;
    case 'cleaned-up':
      next = { ...base, reason: 'cleaned-up', target: null };
      break;
  }
  return Object.freeze(next);
}

/** "<n>ms": whole milliseconds, with one decimal below 10 ms (a LAN or namespace round trip). */
export const formatLatency = latencyText;

/** What the local status shows (GET /api/v1/status builds on it). */
export interface EngineStatus {
  status: EngineState;
  reason: TransitionReason;
  /** "<n>ms" whenever a tunnel is up (`connected`), otherwise null. */
  latency: string | null;
  /** The tunnel's region while connected, otherwise the region asked for (null when idle). */
  region: string | null;
  node: string | null;
  protocol: Protocol | null;
  cipher: Encryption | null;
  error: EngineFailure | null;
}

export function statusOf(s: ConnectionSnapshot): EngineStatus {
  return {
    status: s.state,
    reason: s.reason,
    latency: s.latencyMs === null ? null : formatLatency(s.latencyMs),
    region: s.tunnel?.region ?? s.target?.region ?? null,
    node: s.tunnel?.nodeId ?? null,
    protocol: s.tunnel?.protocol ?? null,
    cipher: s.tunnel?.cipher ?? null,
    error: s.error,
  };
}

/**
 * Whether the kill switch blocks traffic outside the tunnel: when enabled, in every state but
 * `disconnected`: through connecting, reconnecting and failover, in error, and until an
 * explicit disconnect has cleaned up.
 */
export function killSwitchHolds(state: EngineState, killSwitchEnabled: boolean): boolean {
  return killSwitchEnabled && state !== 'disconnected';
}

export type ConnectionChange =
  | {
      kind: 'state';
      from: EngineState;
      to: EngineState;
      reason: TransitionReason;
      snapshot: ConnectionSnapshot;
    }
  | { kind: 'latency'; latency: string; snapshot: ConnectionSnapshot };

export type ConnectionListener = (change: ConnectionChange) => void;

/**
 * The engine's one connection state: applies events through `reduce` and tells every listener
 * about each change, synchronously and in order. A listener that throws does not stop the
 * others; the first such error is rethrown once all have run (a listener bug must not hide).
 */
export class ConnectionStateMachine {
  #snapshot: ConnectionSnapshot = INITIAL_SNAPSHOT;
  readonly #listeners = new Set<ConnectionListener>();

  get snapshot(): ConnectionSnapshot {
    return this.#snapshot;
  }

  get state(): EngineState {
    return this.#snapshot.state;
  }

  status(): EngineStatus {
    return statusOf(this.#snapshot);
  }

  allows(type: ConnectionEventType): boolean {
    return allows(this.#snapshot.state, type);
  }

  /** Subscribes to changes; returns the unsubscribe function. */
  on(listener: ConnectionListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Applies `event`; throws FerryError `illegal-transition` when its state does not allow it. */
  dispatch(event: ConnectionEvent): ConnectionSnapshot {
    const before = this.#snapshot;
    const after = reduce(before, event);
    if (after === before) return before;
    this.#snapshot = after;
    const change: ConnectionChange =
      event.type === 'latency'
        ? { kind: 'latency', latency: formatLatency(after.latencyMs!), snapshot: after }
        : {
            kind: 'state',
            from: before.state,
            to: after.state,
            reason: after.reason,
            snapshot: after,
          };
    const errors: unknown[] = [];
    for (const listener of [...this.#listeners]) {
      try {
        listener(change);
      } catch (e) {
        errors.push(e);
      }
    }
    if (errors.length > 0) throw errors[0];
    return after;
  }
}

// The one seam between main and the engine: a call per face route and the event stream, whether
// main hosts the engine itself (hostedPort) or is a client of a running engine host on its
// socket (attachedPort). The IPC handlers see no difference; errors keep their codes either way.
import {
  ApiError,
  faceEventOf,
  followEvents,
  sleepUnlessAborted,
  type Backoff,
  type FaceEvent,
  type FaceRouteId,
  type LocalClient,
} from '../../contracts/index.js';
import type { EngineApi } from '../../engine/engine-api.js';
import { localHandlers } from '../../engine/host/local-handlers.js';
import { FaceFailure } from './face-error.js';
import { parseParts } from './face-payload.js';

/** What a call carries: the route's path parameters, query and body, as a face sends them. */
export interface PortPayload {
  params?: unknown;
  query?: unknown;
  body?: unknown;
}

export interface EnginePort {
  readonly mode: 'hosted' | 'attached';
  /**
   * Calls the route `id`; resolves to its answer (undefined for a route without one) or throws
   * what the engine, the control plane or the transport refused with (their codes kept).
   */
  call(id: FaceRouteId, payload: PortPayload, signal?: AbortSignal): Promise<unknown>;
  /** The current status, then every status change and notice, in order; returns the unsubscribe. */
  subscribe(listener: (event: FaceEvent) => void): () => void;
  /** Ends calls in flight and the event stream; hosted: shuts the engine down (disconnects). */
  close(): Promise<void>;
}

type AnyHandler = (input: {
  params: unknown;
  query: unknown;
  body: unknown;
  signal: AbortSignal;
}) => unknown;

export interface HostedPortOptions {
  /** Run after the engine shut down (the local API server main also serves, say). */
  afterShutdown?: () => Promise<void>;
}

/** Main hosts the engine: each call through the local API's handler table, its parts parsed. */
export function hostedPort(engine: EngineApi, options: HostedPortOptions = {}): EnginePort {
  // Only the faces' routes are called here; the host-level ones (openGui) belong to a socket host.
  const handlers = localHandlers(engine, {
    openGui: () => Promise.reject(new Error('openGui is not a face call')),
  }) as unknown as Record<FaceRouteId, AnyHandler>;
  /** Aborted at close: a connect under way stops (the engine cleans up after it). */
  const closing = new AbortController();
  let closed: Promise<void> | undefined;
  return {
    mode: 'hosted',
    async call(id, payload, signal) {
      if (closing.signal.aborted)
        // eslint-disable-next-line i18next/no-literal-string -- said only while the app quits: no face is left to show it
        throw new FaceFailure('engine-unavailable', 'the app is quitting');
      const handler = handlers[id];
      if (typeof handler !== 'function') throw new Error(`the route ${id} has no handler`);
      const parts = parseParts(id, payload);
      const callSignal = signal ? AbortSignal.any([signal, closing.signal]) : closing.signal;
      return await handler({ ...parts, signal: callSignal });
    },
    subscribe(listener) {
      let subscribed = true;
      const unsubscribe = engine.subscribe(listener);
      // As the event stream of the local API does: the current status first.
      queueMicrotask(() => {
        if (subscribed) listener({ type: 'status', status: engine.status() });
      });
      return () => {
        subscribed = false;
        unsubscribe();
      };
    },
    close() {
      closed ??= (async () => {
        closing.abort();
        try {
          await engine.shutdown();
        } finally {
          await options.afterShutdown?.();
        }
      })();
      return closed;
    },
  };
}

export interface AttachedPortOptions {
  /** What a call answers when nothing answers on the socket: how to start the engine. */
  unavailable: (reason: 'not-running' | 'permission-denied') => string;
  /** Lets go of the socket's connections (unix-fetch's close). */
  closeTransport?: () => Promise<void>;
  /** The event stream's waits before it is opened again (default: every face's). */
  backoff?: Backoff | undefined;
}

type ClientMethod = (input: Record<string, unknown>) => Promise<unknown>;

/** The errno underneath a failed fetch (unix-fetch: TypeError('fetch failed', {cause})). */
function transportErrno(error: ApiError): string | undefined {
  let cause: unknown = error.cause;
  for (let depth = 0; depth < 4 && cause; depth++) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return code;
    cause = (cause as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * Main is a client of an engine host (netcli daemon, the systemd unit) over its socket. A
 * socket nothing answers on is `engine-unavailable` with how to start it; the event stream
 * keeps trying, so the app comes alive by itself once the engine starts.
 */
export function attachedPort(client: LocalClient, options: AttachedPortOptions): EnginePort {
  const listeners = new Set<(event: FaceEvent) => void>();
  const closing = new AbortController();
  let pump: Promise<void> | undefined;
  let closed: Promise<void> | undefined;

  const asFaceError = (error: unknown): unknown => {
    // No status: the host never answered (the control plane's `unreachable` has the host's 502).
    if (error instanceof ApiError && error.status === undefined && error.code === 'unreachable') {
      const errno = transportErrno(error);
      const reason = errno === 'EACCES' || errno === 'EPERM' ? 'permission-denied' : 'not-running';
      return new FaceFailure('engine-unavailable', options.unavailable(reason), { cause: error });
    }
    return error;
  };

  const emit = (event: FaceEvent) => {
    for (const listener of [...listeners]) listener(event);
  };

  /** Ends the following under way: the last listener went. */
  let following: AbortController | undefined;

  /**
   * One follower while anyone listens (it opens the stream again when the host restarts; the
   * host's absence meanwhile shows in the calls' answers).
   */
  const ensurePump = () => {
    if (pump || closing.signal.aborted) return;
    const stop = new AbortController();
    following = stop;
    pump = followEvents(client, {
      signal: AbortSignal.any([stop.signal, closing.signal]),
      wait: sleepUnlessAborted,
      backoff: options.backoff,
      onEvent: (e) => emit(faceEventOf(e)),
    }).finally(() => {
      pump = undefined;
      // Someone subscribed while the last stream was winding down.
      if (listeners.size > 0) ensurePump();
    });
  };

  return {
    mode: 'attached',
    async call(id, payload, signal) {
      if (closing.signal.aborted)
        // eslint-disable-next-line i18next/no-literal-string -- said only while the app quits: no face is left to show it
        throw new FaceFailure('engine-unavailable', 'the app is quitting');
      const method = (client as unknown as Record<FaceRouteId, ClientMethod>)[id];
      if (typeof method !== 'function') throw new Error(`the local client has no call ${id}`);
      const callSignal = signal ? AbortSignal.any([signal, closing.signal]) : closing.signal;
      try {
        // How long it may take is the route's (the local API's route table).
        return await method({ ...payload, signal: callSignal });
      } catch (e) {
        throw asFaceError(e);
      }
    },
    subscribe(listener) {
      listeners.add(listener);
      ensurePump();
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0) following?.abort();
      };
    },
    close() {
      closed ??= (async () => {
        closing.abort();
        listeners.clear();
        await pump;
        await options.closeTransport?.();
      })();
      return closed;
    },
  };
}

/** No engine and none to attach to (hosting failed): every call says so, and why. */
export function unavailablePort(message: string): EnginePort {
  return {
    mode: 'attached',
    call: async () => {
      throw new FaceFailure('engine-unavailable', message);
    },
    subscribe: () => () => undefined,
    close: async () => undefined,
  };
}

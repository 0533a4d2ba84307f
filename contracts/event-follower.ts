// How every face follows the engine: the local API's event stream (GET /api/v1/events), opened
// through the face's local client (its injected fetch), each event checked against the route's
// schemas (one that breaks the contract is dropped, not the stream), and opened again with one
// backoff policy when it ends or breaks (the engine restarting), until the caller's signal
// aborts. As Tailscale's WatchIPNBus serves its CLI and its tray, this one loop serves netcli,
// the terminal UI, Electron's main process and the web graphical mode. No I/O of its own: the
// stream comes through the client, and the waits between attempts through `wait`.
import type { ApiError } from './api-error.js';
import type { FaceEvent } from './ipc.js';
import type { LocalClient, LocalRoutes } from './local-api.js';
import type { RouteEvent } from './route-client.js';

/** One event of the engine's stream, checked: a status (on every change) or a notice. */
export type LocalEvent = RouteEvent<LocalRoutes['events']>;

/** How the stream stopped, short of the caller's abort. */
export type StreamStop =
  /** The host ended it (it stops, or restarts). */
  | { state: 'ended' }
  /** It could not be opened, or it broke: `error` says why (the route client's ApiError). */
  | { state: 'down'; error: unknown };

/** The link to the engine, as the follower sees it: a stream open, or how the last one stopped. */
export type FollowedLink = { state: 'up' } | StreamStop;

/** How long to wait before opening the stream again. */
export interface Backoff {
  /** The wait before attempt `n` (0: the first after a stream that delivered, or ever). */
  delayMs(attempt: number): number;
}

/**
 * Doubling from a short first wait up to a ceiling: a restarting engine is found quickly, and
 * one that is gone is not hammered.
 */
export function exponentialBackoff(firstMs = 500, maxMs = 10_000): Backoff {
  return {
    delayMs: (attempt) => Math.min(maxMs, firstMs * 2 ** Math.max(0, Math.min(attempt, 30))),
  };
}

/** The one policy of every face: 0.5 s, 1 s, 2 s ... up to 10 s. */
export const EVENT_STREAM_BACKOFF: Backoff = exponentialBackoff();

export interface FollowEventsOptions {
  /** Following ends when it aborts: the open stream is let go, nothing more is delivered. */
  signal: AbortSignal;
  /** Every event, in order. */
  onEvent(event: LocalEvent): void;
  /** Each time a stream opens (`up`), and each time one stops (before the wait). */
  onLink?(link: FollowedLink): void;
  /**
   * Waits `ms`, or less when `signal` aborts. Injected: contracts keeps no timers of its own
   * (sleep.ts's sleepUnlessAborted is the usual one; tests pass their own).
   */
  wait(ms: number, signal: AbortSignal): Promise<void>;
  /** Default: EVENT_STREAM_BACKOFF. */
  backoff?: Backoff | undefined;
  /**
   * Whether to open the stream again after it stopped (default: always). netcli status --watch
   * stops at the first; the web graphical mode once its session is over.
   */
  retry?(stop: StreamStop): boolean;
  /** An event that broke its schema, dropped (for a log: the error names fields, not values). */
  onBadEvent?(error: ApiError): void;
  /**
   * Where an exception of onEvent or onLink goes: it is the handler's bug, not the stream's, and
   * must not break the stream. Default: thrown again outside the loop (an uncaught error).
   */
  onHandlerError?(error: unknown): void;
}

/**
 * Follows the engine's events until `options.signal` aborts or `retry` says no more. Resolves
 * then; never rejects (a failure to open is a `down` link, and the next attempt follows).
 */
export async function followEvents(
  client: Pick<LocalClient, 'events'>,
  options: FollowEventsOptions,
): Promise<void> {
  const { signal, wait } = options;
  const backoff = options.backoff ?? EVENT_STREAM_BACKOFF;
  const safely = (handler: () => void) => {
    try {
      handler();
    } catch (e) {
      if (options.onHandlerError) options.onHandlerError(e);
      else
        queueMicrotask(() => {
          throw e;
        });
    }
  };
  let attempt = 0;
  while (!signal.aborted) {
    let stop: StreamStop;
    try {
      const stream = await client.events({
        signal,
        onBadEvent: options.onBadEvent ?? (() => undefined),
      });
      if (signal.aborted) {
        stream.close();
        return;
      }
      safely(() => options.onLink?.({ state: 'up' }));
      for await (const event of stream) {
        if (signal.aborted) break;
        // The host sends the current status first: a stream that delivers is a good one.
        attempt = 0;
        safely(() => options.onEvent(event));
      }
      stop = { state: 'ended' };
    } catch (error) {
      stop = { state: 'down', error };
    }
    if (signal.aborted) return;
    safely(() => options.onLink?.(stop));
    if (options.retry && !options.retry(stop)) return;
    await wait(backoff.delayMs(attempt++), signal);
  }
}

/** An event of the stream as the faces' IPC carries it (contracts/ipc.ts's FaceEvent). */
export function faceEventOf(event: LocalEvent): FaceEvent {
  return event.event === 'status'
    ? { type: 'status', status: event.data }
    : { type: 'notice', notice: event.data };
}

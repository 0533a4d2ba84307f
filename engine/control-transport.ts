// The engine's HTTP transport to the control plane: fetch over a connection pool that the engine
// drops whenever the routes change (a tunnel came or went). A kept-alive connection opened
// before a full tunnel would otherwise carry on with the old source address through the tunnel
// and hang; browsers drop their pools on a network change for the same reason.
import { Agent, fetch as undiciFetch, type RequestInit as UndiciRequestInit } from 'undici';
import type { FetchLike } from '../contracts/index.js';

export interface ControlTransport {
  fetch: FetchLike;
  /** Drops every pooled connection; calls under way fail and the next ones open new ones. */
  reset(): void;
  close(): Promise<void>;
}

export function createControlTransport(): ControlTransport {
  let agent = new Agent();
  return {
    fetch: (url, init) =>
      undiciFetch(url, {
        ...(init as UndiciRequestInit),
        dispatcher: agent,
      }) as unknown as Promise<Response>,
    reset() {
      const old = agent;
      agent = new Agent();
      old.destroy().catch(() => undefined);
    },
    close: () => agent.destroy(),
  };
}

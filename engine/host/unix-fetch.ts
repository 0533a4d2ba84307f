// A FetchLike (contracts/route-client.ts) that carries requests to the engine host's unix
// socket: the URL's host names the API (ferry.local), the socket is where it goes. Answers,
// event streams included, arrive as they are written.
import { Agent, fetch as undiciFetch, type RequestInit as UndiciRequestInit } from 'undici';
import type { FetchLike } from '../../contracts/index.js';

export interface UnixFetch extends FetchLike {
  readonly socketPath: string;
  /** Drops the connections to the socket (open streams end). */
  close(): Promise<void>;
}

export function createUnixFetch(socketPath: string): UnixFetch {
  const agent = new Agent({ connect: { socketPath } });
  const send = (url: string, init: RequestInit) =>
    undiciFetch(url, {
      ...(init as UndiciRequestInit),
      dispatcher: agent,
    }) as unknown as Promise<Response>;
  return Object.assign(send, {
    socketPath,
    close: () => agent.destroy(),
  });
}

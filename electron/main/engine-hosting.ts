// The two ways main reaches an engine, wired: hosting it as `netcli daemon` does (the engine,
// and the local API on the socket so that netcli and the terminal UI share it), or attaching to
// the engine host on the socket.
import { createLocalClient } from '../../contracts/index.js';
import type { EngineApi } from '../../engine/engine-api.js';
import {
  startLocalApiServer,
  type LocalApiServerOptions,
} from '../../engine/host/local-api-server.js';
import { createUnixFetch } from '../../engine/host/unix-fetch.js';
import { engineUnavailableMessage } from './choose-engine.js';
import {
  attachedPort,
  hostedPort,
  type AttachedPortOptions,
  type EnginePort,
} from './engine-port.js';

export interface HostEngineOptions {
  socketPath: string;
  stateDir: string;
  /** engine/engine.ts createEngine (tests pass the in-memory engine). */
  createEngine: (opts: { stateDir: string }) => Promise<EngineApi>;
  /** The socket's group (default `ferry`; null: the owner's only). */
  group?: string | null;
  log?: LocalApiServerOptions['log'];
}

/**
 * Starts the engine and serves its local API on the socket, like `netcli daemon`. Closing the
 * port shuts the engine down (a clean disconnect), then stops serving. A live engine host on
 * the socket refuses the start (SocketFileError `engine-already-running`), the engine shut
 * down again: never two engines on one machine.
 */
export async function hostEngine(options: HostEngineOptions): Promise<EnginePort> {
  const engine = await options.createEngine({ stateDir: options.stateDir });
  let server;
  try {
    server = await startLocalApiServer({
      engine,
      socketPath: options.socketPath,
      ...(options.group !== undefined ? { group: options.group } : {}),
      ...(options.log ? { log: options.log } : {}),
    });
  } catch (e) {
    await engine.shutdown();
    throw e;
  }
  return hostedPort(engine, { afterShutdown: () => server.close() });
}

/**
 * A client of the engine host on the socket. `notRunning` replaces what a call answers while
 * nothing answers there (why the app could not host the engine itself).
 */
export function attachEngine(
  socketPath: string,
  notRunning?: string,
  backoff?: AttachedPortOptions['backoff'],
): EnginePort {
  const fetch = createUnixFetch(socketPath);
  return attachedPort(createLocalClient({ fetch }), {
    unavailable: (reason) =>
      reason === 'not-running' && notRunning !== undefined
        ? notRunning
        : engineUnavailableMessage(socketPath, reason),
    closeTransport: () => fetch.close(),
    backoff,
  });
}

// How netcli reaches the engine: the socket (--socket, FERRY_SOCKET, the default), the engine
// started in the background when root finds none on the default socket, and the typed client.
import {
  DEFAULT_ENGINE_SOCKET,
  createLocalClient,
  translator,
  type LocalClient,
  type Translate,
} from '../contracts/index.js';
import { probeSocket } from '../engine/host/socket-file.js';
import { createUnixFetch, type UnixFetch } from '../engine/host/unix-fetch.js';
import type { CliIo } from './io.js';

/** How long netcli waits for an engine it started to answer. */
export const AUTOSTART_WAIT_MS = 5_000;

export interface SocketChoice {
  path: string;
  /** Neither --socket nor FERRY_SOCKET chose it. */
  isDefault: boolean;
}

export function chooseSocket(option: string | undefined, env: CliIo['env']): SocketChoice {
  if (option) return { path: option, isDefault: false };
  const fromEnv = env.FERRY_SOCKET;
  if (fromEnv) return { path: fromEnv, isDefault: false };
  return { path: DEFAULT_ENGINE_SOCKET, isDefault: true };
}

/**
 * Root with no engine on the default socket: `netcli daemon` is started in the background,
 * and this waits until it answers (or gives up after AUTOSTART_WAIT_MS; the call that follows
 * then says there is no engine). A socket someone chose is never given an engine this way.
 */
export async function ensureEngine(
  socket: SocketChoice,
  io: CliIo,
  t: Translate = translator('en'),
): Promise<void> {
  if (!io.isRoot || !socket.isDefault) return;
  if ((await probeSocket(socket.path)) === 'live') return;
  io.stderr.write(`netcli: ${t('output.errors.startingEngine')}\n`);
  await io.startDaemon(socket.path);
  const until = Date.now() + AUTOSTART_WAIT_MS;
  while (Date.now() < until) {
    if ((await probeSocket(socket.path)) === 'live') return;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The engine's clients of one run of netcli, closed together when it ends. */
export class EngineConnections {
  private readonly fetches: UnixFetch[] = [];

  constructor(
    private readonly io: CliIo,
    private readonly t: Translate = translator('en'),
  ) {}

  async client(socket: SocketChoice): Promise<LocalClient> {
    await ensureEngine(socket, this.io, this.t);
    const fetch = createUnixFetch(socket.path);
    this.fetches.push(fetch);
    return createLocalClient({ fetch });
  }

  async closeAll(): Promise<void> {
    await Promise.all(this.fetches.splice(0).map((f) => f.close()));
  }
}

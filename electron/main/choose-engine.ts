// Whether main hosts the engine or attaches to a running engine host: hosted only when this
// process may change the network (root, or CAP_NET_ADMIN) and no engine host answers on the
// socket already; otherwise attached to the socket, which answers `engine-unavailable` with how
// to start the engine until one runs. Two engines on one machine would fight over routes and
// the firewall, so a live socket always wins.
import { DEFAULT_ENGINE_SOCKET, type Translate } from '../../contracts/index.js';
import type { EnginePort } from './engine-port.js';
import { mainWords } from './main-words.js';

// The choice's `why` and the log lines are the journal's (for whoever reads the log), not words
// of the app: they stay English, as the engine's log does.
/* eslint-disable i18next/no-literal-string -- the journal's words (why, log lines), not the app's */

/** What the decision reads of this process and machine (tests pass their own). */
export interface EngineFacts {
  env: Readonly<Record<string, string | undefined>>;
  /** process.getuid?.(): undefined where there are no uids (Windows). */
  uid(): number | undefined;
  /** The text of /proc/self/status, or undefined where there is none. */
  procStatus(): Promise<string | undefined>;
  /** engine/host/socket-file.ts probeSocket: 'live' when a host accepts connections. */
  probeSocket(socketPath: string): Promise<string>;
}

export type EngineChoice =
  | { mode: 'hosted'; socketPath: string; why: string }
  | { mode: 'attached'; socketPath: string; why: string };

/** CAP_NET_ADMIN's bit in the capability sets (linux/capability.h). */
const CAP_NET_ADMIN = 12n;

/** Whether the effective capabilities (CapEff of /proc/self/status) hold CAP_NET_ADMIN. */
export function hasNetAdmin(procStatus: string | undefined): boolean {
  const m = /^CapEff:\s*([0-9a-fA-F]+)\s*$/m.exec(procStatus ?? '');
  if (!m?.[1]) return false;
  return ((BigInt(`0x${m[1]}`) >> CAP_NET_ADMIN) & 1n) === 1n;
}

export function socketPathOf(env: EngineFacts['env']): string {
  return env.FERRY_SOCKET || DEFAULT_ENGINE_SOCKET;
}

export async function chooseEngine(facts: EngineFacts): Promise<EngineChoice> {
  const socketPath = socketPathOf(facts.env);
  if ((await facts.probeSocket(socketPath)) === 'live')
    return { mode: 'attached', socketPath, why: 'an engine host answers on the socket' };
  if (facts.uid() === 0) return { mode: 'hosted', socketPath, why: 'running as root' };
  if (hasNetAdmin(await facts.procStatus()))
    return { mode: 'hosted', socketPath, why: 'running with CAP_NET_ADMIN' };
  return {
    mode: 'attached',
    socketPath,
    why: 'no privileges to host the engine: waiting for an engine host on the socket',
  };
}
/* eslint-enable i18next/no-literal-string */

/** What a face is told when there is no engine: how to start one, or how to be let in. */
export function engineUnavailableMessage(
  socketPath: string,
  reason: 'not-running' | 'permission-denied' | { hostingFailed: string },
  platform: NodeJS.Platform = process.platform,
  t: Translate = mainWords(),
): string {
  // The engine (routes, firewall, TUN, the data plane) is Linux's so far.
  if (platform !== 'linux') return t('home.engine.linuxOnly');
  if (reason === 'permission-denied')
    return t('home.engine.permissionDenied', { socket: socketPath });
  const start =
    socketPath === DEFAULT_ENGINE_SOCKET
      ? t('home.engine.startService')
      : t('home.engine.startDaemon', { socket: socketPath });
  const why =
    reason === 'not-running'
      ? t('home.engine.notRunning')
      : t('home.engine.hostingFailed', { reason: reason.hostingFailed });
  return t('home.engine.startWith', { why, start });
}

export interface OpenEngineDeps {
  /** Hosts the engine here (createEngine, and the local API on the socket for netcli). */
  host(socketPath: string): Promise<EnginePort>;
  /** A client of the engine host on the socket. */
  attach(socketPath: string, unavailable?: string): EnginePort;
  /** Why hosting failed, in words a person may see (a FerryError's message), else undefined. */
  describe(error: unknown): string | undefined;
  log: { info(o: object, msg: string): void; warn(o: object, msg: string): void };
}

/**
 * The port for a choice. Hosting that fails because an engine host came up meanwhile attaches
 * to it; hosting that fails otherwise attaches too (an engine started later is picked up), and
 * the calls say why the app could not host it.
 */
export async function openEngine(choice: EngineChoice, deps: OpenEngineDeps): Promise<EnginePort> {
  deps.log.info({ mode: choice.mode, why: choice.why }, 'engine');
  if (choice.mode === 'attached') return deps.attach(choice.socketPath);
  try {
    return await deps.host(choice.socketPath);
  } catch (e) {
    const code = (e as { code?: unknown } | null)?.code;
    if (code === 'engine-already-running') {
      // eslint-disable-next-line i18next/no-literal-string -- a line of the journal, not the app's words
      deps.log.info({ mode: 'attached' }, 'an engine host started meanwhile: attaching to it');
      return deps.attach(choice.socketPath);
    }
    const reason = deps.describe(e) ?? mainWords()('home.engine.seeLog');
    deps.log.warn(
      { code: typeof code === 'string' ? code : undefined },
      // eslint-disable-next-line i18next/no-literal-string -- a line of the journal, not the app's words
      'hosting the engine failed',
    );
    return deps.attach(
      choice.socketPath,
      engineUnavailableMessage(choice.socketPath, { hostingFailed: reason }),
    );
  }
}

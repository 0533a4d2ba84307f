// The engine host's socket file: its directory made, a stale socket from a crash removed (only
// when nothing answers on it), a live one left alone, and the socket opened to root and the
// group `ferry` only (0660).
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmod, chown, lstat, mkdir, readFile, rename, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import path from 'node:path';
import { errnoCode } from '../errors.js';

export const SOCKET_MODE = 0o660;
export const SOCKET_DIR_MODE = 0o755;
/** A live host answers a connect at once; one that does not within this is taken as live. */
const PROBE_TIMEOUT_MS = 1_000;

export type SocketErrorCode = 'engine-already-running' | 'socket-unusable';

/** Why the host cannot listen where it was told to. */
export class SocketFileError extends Error {
  readonly code: SocketErrorCode;

  constructor(code: SocketErrorCode, message: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'SocketFileError';
    this.code = code;
  }
}

/** Whether something accepts connections on the socket: 'live', 'stale' (refused) or an errno. */
export function probeSocket(socketPath: string): Promise<'live' | 'stale' | 'absent' | string> {
  return new Promise((resolve) => {
    const socket = connect({ path: socketPath });
    const done = (outcome: string) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(outcome);
    };
    // A backlog so full that the connect hangs is a host that is alive, only busy.
    const timer = setTimeout(() => done('live'), PROBE_TIMEOUT_MS);
    socket.once('connect', () => done('live'));
    socket.once('error', (e) => {
      const code = errnoCode(e);
      done(code === 'ECONNREFUSED' ? 'stale' : code === 'ENOENT' ? 'absent' : (code ?? 'error'));
    });
  });
}

/**
 * Makes the socket's directory (0755) and clears the way: a socket file nothing answers on is
 * removed; a live one, or a file that is not a socket, is refused with what to do.
 */
export async function prepareSocketPath(socketPath: string): Promise<void> {
  const dir = path.dirname(socketPath);
  try {
    const created = await mkdir(dir, { recursive: true, mode: SOCKET_DIR_MODE });
    // The mode given to mkdir passes through the umask; the directory's must be exact.
    if (created !== undefined) await chmod(dir, SOCKET_DIR_MODE);
  } catch (e) {
    throw new SocketFileError(
      'socket-unusable',
      `cannot create the socket directory ${dir} (${errnoCode(e) ?? 'error'})`,
      e,
    );
  }
  const st = await lstat(socketPath).catch((e: unknown) => {
    if (errnoCode(e) === 'ENOENT') return undefined;
    throw new SocketFileError(
      'socket-unusable',
      `cannot use ${socketPath} (${errnoCode(e) ?? 'error'})`,
      e,
    );
  });
  if (!st) return;
  if (!st.isSocket()) {
    throw new SocketFileError(
      'socket-unusable',
      `${socketPath} exists and is not a socket; remove it or choose another --socket`,
    );
  }
  const probe = await probeSocket(socketPath);
  if (probe === 'live') {
    throw new SocketFileError(
      'engine-already-running',
      `another engine host is already answering on ${socketPath}`,
    );
  }
  if (probe === 'stale' || probe === 'absent') {
    await rm(socketPath, { force: true });
    return;
  }
  throw new SocketFileError('socket-unusable', `cannot use ${socketPath} (${probe})`);
}

function gidFromGroupLine(text: string, group: string): number | undefined {
  for (const line of text.split('\n')) {
    const [name, , gid] = line.split(':');
    if (name === group && gid !== undefined && /^\d+$/.test(gid)) return Number(gid);
  }
  return undefined;
}

/** The id of a group by name (through NSS with getent, else /etc/group), or undefined. */
export async function groupId(group: string): Promise<number | undefined> {
  const viaGetent = await new Promise<string | undefined>((resolve) => {
    execFile('getent', ['group', '--', group], { timeout: 2_000 }, (error, stdout) =>
      resolve(error ? undefined : stdout),
    );
  });
  if (viaGetent !== undefined) return gidFromGroupLine(viaGetent, group);
  const file = await readFile('/etc/group', 'utf8').catch(() => '');
  return gidFromGroupLine(file, group);
}

/**
 * Opens the socket to its owner and `group` (0660, group set when it exists). Returns the
 * group the socket was given, or null when it has none of its own.
 */
export async function secureSocket(
  socketPath: string,
  group: string | null,
): Promise<string | null> {
  await chmod(socketPath, SOCKET_MODE);
  if (group === null) return null;
  const gid = await groupId(group);
  if (gid === undefined) return null;
  try {
    await chown(socketPath, process.getuid?.() ?? -1, gid);
  } catch (e) {
    // Not root and not in the group: the socket stays the owner's alone (0660, own group).
    if (errnoCode(e) === 'EPERM') return null;
    throw e;
  }
  return group;
}

/**
 * Listens on a name of its own beside `socketPath`, secures that socket (0660, `group`), then
 * renames it into place: the socket appears at its path only once it is secured, so whoever
 * finds it there can use it. Returns the group it was given.
 */
export async function publishSocket(
  socketPath: string,
  group: string | null,
  server: {
    listen: (boundPath: string) => Promise<void>;
    close: () => Promise<void>;
    /** Called once the socket is secured, before it appears at its path. */
    secured: () => void;
  },
): Promise<string | null> {
  const boundPath = path.join(
    path.dirname(socketPath),
    `.${process.pid}-${randomBytes(3).toString('hex')}`,
  );
  await server.listen(boundPath);
  try {
    const given = await secureSocket(boundPath, group);
    server.secured();
    await rename(boundPath, socketPath);
    return given;
  } catch (e) {
    await server.close();
    await rm(boundPath, { force: true });
    throw e;
  }
}

// The engine's private state directory (configuration, device keys): created 0700, refused when
// others can reach it; its JSON files read against a schema and replaced atomically and durably.
import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { z } from 'zod';

import { errnoCode, FerryError, type EngineErrorCode } from './errors.js';

export const DEFAULT_STATE_DIR = '/var/lib/ferry';

/**
 * Creates `dir` (0700) when absent, and checks that it is a directory this user owns that no
 * one else can enter: the device's private keys live there. An existing directory is never
 * chmod-ed (the user may have pointed --state-dir at a shared one by mistake): it is refused,
 * with the fix.
 */
export async function ensureStateDir(dir: string): Promise<void> {
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
  } catch (e) {
    throw new FerryError(
      'state-dir-unusable',
      `cannot create the state directory ${dir} (${errnoCode(e) ?? 'error'})`,
      { cause: e },
    );
  }
  const st = await stat(dir).catch((e: unknown) => {
    throw new FerryError(
      'state-dir-unusable',
      `cannot use the state directory ${dir} (${errnoCode(e) ?? 'error'})`,
      { cause: e },
    );
  });
  if (!st.isDirectory()) {
    throw new FerryError('state-dir-unusable', `the state directory ${dir} is not a directory`);
  }
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid) {
    throw new FerryError(
      'state-dir-insecure',
      `the state directory ${dir} belongs to another user (uid ${st.uid}); use a directory of your own`,
    );
  }
  if ((st.mode & 0o077) !== 0) {
    const mode = (st.mode & 0o777).toString(8).padStart(4, '0');
    throw new FerryError(
      'state-dir-insecure',
      `the state directory ${dir} is open to other users (mode ${mode}): run chmod 700 ${dir}`,
    );
  }
}

/**
 * Replaces `file` with `data`: a temp file beside it (created exclusively, `mode`), written
 * and fsync-ed, renamed over the old one, then the directory fsync-ed so that the rename
 * survives a power cut. Readers see the old file or the new one, never a mix. On failure the
 * temp file is removed, the old file is untouched, and the error is thrown as it is.
 */
export async function writeFileAtomic(file: string, data: string, mode = 0o600): Promise<void> {
  const dir = path.dirname(file);
  const tmp = path.join(
    dir,
    `.${path.basename(file)}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`,
  );
  try {
    const handle = await open(tmp, 'wx', mode);
    try {
      // The mode given to open() passes through the umask; the file's must be exact.
      await handle.chmod(mode);
      await handle.writeFile(data, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tmp, file);
  } catch (e) {
    await rm(tmp, { force: true }).catch(() => undefined);
    throw e;
  }
  const d = await open(dir, 'r');
  try {
    await d.sync();
  } finally {
    await d.close();
  }
}

type Failure<Args extends unknown[]> = {
  code: EngineErrorCode;
  message: (...args: Args) => string;
};

/**
 * What the failures of one state file say: a stable code each, and a message that names the
 * file and what to do. Users and hosts know them: a file's codes and messages do not change.
 */
export interface StateFileErrors {
  /** It could not be read (permissions, I/O); `errno` as ENOENT, or "error". */
  unreadable: Failure<[file: string, errno: string]>;
  /** It is not JSON, or not of the schema's shape; it is left as it is. */
  corrupt: Failure<[file: string]>;
  /** It could not be saved in `dir`; the previous file is unchanged. */
  writeFailed: Failure<[dir: string, errno: string]>;
  /**
   * Set for a file that holds secrets (keys, a token): one that others may open is refused
   * unread, `mode` as "0644". Every state file is written 0600; this catches one changed since.
   */
  insecure?: Failure<[file: string, mode: string]>;
}

/** The failures of a settings file without secrets (region rules, services), named `what`. */
export function settingsFileErrors(what: string): StateFileErrors {
  return {
    unreadable: {
      code: 'config-unreadable',
      message: (file, errno) => `cannot read the ${what} ${file} (${errno})`,
    },
    corrupt: {
      code: 'config-corrupt',
      message: (file) => `the ${what} file ${file} is damaged and was left as it is`,
    },
    writeFailed: {
      code: 'config-write-failed',
      message: (dir, errno) => `cannot save the ${what} in ${dir} (${errno})`,
    },
  };
}

const errorsOf = (what: string | StateFileErrors) =>
  typeof what === 'string' ? settingsFileErrors(what) : what;

/** The text of `file`, null when there is none; the mode is checked on the file opened. */
async function readText(file: string, errors: StateFileErrors): Promise<string | null> {
  const unreadable = (e: unknown) => {
    const { code, message } = errors.unreadable;
    return new FerryError(code, message(file, errnoCode(e) ?? 'error'), { cause: e });
  };
  let handle: FileHandle;
  try {
    handle = await open(file, 'r');
  } catch (e) {
    if (errnoCode(e) === 'ENOENT') return null;
    throw unreadable(e);
  }
  try {
    if (errors.insecure) {
      const mode = (await handle.stat()).mode & 0o777;
      if ((mode & 0o077) !== 0) {
        const { code, message } = errors.insecure;
        throw new FerryError(code, message(file, mode.toString(8).padStart(4, '0')));
      }
    }
    return await handle.readFile('utf8');
  } catch (e) {
    throw e instanceof FerryError ? e : unreadable(e);
  } finally {
    await handle.close();
  }
}

/**
 * A JSON file of the state dir: its contents as `schema` reads them, or null when there is
 * none. `what` names a settings file in messages (e.g. "region rules"); a file of its own kind
 * brings its own errors. A damaged file is left as it is, and neither the parser's message nor
 * the schema's issues are passed on: they could quote a secret.
 */
export async function readStateFile<S extends z.ZodType>(
  file: string,
  schema: S,
  what: string | StateFileErrors,
): Promise<z.output<S> | null> {
  const errors = errorsOf(what);
  const text = await readText(file, errors);
  if (text === null) return null;
  let parsed: z.ZodSafeParseResult<z.output<S>>;
  try {
    parsed = schema.safeParse(JSON.parse(text));
  } catch {
    parsed = { success: false } as z.ZodSafeParseResult<z.output<S>>;
  }
  if (!parsed.success) throw corruptStateFile(errors, file);
  return parsed.data;
}

/** The error of a file its owner found damaged past the schema (as readStateFile says it). */
export function corruptStateFile(errors: StateFileErrors, file: string): FerryError {
  return new FerryError(errors.corrupt.code, errors.corrupt.message(file));
}

/**
 * Saves `data` as the JSON file `file` of `stateDir`, 0600 and atomically (never readable by
 * others, not even while it is written). `write` replaces the atomic write (tests make it fail).
 */
export async function writeStateFile(
  stateDir: string,
  file: string,
  data: unknown,
  what: string | StateFileErrors,
  write: typeof writeFileAtomic = writeFileAtomic,
): Promise<void> {
  const errors = errorsOf(what);
  await ensureStateDir(stateDir);
  try {
    await write(file, `${JSON.stringify(data, null, 2)}\n`, 0o600);
  } catch (e) {
    const { code, message } = errors.writeFailed;
    throw new FerryError(code, message(stateDir, errnoCode(e) ?? 'error'), { cause: e });
  }
}

// The engine's private state directory (configuration, device keys): created 0700, refused when
// others can reach it, and files in it replaced atomically and durably.
import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { z } from 'zod';

import { errnoCode, FerryError } from './errors.js';

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

/**
 * A small JSON file of the state dir (region rules, services): its contents as `schema` reads
 * them, or null when there is none. An unreadable file is `config-unreadable`; one that is not
 * JSON or not of the schema's shape is `config-corrupt` and is left as it is. `what` names it
 * in messages (e.g. "region rules").
 */
export async function readStateFile<S extends z.ZodType>(
  file: string,
  schema: S,
  what: string,
): Promise<z.output<S> | null> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    if (errnoCode(e) === 'ENOENT') return null;
    throw new FerryError(
      'config-unreadable',
      `cannot read the ${what} ${file} (${errnoCode(e) ?? 'error'})`,
      { cause: e },
    );
  }
  let parsed: z.ZodSafeParseResult<z.output<S>>;
  try {
    parsed = schema.safeParse(JSON.parse(text));
  } catch {
    parsed = { success: false } as z.ZodSafeParseResult<z.output<S>>;
  }
  if (!parsed.success) {
    throw new FerryError(
      'config-corrupt',
      `the ${what} file ${file} is damaged and was left as it is`,
    );
  }
  return parsed.data;
}

/** Saves `data` as the JSON file `file` of `stateDir` (atomically); `config-write-failed` else. */
export async function writeStateFile(
  stateDir: string,
  file: string,
  data: unknown,
  what: string,
): Promise<void> {
  await ensureStateDir(stateDir);
  try {
    await writeFileAtomic(file, `${JSON.stringify(data, null, 2)}\n`);
  } catch (e) {
    throw new FerryError(
      'config-write-failed',
      `cannot save the ${what} in ${stateDir} (${errnoCode(e) ?? 'error'})`,
      { cause: e },
    );
  }
}

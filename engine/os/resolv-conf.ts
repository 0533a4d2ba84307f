// The system resolver through /etc/resolv.conf: the tunnel's resolver written in while connected,
// the file as it was kept in the state dir and put back afterwards, also by the next start after
// a crash (the saved copy outlives the process).
import { lstat, readFile, readlink, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import path from 'node:path';
import { z } from 'zod';

import { errnoCode, FerryError } from '../errors.js';
import { ensureStateDir, writeFileAtomic } from '../state-dir.js';
import { checkInterfaceName } from '../../platform/os/arguments.js';
import type { Resolver } from './resolver.js';

/** What /etc/resolv.conf was before the first set: a file, a symlink (e.g. to a stub), or none. */
const Saved = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('file'), content: z.string() }),
  z.object({ kind: z.literal('symlink'), target: z.string() }),
  z.object({ kind: z.literal('absent') }),
]);
type Saved = z.infer<typeof Saved>;

/** The file's lines that still apply with our servers: search domains and resolver options. */
function keptLines(saved: Saved): string[] {
  if (saved.kind !== 'file') return [];
  return saved.content
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => /^(search|domain|options)\s/.test(l));
}

/** The resolv.conf that sends every query to `servers`. */
export function resolvConfText(servers: readonly string[], saved: Saved): string {
  for (const s of servers) if (isIP(s) === 0) throw new TypeError('a resolver is an IP address');
  return [
    '# Written by Ferry while the tunnel is up: queries go to the resolver through the tunnel.',
    '# The previous file comes back when Ferry disconnects.',
    ...servers.map((s) => `nameserver ${s}`),
    ...keptLines(saved),
    '',
  ].join('\n');
}

/**
 * The `nameserver` lines' addresses of a resolv.conf that a program outside the host's loopback
 * can be asked: IPv4, not 127/8 (a stub whose own upstream is unknown), once each, in order.
 */
export function homeNameservers(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split('\n')) {
    const [keyword, value] = line.trim().split(/\s+/);
    if (keyword !== 'nameserver' || value === undefined || isIP(value) !== 4) continue;
    if (value.startsWith('127.') || value === '0.0.0.0' || out.includes(value)) continue;
    out.push(value);
  }
  return out;
}

function failed(what: string, e: unknown): FerryError {
  return new FerryError(
    'os-command-failed',
    `could not ${what} the system resolver (${errnoCode(e) ?? 'error'})`,
    { cause: e },
  );
}

export class ResolvConfResolver implements Resolver {
  readonly #file: string;
  readonly #savedFile: string;

  /**
   * `file` is written in place (a network namespace's resolv.conf is a bind mount: it cannot be
   * renamed over); `savedFile` (in the state dir, 0600) keeps what was there.
   */
  constructor(opts: { savedFile: string; file?: string }) {
    this.#file = opts.file ?? '/etc/resolv.conf';
    this.#savedFile = opts.savedFile;
  }

  /** Whether a set is in force (from this run or one that crashed). */
  async pending(): Promise<boolean> {
    return (await this.saved()) !== null;
  }

  async set(servers: readonly string[], interfaceName: string): Promise<void> {
    checkInterfaceName(interfaceName);
    let saved = await this.saved();
    if (saved === null) {
      saved = await this.current();
      // Kept before anything changes: a crash after this line still finds it.
      await ensureStateDir(path.dirname(this.#savedFile));
      await writeFileAtomic(this.#savedFile, `${JSON.stringify(saved)}\n`, 0o600).catch((e) => {
        throw failed('save', e);
      });
    }
    const text = resolvConfText(servers, saved);
    try {
      // A symlink (to a stub resolver's file) is replaced, not written through.
      if ((await lstat(this.#file).catch(() => null))?.isSymbolicLink()) await unlink(this.#file);
      await writeFile(this.#file, text, { mode: 0o644 });
    } catch (e) {
      throw failed('set', e);
    }
  }

  async homeServers(): Promise<string[]> {
    const before = (await this.saved()) ?? (await this.current());
    if (before.kind === 'file') return homeNameservers(before.content);
    if (before.kind === 'absent') return [];
    // A link to another program's file (resolvconf, NetworkManager): the servers are in there,
    // which stays while the link is replaced by our file.
    const target = path.resolve(path.dirname(this.#file), before.target);
    return homeNameservers(await readFile(target, 'utf8').catch(() => ''));
  }

  async restore(): Promise<void> {
    const saved = await this.saved();
    if (saved === null) return;
    try {
      if (saved.kind === 'file') {
        if ((await lstat(this.#file).catch(() => null))?.isSymbolicLink()) await unlink(this.#file);
        await writeFile(this.#file, saved.content);
      } else if (saved.kind === 'symlink') {
        await rm(this.#file, { force: true });
        await symlink(saved.target, this.#file);
      } else {
        await rm(this.#file, { force: true });
      }
    } catch (e) {
      throw failed('restore', e);
    }
    await rm(this.#savedFile, { force: true }).catch((e) => {
      throw failed('restore', e);
    });
  }

  private async current(): Promise<Saved> {
    try {
      const st = await lstat(this.#file);
      if (st.isSymbolicLink()) return { kind: 'symlink', target: await readlink(this.#file) };
      return { kind: 'file', content: await readFile(this.#file, 'utf8') };
    } catch (e) {
      if (errnoCode(e) === 'ENOENT') return { kind: 'absent' };
      throw failed('read', e);
    }
  }

  private async saved(): Promise<Saved | null> {
    let text: string;
    try {
      text = await readFile(this.#savedFile, 'utf8');
    } catch (e) {
      if (errnoCode(e) === 'ENOENT') return null;
      throw failed('read the saved copy of', e);
    }
    try {
      return Saved.parse(JSON.parse(text));
    } catch (e) {
      throw failed('read the saved copy of', e);
    }
  }
}

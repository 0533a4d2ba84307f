// The signed-in device: its control-plane token, device record and account number, kept in
// `<stateDir>/session.json` (0600, the directory 0700). The token is a credential: it stays
// in a private field, out of JSON.stringify, util.inspect and every message.
import { readFile, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { Device } from '../contracts/index.js';
import { errnoCode, FerryError } from './errors.js';
import { DEFAULT_STATE_DIR, ensureStateDir, writeFileAtomic } from './state-dir.js';

export const SESSION_FILE = 'session.json';

const SessionFile = z.strictObject({
  version: z.literal(1),
  account_number: z.string().regex(/^\d{16}$/),
  token: z.string().min(16).max(512),
  device: Device,
});

/** What the engine shows of a session: everything but the token. */
export interface SessionInfo {
  accountNumber: string;
  device: Device;
}

/**
 * One host's sign-in. Absent file: signed out. A damaged file is reported (`session-corrupt`)
 * and left for the user to inspect; `clear()` (sign out) removes it.
 */
export class SessionStore {
  readonly file: string;
  #token: string | null = null;
  #info: SessionInfo | null = null;
  #loaded = false;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(
    readonly stateDir: string = DEFAULT_STATE_DIR,
    private readonly writeFile: typeof writeFileAtomic = writeFileAtomic,
  ) {
    this.file = path.join(stateDir, SESSION_FILE);
  }

  /** The session, or null when signed out. */
  info(): Promise<SessionInfo | null> {
    return this.serially(async () => {
      await this.load();
      return this.#info;
    });
  }

  /** The device token for control-plane calls, or undefined when signed out. */
  token(): Promise<string | undefined> {
    return this.serially(async () => {
      await this.load();
      return this.#token ?? undefined;
    });
  }

  save(accountNumber: string, token: string, device: Device): Promise<void> {
    return this.serially(async () => {
      const file = { version: 1 as const, account_number: accountNumber, token, device };
      await ensureStateDir(this.stateDir);
      try {
        await this.writeFile(this.file, `${JSON.stringify(file, null, 2)}\n`, 0o600);
      } catch (e) {
        throw new FerryError(
          'session-write-failed',
          `cannot save the sign-in in ${this.stateDir} (${errnoCode(e) ?? 'error'})`,
          { cause: e },
        );
      }
      this.#token = token;
      this.#info = { accountNumber, device };
      this.#loaded = true;
    });
  }

  /** Keeps the token, updates the device record (a rename, rotated keys). */
  updateDevice(device: Device): Promise<void> {
    return this.serially(async () => {
      await this.load();
      if (!this.#info || !this.#token || device.id !== this.#info.device.id) return;
      const file = {
        version: 1 as const,
        account_number: this.#info.accountNumber,
        token: this.#token,
        device,
      };
      await this.writeFile(this.file, `${JSON.stringify(file, null, 2)}\n`, 0o600);
      this.#info = { ...this.#info, device };
    });
  }

  /** Forgets the sign-in (the file included). */
  clear(): Promise<void> {
    return this.serially(async () => {
      try {
        await rm(this.file, { force: true });
      } catch (e) {
        throw new FerryError(
          'session-write-failed',
          `cannot remove the sign-in file in ${this.stateDir} (${errnoCode(e) ?? 'error'})`,
          { cause: e },
        );
      }
      this.#token = null;
      this.#info = null;
      this.#loaded = true;
    });
  }

  private async load(): Promise<void> {
    if (this.#loaded) return;
    let text: string;
    try {
      const st = await stat(this.file);
      if ((st.mode & 0o077) !== 0) {
        throw new FerryError(
          'session-insecure',
          `the sign-in file ${this.file} is open to other users: run chmod 600 ${this.file}, ` +
            'and consider its token exposed (netcli logout, then sign in again)',
        );
      }
      text = await readFile(this.file, 'utf8');
    } catch (e) {
      if (e instanceof FerryError) throw e;
      if (errnoCode(e) === 'ENOENT') {
        this.#loaded = true;
        return;
      }
      throw new FerryError(
        'session-unreadable',
        `cannot read the sign-in file ${this.file} (${errnoCode(e) ?? 'error'})`,
        { cause: e },
      );
    }
    let parsed: z.ZodSafeParseResult<z.infer<typeof SessionFile>>;
    try {
      parsed = SessionFile.safeParse(JSON.parse(text));
    } catch {
      parsed = { success: false } as z.ZodSafeParseResult<z.infer<typeof SessionFile>>;
    }
    if (!parsed.success) {
      throw new FerryError(
        'session-corrupt',
        `the sign-in file ${this.file} is damaged and was left as it is; netcli logout ` +
          'removes it (then sign in again)',
      );
    }
    this.#token = parsed.data.token;
    this.#info = { accountNumber: parsed.data.account_number, device: parsed.data.device };
    this.#loaded = true;
  }

  private serially<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(task, task);
    this.#queue = run.catch(() => undefined);
    return run;
  }
}

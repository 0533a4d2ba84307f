// The signed-in device: its control-plane token, device record and account number, kept in
// `<stateDir>/session.json` (0600, the directory 0700). The token is a credential: it stays
// in a private field, out of JSON.stringify, util.inspect and every message.
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { Device } from '../contracts/index.js';
import { errnoCode, FerryError } from './errors.js';
import {
  DEFAULT_STATE_DIR,
  readStateFile,
  writeFileAtomic,
  writeStateFile,
  type StateFileErrors,
} from './state-dir.js';
import { SerialQueue } from './serial-queue.js';

export const SESSION_FILE = 'session.json';

const SessionFile = z.strictObject({
  version: z.literal(1),
  account_number: z.string().regex(/^\d{16}$/),
  token: z.string().min(16).max(512),
  device: Device,
});

const SESSION_FILE_ERRORS: StateFileErrors = {
  unreadable: {
    code: 'session-unreadable',
    message: (file, errno) => `cannot read the sign-in file ${file} (${errno})`,
  },
  corrupt: {
    code: 'session-corrupt',
    message: (file) =>
      `the sign-in file ${file} is damaged and was left as it is; netcli logout ` +
      'removes it (then sign in again)',
  },
  insecure: {
    code: 'session-insecure',
    message: (file) =>
      `the sign-in file ${file} is open to other users: run chmod 600 ${file}, ` +
      'and consider its token exposed (netcli logout, then sign in again)',
  },
  writeFailed: {
    code: 'session-write-failed',
    message: (dir, errno) => `cannot save the sign-in in ${dir} (${errno})`,
  },
};

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
  readonly #serial = new SerialQueue();

  constructor(
    readonly stateDir: string = DEFAULT_STATE_DIR,
    private readonly writeFile: typeof writeFileAtomic = writeFileAtomic,
  ) {
    this.file = path.join(stateDir, SESSION_FILE);
  }

  /** The session, or null when signed out. */
  info(): Promise<SessionInfo | null> {
    return this.#serial.run(async () => {
      await this.load();
      return this.#info;
    });
  }

  /** The device token for control-plane calls, or undefined when signed out. */
  token(): Promise<string | undefined> {
    return this.#serial.run(async () => {
      await this.load();
      return this.#token ?? undefined;
    });
  }

  save(accountNumber: string, token: string, device: Device): Promise<void> {
    return this.#serial.run(async () => {
      await this.write({ version: 1, account_number: accountNumber, token, device });
      this.#token = token;
      this.#info = { accountNumber, device };
      this.#loaded = true;
    });
  }

  /** Keeps the token, updates the device record (a rename, rotated keys). */
  updateDevice(device: Device): Promise<void> {
    return this.#serial.run(async () => {
      await this.load();
      if (!this.#info || !this.#token || device.id !== this.#info.device.id) return;
      await this.write({
        version: 1,
        account_number: this.#info.accountNumber,
        token: this.#token,
        device,
      });
      this.#info = { ...this.#info, device };
    });
  }

  /** Forgets the sign-in (the file included). */
  clear(): Promise<void> {
    return this.#serial.run(async () => {
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
    const file = await readStateFile(this.file, SessionFile, SESSION_FILE_ERRORS);
    if (file) {
      this.#token = file.token;
      this.#info = { accountNumber: file.account_number, device: file.device };
    }
    this.#loaded = true;
  }

  private write(file: z.infer<typeof SessionFile>): Promise<void> {
    return writeStateFile(this.stateDir, this.file, file, SESSION_FILE_ERRORS, this.writeFile);
  }
}

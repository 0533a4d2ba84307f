// Whether the user wants to be connected, kept in the state dir (connection.json) from a connect
// to an explicit disconnect: after a crash the next start reconnects with the same choices
// (the kill switch has held meanwhile: its rules stay in the kernel).
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';

import { errnoCode, FerryError } from '../errors.js';
import { readStateFile, writeStateFile } from '../state-dir.js';

const Intent = z.object({
  /** What the connect asked for beyond the configuration (protocol, region...). */
  overrides: z.record(z.string(), z.string()),
});
export type ConnectionIntent = z.infer<typeof Intent>;

const WHAT = 'connection state';

export class IntentStore {
  readonly #file: string;

  constructor(private readonly stateDir: string) {
    this.#file = path.join(stateDir, 'connection.json');
  }

  /** The intent a run left, null when none (or when the file is damaged: nothing to resume). */
  async read(): Promise<ConnectionIntent | null> {
    return readStateFile(this.#file, Intent, WHAT).catch(() => null);
  }

  save(intent: ConnectionIntent): Promise<void> {
    return writeStateFile(this.stateDir, this.#file, intent, WHAT);
  }

  async clear(): Promise<void> {
    await rm(this.#file, { force: true }).catch((e: unknown) => {
      throw new FerryError(
        'config-write-failed',
        `cannot remove ${this.#file} (${errnoCode(e) ?? 'error'})`,
        { cause: e },
      );
    });
  }
}

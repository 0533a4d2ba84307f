// Kernel settings of this host's network namespace (/proc/sys): the seam, and its Linux
// implementation, which writes the files directly (sysctl(8) does nothing more).
import { readFile, writeFile } from 'node:fs/promises';

import { FerryError } from '../../contracts/engine-errors.js';

/** A setting's dotted name, e.g. `net.ipv4.conf.all.src_valid_mark`. */
const KEY = /^[a-z0-9_]+(\.[a-z0-9_-]+)+$/;

export interface Sysctl {
  /** The setting's value, trimmed; FerryError os-command-failed when it cannot be read. */
  get(key: string): Promise<string>;
  set(key: string, value: string): Promise<void>;
}

function file(key: string): string {
  if (!KEY.test(key)) throw new TypeError(`not a sysctl name: ${key}`);
  return `/proc/sys/${key.replaceAll('.', '/')}`;
}

export class LinuxSysctl implements Sysctl {
  async get(key: string): Promise<string> {
    try {
      return (await readFile(file(key), 'utf8')).trim();
    } catch (e) {
      throw new FerryError('os-command-failed', `could not read the kernel setting ${key}`, {
        cause: e,
      });
    }
  }

  async set(key: string, value: string): Promise<void> {
    try {
      await writeFile(file(key), `${value}\n`);
    } catch (e) {
      throw new FerryError('os-command-failed', `could not change the kernel setting ${key}`, {
        cause: e,
      });
    }
  }
}

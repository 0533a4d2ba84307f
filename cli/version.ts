// netcli's version: the package's, from the nearest package.json up from this module (the
// repository's in development and under dist/, the app's in a package). Read only when asked
// (netcli --version), so that no other command pays for it.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CliError } from './errors.js';

export function netcliVersion(from: string = import.meta.url): string {
  let dir = path.dirname(fileURLToPath(from));
  for (;;) {
    const file = path.join(dir, 'package.json');
    let text: string | null = null;
    try {
      text = readFileSync(file, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
    if (text !== null) {
      const version: unknown = (JSON.parse(text) as { version?: unknown }).version;
      if (typeof version === 'string' && version !== '') return version;
      throw CliError.say((t) => ({ message: t('output.errors.noVersion', { file }), hints: [] }));
    }
    const up = path.dirname(dir);
    if (up === dir)
      throw CliError.say((t) => ({ message: t('output.errors.noPackage'), hints: [] }));
    dir = up;
  }
}

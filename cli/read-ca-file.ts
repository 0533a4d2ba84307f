// Reads a CA file named on the command line (netcli init --ca-file, config set service_ca) as
// the user who typed it: the engine, which runs as root, never opens a path a user names.
import { readFileSync } from 'node:fs';
import { certificateBlocks } from '../contracts/index.js';
import { CliError, EXIT_USAGE } from './errors.js';

/** The most a CA bundle of a private service can reasonably hold (the engine refuses more). */
const MAX_BYTES = 64 * 1024;

export function readCaFile(file: string): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw CliError.say(
      (t) => ({
        message: t('output.errors.cannotRead', { file, code: code ?? t('output.errors.io') }),
        hints: [],
      }),
      EXIT_USAGE,
    );
  }
  if (Buffer.byteLength(text) > MAX_BYTES)
    throw CliError.say(
      (t) => ({ message: t('output.errors.caTooLarge', { file }), hints: [] }),
      EXIT_USAGE,
    );
  // Only the certificates: a bundle may carry comments, and a key must never travel.
  const blocks = certificateBlocks(text);
  if (blocks.length === 0)
    throw CliError.say(
      (t) => ({ message: t('output.errors.noCertificate', { file }), hints: [] }),
      EXIT_USAGE,
    );
  return `${blocks.join('\n')}\n`;
}

// Command-line options that name a file (ferry-server's and ferry-relay's, with commander): read
// at start, so that a file that cannot be read, or is not what the option takes, stops the start
// naming why (commander prints "option '--x <file>' argument '...' is invalid. <why>").
import { readFileSync } from 'node:fs';

import { InvalidArgumentError } from 'commander';

import {
  platformsFileProblem,
  readPlatformsFile,
  type PlatformTable,
} from '../../contracts/index.js';

/** The file's text; one that cannot be read is refused with its error code. */
export function optionFileText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    throw new InvalidArgumentError(
      `cannot read it (${(e as NodeJS.ErrnoException).code ?? 'I/O error'})`,
    );
  }
}

/** --platforms-file: the shipped platform table with the file's entries added or replacing. */
export function platformsFileOption(file: string): PlatformTable {
  const read = readPlatformsFile(optionFileText(file));
  if (!read.ok) throw new InvalidArgumentError(platformsFileProblem(read));
  return read.table;
}

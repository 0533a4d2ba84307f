// Builds the censor's NFQUEUE shim (nfq-shim.c) with gcc against Debian's libnetfilter-queue, once
// per source version, into a directory of the machine's temp dir (never into the repository).
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { sh } from '../test-network.js';

/** The shim's path, built if needed (`source`: nfq-shim.c in the checkout). */
export function buildShim(source: string): string {
  const code = readFileSync(source);
  const hash = createHash('sha256').update(code).digest('hex').slice(0, 16);
  const dir = path.join(tmpdir(), `ferry-censor-shim-${hash}`);
  const binary = path.join(dir, 'nfq-shim');
  if (existsSync(binary)) return binary;
  mkdirSync(dir, { recursive: true });
  // Built beside its final name and renamed: parallel test files may build it at once.
  const partial = `${binary}.${process.pid}`;
  sh('gcc', ['-O2', '-Wall', '-o', partial, source, '-lnetfilter_queue']);
  renameSync(partial, binary);
  return binary;
}

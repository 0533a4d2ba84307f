// Runs the system tools the engine changes the OS with (ip, nft): argv arrays, never a shell,
// and failures turned into FerryErrors that name no address.
import { execFile } from 'node:child_process';

import { FerryError } from '../../contracts/engine-errors.js';

export interface CommandOutput {
  /** null when the tool was killed (timeout). */
  exitCode: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `tool` with `args` and resolves with what it printed and how it exited, whatever the
 * exit code; rejects only when the tool cannot be started (FerryError os-command-failed).
 * The seam of the real OS implementations: tests record the argv, the namespace tests run it
 * inside a namespace.
 */
export type CommandRunner = (tool: string, args: readonly string[]) => Promise<CommandOutput>;

const TIMEOUT_MS = 30_000;

export const runCommand: CommandRunner = (tool, args) =>
  new Promise((resolve, reject) => {
    execFile(
      tool,
      args,
      { timeout: TIMEOUT_MS, maxBuffer: 64 << 20, encoding: 'utf8' },
      (error, stdout, stderr) => {
        const code = (error as { code?: unknown } | null)?.code;
        if (typeof code === 'string') {
          // The tool could not be started (ENOENT: not installed).
          reject(
            new FerryError(
              'os-command-failed',
              code === 'ENOENT'
                ? `${tool} is not installed (Debian: the ${tool === 'nft' ? 'nftables' : 'iproute2'} package)`
                : `cannot run ${tool} (${code})`,
              { cause: new Error(`${tool}: ${code}`) },
            ),
          );
          return;
        }
        resolve({
          exitCode: error ? (typeof code === 'number' ? code : null) : 0,
          stdout,
          stderr,
        });
      },
    );
  });

const IPV4 = /\b(?:\d{1,3}\.){3}\d{1,3}(?:\/\d{1,2})?\b/g;
// Groups of hex digits joined by at least two colons, or starting with `::`, not inside a word
// (nft's `internal:0:0-0` is a position, not an address).
const IPV6 =
  /(?<![\w:.])(?:[0-9A-Fa-f]{1,4}(?::[0-9A-Fa-f]{0,4}){2,7}|::(?:[0-9A-Fa-f]{1,4}(?::[0-9A-Fa-f]{1,4}){0,6})?)(?:\/\d{1,3})?(?![\w:])/g;

/** Replaces everything that looks like an IP address (or prefix) with `<address>`. */
export function redactAddresses(text: string): string {
  return text.replace(IPV4, '<address>').replace(IPV6, '<address>');
}

/**
 * Throws FerryError os-command-failed unless `out` is a success. The message says what failed
 * and the tool's first line of complaint, with addresses redacted (nft quotes its input); the
 * cause names the tool and its exit, never its arguments.
 */
export function checkOutput(out: CommandOutput, tool: string, what: string): void {
  if (out.exitCode === 0) return;
  const complaint = redactAddresses(
    out.stderr
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l !== '') ?? '',
  );
  const exit = out.exitCode === null ? 'was stopped (timeout)' : `exited with ${out.exitCode}`;
  throw new FerryError(
    'os-command-failed',
    `could not ${what}: ${tool} ${exit}${complaint ? `: ${complaint}` : ''}`,
    { cause: new Error(`${tool} ${exit}`) },
  );
}

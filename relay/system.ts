// Runs system tools (ip, nft, sysctl) with argv arrays, never through a shell.
import { execFile } from 'node:child_process';

export interface RunResult {
  ok: boolean;
  stdout: string;
  stderr: string;
}

export function run(
  cmd: string,
  args: readonly string[],
  opts: { input?: string; allowFailure?: boolean; timeoutMs?: number } = {},
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      cmd,
      args,
      { timeout: opts.timeoutMs ?? 30_000, maxBuffer: 64 << 20 },
      (error, stdout, stderr) => {
        if (error && !opts.allowFailure) {
          reject(new Error(`${cmd} ${args.join(' ')}: ${String(stderr).trim() || error.message}`));
        } else {
          resolve({ ok: !error, stdout: String(stdout), stderr: String(stderr) });
        }
      },
    );
    if (opts.input !== undefined) child.stdin?.end(opts.input);
  });
}

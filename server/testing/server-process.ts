// Test harness: runs the built `ferry-server` as a real process and captures all its output.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ADMIN_TOKEN } from './control-plane-harness.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const SERVER_BIN = path.join(ROOT, 'bin/ferry-server');

export interface ServerProcess {
  child: ChildProcess;
  baseUrl: string;
  output(): string;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

export async function startServerProcess(
  args: string[],
  env: Record<string, string> = {},
): Promise<ServerProcess> {
  if (!existsSync(path.join(ROOT, 'dist/server/main.js'))) {
    throw new Error('dist/server/main.js is missing: run `npm run build` (the test command does)');
  }
  const child = spawn(
    process.execPath,
    [SERVER_BIN, '--host', '127.0.0.1', '--port', '0', ...args],
    {
      env: { ...process.env, FERRY_ADMIN_TOKEN: ADMIN_TOKEN, FERRY_LOG_LEVEL: 'debug', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => resolve(code)),
  );
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${out}`)), 15_000);
    const check = () => {
      const m = /"listening":"(https?:\/\/[^"]+)"/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stdout!.on('data', check);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`server exited early:\n${out}`));
    });
  });
  return {
    child,
    baseUrl,
    output: () => out,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

// netcli's CliIo from the real process: its streams and environment, signals, a password
// prompt that does not echo, and `netcli daemon` started detached with its output in a log.
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { constants as osConstants } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { DEFAULT_STATE_DIR } from '../engine/state-dir.js';
import { CliError, EXIT_INTERRUPTED } from './errors.js';
import type { CliIo } from './io.js';
import { launchDesktopApp, openInBrowser } from './launch.js';

export const DAEMON_LOG_DIR = '/var/log/ferry';

/** The netcli being run (bin/netcli), to start its daemon with. */
function netcliPath(): string {
  const script = process.argv[1];
  if (script && path.basename(script) === 'netcli') return script;
  // dist/cli/process-io.js -> bin/netcli
  return fileURLToPath(new URL('../../bin/netcli', import.meta.url));
}

/** The daemon's log: /var/log/ferry, else the state directory. Only codes, never addresses. */
function openDaemonLog(): number {
  for (const [dir, mode] of [
    [DAEMON_LOG_DIR, 0o750],
    [DEFAULT_STATE_DIR, 0o700],
  ] as const) {
    try {
      mkdirSync(dir, { recursive: true, mode });
      return openSync(path.join(dir, 'daemon.log'), 'a', 0o640);
    } catch {
      // the next place
    }
  }
  throw CliError.say((t) => ({
    message: t('output.errors.noDaemonLog'),
    hints: [t('output.errors.startYourself')],
  }));
}

async function readLine(): Promise<string> {
  const rl = createInterface({ input: process.stdin, terminal: false });
  try {
    for await (const line of rl) return line;
    return '';
  } finally {
    rl.close();
  }
}

function readHidden(prompt: string): Promise<string> {
  const stdin = process.stdin;
  process.stderr.write(prompt);
  stdin.setRawMode(true);
  stdin.setEncoding('utf8');
  stdin.resume();
  return new Promise((resolve, reject) => {
    let value = '';
    const finish = () => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write('\n');
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n') {
          finish();
          resolve(value);
          return;
        }
        if (ch === '\u0003') {
          finish();
          reject(
            CliError.say(
              (t) => ({ message: t('output.errors.cancelled'), hints: [] }),
              EXIT_INTERRUPTED,
            ),
          );
          return;
        }
        value = ch === '\u007f' || ch === '\b' ? value.slice(0, -1) : value + ch;
      }
    };
    stdin.on('data', onData);
  });
}

/** CliIo.runProgram: the child gets the terminal; the signals that would end netcli go to it. */
function runProgram(command: string, args: readonly string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, [...args], { stdio: 'inherit' });
    const forward = (signal: NodeJS.Signals) => () => child.kill(signal);
    const handlers = (['SIGINT', 'SIGTERM', 'SIGHUP'] as const).map(
      (signal) => [signal, forward(signal)] as const,
    );
    for (const [signal, handler] of handlers) process.on(signal, handler);
    const done = () => {
      for (const [signal, handler] of handlers) process.off(signal, handler);
    };
    child.once('error', (e) => {
      done();
      reject(e);
    });
    child.once('exit', (code, signal) => {
      done();
      resolve(code ?? 128 + (signal ? (osConstants.signals[signal] ?? 0) : 0));
    });
  });
}

export function processIo(): CliIo {
  return {
    stdout: { write: (s) => void process.stdout.write(s), isTTY: process.stdout.isTTY === true },
    stderr: { write: (s) => void process.stderr.write(s), isTTY: process.stderr.isTTY === true },
    env: process.env,
    isRoot: process.getuid?.() === 0,
    interrupts() {
      const controller = new AbortController();
      const stop = () => controller.abort();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      return controller.signal;
    },
    readSecret: (prompt) => (process.stdin.isTTY ? readHidden(prompt) : readLine()),
    pid: process.pid,
    runProgram,
    launchDesktopApp: () => launchDesktopApp(process.env),
    openInBrowser: (url, language) => openInBrowser(url, process.env, language ? { language } : {}),
    async startDaemon(socketPath) {
      const log = openDaemonLog();
      try {
        const child = spawn(process.execPath, [netcliPath(), 'daemon', '--socket', socketPath], {
          detached: true,
          stdio: ['ignore', log, log],
        });
        child.unref();
      } finally {
        closeSync(log);
      }
    },
  };
}

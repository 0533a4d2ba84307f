// Debian's userspace WireGuard as the engine and the relay run it: the seam (starting
// `wireguard-go -f`, talking to its UAPI socket, finding what a crashed program left: sockets,
// processes) and its Linux implementation; unit tests use wireguard-go.fake.ts.
import { spawn } from 'node:child_process';
import { readdir, readFile, readlink, unlink } from 'node:fs/promises';
import path from 'node:path';

import { FerryError } from '../../contracts/engine-errors.js';
import { redactAddresses } from './command.js';
import { errnoCode } from './errno.js';
import { uapiExchange, type UapiTransport } from './uapi.js';

/** Where wireguard-go keeps its UAPI sockets (one /run for every network namespace). */
export const UAPI_DIR = '/run/wireguard';

export interface WireguardProcess {
  /** Resolves with the exit code (null: killed by a signal) once the process has ended. */
  readonly exited: Promise<number | null>;
  hasExited(): boolean;
  /** The end of what it printed, addresses redacted: for error messages. */
  output(): string;
  /** SIGTERM, SIGKILL after a grace period; resolves once it has ended. Idempotent. */
  stop(): Promise<void>;
}

export interface WireguardProcessInfo {
  pid: number;
  interfaceName: string;
}

export interface WireguardSystem extends UapiTransport {
  /** Starts `wireguard-go -f <name>`: it makes the TUN link and the UAPI socket, then serves it. */
  start(interfaceName: string): WireguardProcess;
  /**
   * One UAPI request/answer on the interface's socket. Rejects with a UapiError whose errno is
   * the socket's code (ENOENT: no socket yet; ECONNREFUSED: nobody serves it) or UAPI's.
   */
  exchange(interfaceName: string, request: string, timeoutMs: number): Promise<string>;
  /** Interface names that have a socket file in the UAPI directory. */
  sockets(): Promise<string[]>;
  /** Removes a socket file; gone already is fine. */
  removeSocket(interfaceName: string): Promise<void>;
  /** The wireguard-go processes of this network namespace and the interface each serves. */
  processes(): Promise<WireguardProcessInfo[]>;
  /** Ends a process by pid (SIGTERM, then SIGKILL); gone already is fine. */
  kill(pid: number): Promise<void>;
}

const STOP_GRACE_MS = 3_000;
const OUTPUT_TAIL = 2_000;

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Whether a process still runs (a zombie that nobody reaps has ended for our purpose). */
async function running(procDir: string, pid: number): Promise<boolean> {
  try {
    const stat = await readFile(path.join(procDir, String(pid), 'stat'), 'utf8');
    return !/^\S+ \(.*\) [ZX]/s.test(stat);
  } catch {
    return false;
  }
}

export interface LinuxWireguardOptions {
  /** The wireguard-go binary (default: from PATH). */
  command?: string;
  /**
   * The argv it is started under, e.g. `ip netns exec <ns>` (the namespace tests): the process
   * becomes wireguard-go by exec, so stopping it still stops wireguard-go.
   */
  under?: readonly string[];
  uapiDir?: string;
  procDir?: string;
}

/** wireguard-go from Debian's package, its sockets under /run/wireguard, processes from /proc. */
export function linuxWireguardSystem(opts: LinuxWireguardOptions = {}): WireguardSystem {
  const command = opts.command ?? 'wireguard-go';
  const uapiDir = opts.uapiDir ?? UAPI_DIR;
  const procDir = opts.procDir ?? '/proc';
  const socketPath = (name: string) => path.join(uapiDir, `${name}.sock`);

  return {
    start(interfaceName) {
      const [file, ...args] = [...(opts.under ?? []), command, '-f', interfaceName];
      const child = spawn(file!, args, {
        stdio: ['ignore', 'pipe', 'pipe'],
        // Errors only: wireguard-go's info lines name endpoints.
        env: { ...process.env, LOG_LEVEL: 'error' },
      });
      let out = '';
      const keep = (d: Buffer) => (out = (out + d.toString()).slice(-OUTPUT_TAIL));
      child.stdout.on('data', keep);
      child.stderr.on('data', keep);
      let ended = false;
      const exited = new Promise<number | null>((resolve) => {
        child.once('error', (e) => {
          keep(
            Buffer.from(
              errnoCode(e) === 'ENOENT'
                ? `${command} is not installed (Debian: the wireguard-go package)`
                : `cannot run ${command} (${errnoCode(e) ?? 'error'})`,
            ),
          );
          ended = true;
          resolve(null);
        });
        child.once('close', (code) => {
          ended = true;
          resolve(code);
        });
      });
      return {
        exited,
        hasExited: () => ended,
        output: () => redactAddresses(out.trim()),
        async stop() {
          if (ended) return;
          child.kill('SIGTERM');
          const killer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
          await exited;
          clearTimeout(killer);
        },
      };
    },

    exchange: (interfaceName, request, timeoutMs) =>
      uapiExchange(socketPath(interfaceName), request, timeoutMs),

    async sockets() {
      let entries: string[];
      try {
        entries = await readdir(uapiDir);
      } catch (e) {
        if (errnoCode(e) === 'ENOENT') return [];
        throw new FerryError(
          'tunnel-failed',
          `cannot list ${uapiDir} (${errnoCode(e) ?? 'error'})`,
          {
            cause: e,
          },
        );
      }
      return entries.filter((f) => f.endsWith('.sock')).map((f) => f.slice(0, -'.sock'.length));
    },

    async removeSocket(interfaceName) {
      try {
        await unlink(socketPath(interfaceName));
      } catch (e) {
        if (errnoCode(e) !== 'ENOENT') throw e;
      }
    },

    async processes() {
      const ours = await readlink(path.join(procDir, 'self/ns/net'));
      const found: WireguardProcessInfo[] = [];
      for (const entry of await readdir(procDir)) {
        if (!/^\d+$/.test(entry)) continue;
        try {
          const argv = (await readFile(path.join(procDir, entry, 'cmdline'), 'utf8'))
            .split('\0')
            .filter((a) => a !== '');
          if (path.basename(argv[0] ?? '') !== 'wireguard-go') continue;
          const name = argv[argv.length - 1];
          if (name === undefined || argv.length < 2) continue;
          if ((await readlink(path.join(procDir, entry, 'ns/net'))) !== ours) continue;
          found.push({ pid: Number(entry), interfaceName: name });
        } catch {
          // The process ended while we looked, or is not ours to read.
        }
      }
      return found;
    },

    async kill(pid) {
      try {
        process.kill(pid, 'SIGTERM');
      } catch (e) {
        if (errnoCode(e) === 'ESRCH') return;
        throw e;
      }
      const deadline = Date.now() + STOP_GRACE_MS;
      while ((await running(procDir, pid)) && Date.now() < deadline) await sleep(50);
      if (await running(procDir, pid)) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // Ended meanwhile.
        }
      }
    },
  };
}

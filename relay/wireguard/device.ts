// Brings up one WireGuard interface with Debian's userspace wireguard-go (our kernels have no
// WireGuard module) and configures it over its UAPI socket, never through files.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { run } from '../system.js';
import { UapiClient } from './uapi.js';

export const UAPI_DIR = '/var/run/wireguard';

export interface WireGuardInterface {
  name: string;
  uapi: UapiClient;
  /** Stops wireguard-go, which removes the interface and its socket. */
  close(): Promise<void>;
}

export async function startWireGuard(opts: {
  name: string;
  privateKey: string;
  listenPort: number;
  /** Addresses of the interface itself (CIDR). */
  addresses: string[];
  /** Further routes to the interface (CIDR). */
  routes: string[];
  mtu: number;
  onExit: (code: number | null) => void;
}): Promise<WireGuardInterface> {
  if (!/^[A-Za-z0-9_.-]{1,15}$/.test(opts.name))
    throw new Error(`bad interface name: ${opts.name}`);
  const socketPath = `${UAPI_DIR}/${opts.name}.sock`;
  if (existsSync(socketPath)) {
    throw new Error(
      `${socketPath} exists: another WireGuard interface named ${opts.name} is running on this machine`,
    );
  }
  const child: ChildProcess = spawn('wireguard-go', ['-f', opts.name], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, LOG_LEVEL: 'error' },
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2000)));
  let exited = false;
  const exit = new Promise<void>((resolve) =>
    child.once('exit', (code) => {
      exited = true;
      opts.onExit(code);
      resolve();
    }),
  );
  child.once('error', () => {});

  const close = async () => {
    if (!exited) {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 3000);
      await exit;
      clearTimeout(killer);
    }
    // wireguard-go removes its TUN device on exit; make sure of it after a SIGKILL too.
    await run('ip', ['link', 'del', opts.name], { allowFailure: true });
  };

  try {
    const deadline = Date.now() + 10_000;
    while (!existsSync(socketPath)) {
      if (exited) throw new Error(`wireguard-go exited: ${stderr.trim() || 'no output'}`);
      if (Date.now() > deadline) throw new Error(`wireguard-go did not open ${socketPath}`);
      await new Promise((r) => setTimeout(r, 25));
    }
    const uapi = new UapiClient(socketPath);
    await uapi.set({
      privateKey: opts.privateKey,
      listenPort: opts.listenPort,
      replacePeers: true,
    });
    for (const address of opts.addresses)
      await run('ip', ['address', 'add', address, 'dev', opts.name]);
    await run('ip', ['link', 'set', opts.name, 'mtu', String(opts.mtu), 'up']);
    for (const route of opts.routes) await run('ip', ['route', 'add', route, 'dev', opts.name]);
    return { name: opts.name, uapi, close };
  } catch (e) {
    await close();
    throw e;
  }
}

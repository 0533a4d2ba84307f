// The engine's tunnel manager as a process of its own, for e2e/netns/engine-tunnel.test.ts to run
// inside a client's network namespace (the native data plane makes its TUN and sockets in the
// namespace of the process that calls it). Real parts only: Linux links and routes, the native
// data plane, wireguard-go. Tells what happens as JSON lines on stdout.
//
//   engine-tunnel-driver up <options.json>   up(plan), then events until SIGTERM (close, exit 0)
//   engine-tunnel-driver cleanup             cleanupLeftovers()
import { readFileSync } from 'node:fs';

import { FerryError } from '../../engine/errors.js';
import { LinuxLinks } from '../../platform/os/links.js';
import { LinuxRoutes } from '../../platform/os/routes.js';
import { createTunnelManager, type TunnelTiming } from '../../engine/tunnel/manager.js';
import type { ActiveTunnel, TunnelPlan } from '../../engine/tunnel/tunnel.js';
import { nativeDataPlane } from '../../native/index.js';

export interface DriverOptions {
  plan: TunnelPlan;
  timing?: Partial<TunnelTiming>;
}

export type DriverLine =
  | { event: 'up'; latencyMs: number; elapsedMs: number }
  | { event: 'error'; code: string; message: string; elapsedMs: number }
  | { event: 'tunnel'; type: string; ms?: number; reason?: string }
  | { event: 'closed' }
  | { event: 'cleaned' };

/** Resolves once the line is out: stdout to a pipe is asynchronous, and exit() would cut it. */
const say = (line: DriverLine) =>
  new Promise<void>((resolve) =>
    process.stdout.write(`${JSON.stringify(line)}\n`, () => resolve()),
  );

function describe(e: unknown): { code: string; message: string } {
  if (e instanceof FerryError) return { code: e.code, message: e.message };
  return { code: 'bug', message: e instanceof Error ? `${e.name}: ${e.message}` : String(e) };
}

async function main(): Promise<number> {
  const [command, file] = process.argv.slice(2);
  const options: DriverOptions | undefined = file
    ? (JSON.parse(readFileSync(file, 'utf8')) as DriverOptions)
    : undefined;
  const manager = createTunnelManager({
    os: { links: new LinuxLinks(), routes: new LinuxRoutes() },
    dataPlane: nativeDataPlane,
    ...(options?.timing ? { timing: options.timing } : {}),
  });

  if (command === 'cleanup') {
    await manager.cleanupLeftovers();
    await say({ event: 'cleaned' });
    return 0;
  }
  if (command !== 'up' || !options) throw new Error('usage: up <options.json> | cleanup');

  const started = Date.now();
  let tunnel: ActiveTunnel;
  try {
    tunnel = await manager.up(options.plan);
  } catch (e) {
    await say({ event: 'error', ...describe(e), elapsedMs: Date.now() - started });
    return 1;
  }
  await say({ event: 'up', latencyMs: tunnel.latencyMs(), elapsedMs: Date.now() - started });
  tunnel.on((e) => void say({ event: 'tunnel', ...e }));
  await new Promise<void>((resolve) => {
    process.once('SIGTERM', resolve);
    process.once('SIGINT', resolve);
    // The data plane's threads and timers are unref'd: this keeps the process until told.
    setInterval(() => {}, 60_000);
  });
  await tunnel.close();
  await say({ event: 'closed' });
  return 0;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`engine-tunnel-driver: ${describe(e).message}\n`);
    process.exit(2);
  },
);

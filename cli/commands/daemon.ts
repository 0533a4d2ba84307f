// netcli daemon: the engine host. Builds the engine (engine/engine.ts createEngine), serves the
// local API on the socket until SIGTERM or Ctrl-C, then disconnects cleanly and goes.
import { fileURLToPath } from 'node:url';
import { InvalidArgumentError, type Command } from 'commander';
import { ServiceKey } from '../../contracts/index.js';
import { DEFAULT_STATE_DIR } from '../../engine/state-dir.js';
import { CliError } from '../errors.js';
import type { CreateEngine } from '../io.js';
import { withCommon, type CommonOptions, type Runtime } from '../runtime.js';

/** The desktop app's renderer as the build leaves it (dist/cli/commands -> dist/renderer). */
const RENDERER_DIR = fileURLToPath(new URL('../../renderer/', import.meta.url));

interface DaemonOptions extends CommonOptions {
  stateDir: string;
  geoipFile?: string;
  platformsFile?: string;
  udpRetryAfter?: number;
  relayList?: string;
  serviceKey?: string;
}

/** --udp-retry-after: whole seconds, 1 s to a day. */
function seconds(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > 86_400)
    throw new InvalidArgumentError('whole seconds, 1-86400');
  return n;
}

/** --service-key: base64 of 32 bytes (the engine checks it again). */
function serviceKey(value: string): string {
  const key = ServiceKey.safeParse(value);
  if (!key.success) throw new InvalidArgumentError(key.error.issues[0]!.message);
  return key.data;
}

/** What netcli expects engine/create-engine.ts to export (checked by the compiler once it does). */
interface EngineModule {
  createEngine?: CreateEngine;
  [name: string]: unknown;
}

async function loadCreateEngine(): Promise<CreateEngine> {
  const mod: EngineModule = await import('../../engine/create-engine.js');
  if (typeof mod.createEngine !== 'function') {
    throw new CliError(
      'this build of netcli has no engine (engine/create-engine.js exports no createEngine)',
    );
  }
  return mod.createEngine;
}

export function registerDaemon(program: Command, rt: Runtime): void {
  withCommon(program.command('daemon'))
    .description('run the engine host in the foreground until SIGTERM (needs root)')
    .option('--state-dir <dir>', 'configuration, keys and sign-in', DEFAULT_STATE_DIR)
    .option(
      '--geoip-file <file>',
      'lines `cidr,country` that take precedence over the shipped data',
    )
    .option(
      '--platforms-file <file>',
      'streaming platforms (the shipped table’s JSON shape) that add to or replace its entries',
    )
    .option(
      '--udp-retry-after <seconds>',
      'obfuscation auto: how long a tunnel on TCP or TLS because UDP failed waits before it tries UDP again, while idle (then 2, 4 and 6 times as long; default 600)',
      seconds,
    )
    .option(
      '--relay-list <file>',
      'a relay list (a body of the service’s GET /relay-list saved as it came) in place of the shipped one',
    )
    .option(
      '--service-key <base64>',
      'the service’s public key, which its relay lists are checked with, in place of the shipped one',
      serviceKey,
    )
    .action(async (opts: DaemonOptions) => {
      const socket = rt.socketFor(opts);
      // The host's modules (fastify, pino, the engine) load here only: every other command
      // starts without them.
      const [{ pino }, { startLocalApiServer }, { createWebUi }] = await Promise.all([
        import('pino'),
        import('../../engine/host/local-api-server.js'),
        import('../../engine/host/web-ui/web-ui-server.js'),
      ]);
      // JSON lines on stderr; never an address, a token or an account number.
      const log = pino(
        { base: { component: 'netcli-daemon' }, level: rt.io.env.FERRY_LOG_LEVEL ?? 'info' },
        { write: (line: string) => rt.io.stderr.write(line) },
      );
      // From the start: a SIGTERM while the engine starts still ends in a clean shutdown.
      const stop = rt.io.interrupts();
      const createEngine = rt.io.createEngine ?? (await loadCreateEngine());
      const engine = await createEngine({
        stateDir: opts.stateDir,
        geoipFile: opts.geoipFile,
        platformsFile: opts.platformsFile,
        ...(opts.udpRetryAfter !== undefined ? { udpRetryAfterSeconds: opts.udpRetryAfter } : {}),
        ...(opts.relayList !== undefined ? { relayListFile: opts.relayList } : {}),
        ...(opts.serviceKey !== undefined ? { serviceKey: opts.serviceKey } : {}),
      });
      // The web graphical mode (netcli gui): served on 127.0.0.1 from the first link asked for.
      const gui = createWebUi({ engine, rendererDir: RENDERER_DIR, log });
      let server;
      try {
        server = await startLocalApiServer({ engine, socketPath: socket.path, log, gui });
      } catch (e) {
        await engine.shutdown();
        throw e;
      }
      log.info({ socket: socket.path, group: server.group }, 'engine host listening');
      if (!stop.aborted)
        await new Promise((r) => stop.addEventListener('abort', r, { once: true }));
      log.info('shutting down');
      try {
        await engine.shutdown();
      } finally {
        await gui.close();
        await server.close();
      }
      log.info('stopped');
    });
}

// netcli daemon: the engine host. Builds the engine (engine/engine.ts createEngine), serves the
// local API on the socket until SIGTERM or Ctrl-C, then disconnects cleanly and goes.
import { fileURLToPath } from 'node:url';
import { InvalidArgumentError, type Command } from 'commander';
import { ServiceKey, type Translate } from '../../contracts/index.js';
import { DEFAULT_STATE_DIR } from '../../engine/state-dir.js';
import { CliError } from '../errors.js';
import type { CreateEngine } from '../io.js';
import { flags, withCommon, type CommonOptions, type Runtime } from '../runtime.js';

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
function seconds(t: Translate) {
  return (value: string): number => {
    const n = Number(value);
    if (!/^\d+$/.test(value) || n < 1 || n > 86_400)
      throw new InvalidArgumentError(t('netcli.daemon.secondsInvalid'));
    return n;
  };
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

async function loadCreateEngine(t: Translate): Promise<CreateEngine> {
  const mod: EngineModule = await import('../../engine/create-engine.js');
  if (typeof mod.createEngine !== 'function') {
    throw new CliError(t('netcli.daemon.noEngine'));
  }
  return mod.createEngine;
}

export function registerDaemon(program: Command, rt: Runtime): void {
  const { t } = rt;
  withCommon(program.command('daemon'))
    .description(t('netcli.daemon.description'))
    .option(flags('--state-dir', '<dir>'), t('netcli.daemon.stateDir'), DEFAULT_STATE_DIR)
    .option(flags('--geoip-file', '<file>'), t('netcli.daemon.geoipFile'))
    .option(flags('--platforms-file', '<file>'), t('netcli.daemon.platformsFile'))
    .option(flags('--udp-retry-after', '<seconds>'), t('netcli.daemon.udpRetryAfter'), seconds(t))
    .option(flags('--relay-list', '<file>'), t('netcli.daemon.relayList'))
    .option(flags('--service-key', '<base64>'), t('netcli.daemon.serviceKey'), serviceKey)
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
      const createEngine = rt.io.createEngine ?? (await loadCreateEngine(t));
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
      // eslint-disable-next-line i18next/no-literal-string -- an event of the operator's JSON log
      log.info({ socket: socket.path, group: server.group }, 'engine host listening');
      if (!stop.aborted)
        await new Promise((r) => stop.addEventListener('abort', r, { once: true }));
      // eslint-disable-next-line i18next/no-literal-string -- an event of the operator's JSON log
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

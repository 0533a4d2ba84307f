// netcli: the command-line face of the Ferry engine. Every command is a call to the engine
// host's local API (or, for `daemon`, the host itself); this builds the commands, takes the
// options every command takes before the command as after it, and turns failures into
// `netcli: <detail>` / `hint:` lines and exit codes.
import { Command, CommanderError } from 'commander';
import { translator } from '../contracts/index.js';
import { registerAccount } from './commands/account.js';
import { registerConfig } from './commands/config.js';
import { registerConnection } from './commands/connection.js';
import { registerDaemon } from './commands/daemon.js';
import { registerDevices } from './commands/devices.js';
import { registerDiagnose } from './commands/diagnose.js';
import { registerGui } from './commands/gui.js';
import { registerInit } from './commands/init.js';
import { registerLatency } from './commands/latency.js';
import { registerRegion } from './commands/region.js';
import { registerSplit } from './commands/split.js';
import { registerService } from './commands/service.js';
import { registerStatus } from './commands/status.js';
import { registerTunnel } from './commands/tunnel.js';
import { registerTui } from './commands/tui.js';
import { registerUi } from './commands/ui.js';
import { registerStreamTest } from './commands/stream-test.js';
import { registerApiAccess } from './commands/api-access.js';
import { EXIT_OK, EXIT_USAGE, describeFailure, failureText } from './errors.js';
import type { CliIo } from './io.js';
import { processIo } from './process-io.js';
import { resolveNetcliLanguage } from './language.js';
import { Runtime, commonOptionWords, withCommon, type CommonOptions } from './runtime.js';
import { localizeCommander, translateUsageError } from './help-words.js';
import { plainLine } from './terminal-text.js';
import { netcliVersion } from './version.js';

/** The options every command takes (runtime.ts withCommon), by their keys in the options. */
const COMMON_OPTIONS = ['json', 'socket'] as const satisfies readonly (keyof CommonOptions)[];

/**
 * Takes the options every command takes before the command too, as tailscale, docker and
 * kubectl do (`netcli --json status`): the program holds them (only those before the command:
 * positional options), and the command that runs gets them unless it was given its own after
 * it, which win.
 */
function acceptCommonOptionsFirst(program: Command, rt: Runtime): void {
  program.enablePositionalOptions();
  withCommon(program, rt.t);
  program.hook('preAction', (_program, command) => {
    for (const key of COMMON_OPTIONS) {
      const before: unknown = program.getOptionValue(key);
      if (before === undefined || command.getOptionValueSource(key) === 'cli') continue;
      command.setOptionValueWithSource(key, before, 'cli');
    }
  });
}

/** --json and --socket of every command, described in netcli's language. */
function describeCommonOptions(command: Command, rt: Runtime): void {
  const words = commonOptionWords(rt.t);
  const english = commonOptionWords(translator('en'));
  for (const option of command.options) {
    if (option.long === '--json' && option.description === english.json)
      option.description = words.json;
    if (option.long === '--socket' && option.description === english.socket)
      option.description = words.socket;
  }
  for (const sub of command.commands) describeCommonOptions(sub, rt);
}

/** netcli --version (-V): the package's version, read only then. */
function addVersion(program: Command, rt: Runtime): void {
  // eslint-disable-next-line i18next/no-literal-string -- commander's flags, not words
  program.option('-V, --version', rt.t('netcli.help.version'));
  program.on('option:version', () => {
    const version = netcliVersion();
    rt.io.stdout.write(`${version}\n`);
    throw new CommanderError(EXIT_OK, 'commander.version', version);
  });
}

export function buildProgram(rt: Runtime): Command {
  const { t } = rt;
  const program = new Command('netcli')
    .description(t('netcli.help.program'))
    .exitOverride()
    .showHelpAfterError(t('netcli.help.afterError'))
    .configureOutput({
      writeOut: (s) => rt.io.stdout.write(s),
      writeErr: (s) => rt.io.stderr.write(s),
      // The same first word as every other failure of netcli, in netcli's language.
      outputError: (s, write) =>
        write(translateUsageError(s, rt.language, t).replace(/^error: /, 'netcli: ')),
    });
  // Commander's own words (Usage:, Options:, --help), before the commands copy its settings.
  localizeCommander(program, t);
  acceptCommonOptionsFirst(program, rt);
  addVersion(program, rt);
  registerDaemon(program, rt);
  registerInit(program, rt);
  registerAccount(program, rt);
  registerDevices(program, rt);
  registerConnection(program, rt);
  registerStatus(program, rt);
  registerConfig(program, rt);
  registerRegion(program, rt);
  registerSplit(program, rt);
  registerLatency(program, rt);
  registerService(program, rt);
  registerTunnel(program, rt);
  registerStreamTest(program, rt);
  registerApiAccess(program, rt);
  registerDiagnose(program, rt);
  registerGui(program, rt);
  registerTui(program, rt);
  registerUi(program, rt);
  describeCommonOptions(program, rt);
  return program;
}

/** Runs netcli with `argv` (without node and the script); resolves to the exit code. */
export async function main(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  const rt = new Runtime(io, await resolveNetcliLanguage(argv, io.env));
  try {
    await buildProgram(rt).parseAsync([...argv], { from: 'user' });
    return rt.exitCode;
  } catch (e) {
    if (e instanceof CommanderError) {
      return e.code === 'commander.helpDisplayed' || e.code === 'commander.version'
        ? EXIT_OK
        : EXIT_USAGE;
    }
    const failure = describeFailure(e, rt.socket.path, rt.t);
    // Each line one line: a detail the control plane wrote cannot add lines of its own.
    rt.io.stderr.write(
      failureText(
        {
          ...failure,
          message: plainLine(failure.message),
          hints: failure.hints.map(plainLine),
        },
        rt.t,
      ),
    );
    return failure.exitCode;
  } finally {
    await rt.close();
  }
}

// netcli tui: the terminal UI (ink) on this terminal, a client of the engine like every other
// command. Its code (cli/tui/) and ink and react load only here, when the command runs: every
// other command starts without them (scripts/build-netcli.ts keeps them out of the bundle).
import type { Command } from 'commander';
import { systemLanguage } from '../../contracts/i18n/languages.js';
import { CliError, describeFailure } from '../errors.js';
import { withCommon, type CommonOptions, type Runtime } from '../runtime.js';
import { describeGraphical, openGraphical } from './gui.js';
import type { GraphicalOpened } from '../tui/run.js';

/** The terminal the UI draws on and reads keys from (the process's own, but in tests). */
export interface Terminal {
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
}

export function processTerminal(): Terminal {
  return { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr };
}

/** Whether a person is at a terminal: keys come from one and the screen is one. */
export function isInteractive(terminal: Terminal): boolean {
  return terminal.stdin.isTTY === true && terminal.stdout.isTTY === true;
}

/** `g` in the terminal UI: netcli gui's own steps and words. */
async function openGraphicalFromUi(rt: Runtime, opts: CommonOptions): Promise<GraphicalOpened> {
  const result = await openGraphical(rt, { socket: opts.socket });
  return { url: result.url, lines: describeGraphical(result) };
}

/** Runs the terminal UI until the user quits (`netcli tui`, and `netcli` when `ui` is terminal). */
export async function openTerminal(
  rt: Runtime,
  opts: CommonOptions,
  terminal: Terminal = processTerminal(),
): Promise<void> {
  const { t } = rt;
  if (opts.json) throw new CliError(t('tui.command.noJson'), [t('tui.command.noJsonHint')]);
  if (!isInteractive(terminal))
    throw new CliError(t('tui.command.noTerminal'), [t('tui.command.noTerminalHint')]);
  const client = await rt.client(opts);
  const socketPath = rt.socket.path;
  // React's production build: the development one checks and warns for its developers, slower.
  process.env.NODE_ENV ??= 'production';
  const { runTerminalUi } = await import('../tui/run.js');
  await runTerminalUi(
    {
      client,
      describe: (e, t) => describeFailure(e, socketPath, t),
      openGraphical: () => openGraphicalFromUi(rt, opts),
      // The UI's language while the `language` setting is auto (then it follows the setting).
      system: systemLanguage(rt.io.env),
    },
    terminal,
  );
}

export function registerTui(program: Command, rt: Runtime, terminal?: Terminal): void {
  withCommon(program.command('tui'))
    .description(rt.t('tui.command.description'))
    .action((opts: CommonOptions) => openTerminal(rt, opts, terminal));
}

// netcli ui [terminal|graphical]: which face `netcli` alone opens (the setting `ui`, kept by the
// engine), and `netcli` alone: at a terminal, that face; anywhere else the help, as always.
import { Argument, type Command } from 'commander';
import { UI_MODES, type UiMode } from '../../contracts/index.js';
import { withCommon, type CommonOptions, type Runtime } from '../runtime.js';
import { describeGraphical, openGraphical } from './gui.js';
import { isInteractive, openTerminal, processTerminal, type Terminal } from './tui.js';

const FACES: Readonly<Record<UiMode, string>> = {
  terminal: 'the terminal UI (netcli tui)',
  graphical: 'the graphical mode (netcli gui)',
};

export function uiWords(ui: UiMode, changed: boolean): string[] {
  const other: UiMode = ui === 'terminal' ? 'graphical' : 'terminal';
  return [
    changed
      ? `netcli with no arguments opens ${FACES[ui]} from now on.`
      : `netcli with no arguments opens ${FACES[ui]}.`,
    `Switch with: netcli ui ${other}`,
  ];
}

/**
 * commander's own refusal of an unknown command, its suggestion of a command included (not in
 * its types). It names the program's first argument, so only when that is the word; and never
 * for a word that looks like an option (after `--`): commander would offer commands cut to
 * look like options (`--emon` for daemon).
 */
function refuseUnknownCommand(program: Command, word: string): never {
  const own = (program as unknown as { unknownCommand?: () => never }).unknownCommand;
  if (typeof own === 'function' && program.args[0] === word && !word.startsWith('-'))
    own.call(program);
  return program.error(`error: unknown command '${word}'`, { code: 'commander.unknownCommand' });
}

/** Opens the face the setting `ui` names; the terminal UI when the engine cannot say. */
async function openChosenFace(rt: Runtime, opts: CommonOptions, terminal: Terminal) {
  const client = await rt.client(opts);
  // An engine that does not answer: the terminal UI says so, and how to start one.
  const ui = await client.getConfig().then(
    (config) => config.ui,
    () => 'terminal' as const,
  );
  if (ui === 'terminal') return openTerminal(rt, opts, terminal);
  const result = await openGraphical(rt, { socket: opts.socket });
  rt.print(opts, result, () => describeGraphical(result));
}

export function registerUi(
  program: Command,
  rt: Runtime,
  terminal: Terminal = processTerminal(),
): void {
  withCommon(program.command('ui'))
    .description('which face netcli opens with no arguments: terminal or graphical')
    .addArgument(new Argument('[face]', 'terminal or graphical').choices(UI_MODES))
    .action(async (face: UiMode | undefined, opts: CommonOptions) => {
      const client = await rt.client(opts);
      if (face === undefined) {
        const { ui } = await client.getConfig();
        rt.print(opts, { ui }, () => uiWords(ui, false));
        return;
      }
      const result = await client.setConfigKey({ params: { key: 'ui' }, body: { value: face } });
      const ui = result.config.ui;
      rt.print(opts, { ui }, () => uiWords(ui, result.changed.includes('ui')));
    });

  // `netcli` alone. A hidden default command rather than an action of the program: options of
  // the program would be taken from every command's arguments too (--json, --socket).
  withCommon(program.command('open', { isDefault: true, hidden: true }))
    .description('the face the setting ui names')
    .argument('[words...]')
    .action(async (words: string[], opts: CommonOptions) => {
      const word = words[0];
      // Not a command of netcli: refused as before there was a default.
      if (word !== undefined) refuseUnknownCommand(program, word);
      if (!isInteractive(terminal) || !rt.io.stdout.isTTY) program.help({ error: true });
      await openChosenFace(rt, opts, terminal);
    });
}

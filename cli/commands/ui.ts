// netcli ui [terminal|graphical]: which face `netcli` alone opens (the setting `ui`, kept by the
// engine), and `netcli` alone: at a terminal, that face; anywhere else the help, as always.
import { Argument, type Command } from 'commander';
import { UI_MODES, translator, type Translate, type UiMode } from '../../contracts/index.js';
import { withCommon, type CommonOptions, type Runtime } from '../runtime.js';
import { describeGraphical, openGraphical } from './gui.js';
import { isInteractive, openTerminal, processTerminal, type Terminal } from './tui.js';

export function uiWords(ui: UiMode, changed: boolean, t: Translate = translator('en')): string[] {
  const other: UiMode = ui === 'terminal' ? 'graphical' : 'terminal';
  const face = ui === 'terminal' ? t('netcli.ui.terminal') : t('netcli.ui.graphical');
  return [
    changed ? t('netcli.ui.opensFromNow', { face }) : t('netcli.ui.opens', { face }),
    t('netcli.ui.switch', { other }),
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
  // Commander's words (in English, as it writes them): main.ts puts them in netcli's language.
  const words = translator('en')('netcli.usage.unknownCommand', { command: word });
  return program.error(`error: ${words}`, { code: 'commander.unknownCommand' });
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
  rt.print(opts, result, () => describeGraphical(result, rt.t));
}

export function registerUi(
  program: Command,
  rt: Runtime,
  terminal: Terminal = processTerminal(),
): void {
  const { t } = rt;
  withCommon(program.command('ui'))
    .description(t('netcli.ui.description'))
    .addArgument(new Argument('[face]', t('netcli.ui.face')).choices(UI_MODES))
    .action(async (face: UiMode | undefined, opts: CommonOptions) => {
      const client = await rt.client(opts);
      if (face === undefined) {
        const { ui } = await client.getConfig();
        rt.print(opts, { ui }, () => uiWords(ui, false, t));
        return;
      }
      const result = await client.setConfigKey({ params: { key: 'ui' }, body: { value: face } });
      const ui = result.config.ui;
      rt.print(opts, { ui }, () => uiWords(ui, result.changed.includes('ui'), t));
    });

  // `netcli` alone. A hidden default command rather than an action of the program: options of
  // the program would be taken from every command's arguments too (--json, --socket).
  withCommon(program.command('open', { isDefault: true, hidden: true }))
    .description(t('netcli.ui.open'))
    .argument('[words...]')
    .action(async (words: string[], opts: CommonOptions) => {
      const word = words[0];
      // Not a command of netcli: refused as before there was a default.
      if (word !== undefined) refuseUnknownCommand(program, word);
      if (!isInteractive(terminal) || !rt.io.stdout.isTTY) program.help({ error: true });
      await openChosenFace(rt, opts, terminal);
    });
}

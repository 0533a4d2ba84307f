// netcli gui [--web]: the graphical mode. The desktop app where it is installed (and a display
// shows it); otherwise, and with --web, the engine host serves the same app on a 127.x.y.z of
// its own and answers a one-time link, which netcli opens through a sign-in page (never on a
// command line) or prints.
import type { Command } from 'commander';
import { translator, type Translate } from '../../contracts/index.js';
import { withCommon, type CommonOptions, type Runtime } from '../runtime.js';

export interface GuiOptions extends CommonOptions {
  /** The web graphical mode even where the desktop app is installed. */
  web?: boolean;
  /** Print the link only (commander's --no-open sets open: false). */
  open?: boolean;
}

export interface GuiResult {
  /** The one-time link of the web graphical mode (absent when the desktop app opened). */
  url?: string;
  /** What showed it: the desktop app, the browser, or nothing (the link is to be opened). */
  opened: 'app' | 'browser' | null;
}

/** Opens the graphical mode and says what it did (the TUI's `g` and `netcli` call this too). */
export async function openGraphical(rt: Runtime, opts: GuiOptions): Promise<GuiResult> {
  if (!opts.web && opts.open !== false && (await rt.io.launchDesktopApp()))
    return { opened: 'app' };
  const client = await rt.client(opts);
  const { url } = await client.openGui();
  const opened =
    opts.open !== false && (await rt.io.openInBrowser(url, rt.language)) ? 'browser' : null;
  return { url, opened };
}

/** The lines people read for a result. */
export function describeGraphical(result: GuiResult, t: Translate = translator('en')): string[] {
  if (result.opened === 'app') return [t('netcli.gui.openApp')];
  const link = `  ${result.url}`;
  return result.opened === 'browser'
    ? [t('netcli.gui.openBrowser'), link]
    : [t('netcli.gui.openLink'), link];
}

export function registerGui(program: Command, rt: Runtime): void {
  const { t } = rt;
  withCommon(program.command('gui'))
    .description(t('netcli.gui.description'))
    .option('--web', t('netcli.gui.web'))
    .option('--no-open', t('netcli.gui.noOpen'))
    .action(async (opts: GuiOptions) => {
      const result = await openGraphical(rt, opts);
      rt.print(opts, result, () => describeGraphical(result, t));
    });
}

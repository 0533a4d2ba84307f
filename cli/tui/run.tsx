// netcli's terminal UI (ink): the entry that `netcli tui` loads, and only it (cli/commands/tui.ts
// imports it when the command runs), so that ink and react never slow another command's start.
// It runs from its own modules beside netcli's bundle (scripts/build-netcli.ts keeps it out):
// whatever holds a class that must be one in the process (the engine's client and its
// ApiError, netcli's words for failures) comes in through TuiDeps, never by importing it here.
// Besides ink and react, it imports at run time only its own modules, its screen for text from
// outside (cli/terminal-text.ts), Node's, and of contracts/ what holds no class of the process:
// the event follower, the checks of typed values, and the words (contracts/i18n's translator
// over the catalogs, contracts/words): the UI speaks the `language` setting, else the system's
// (TuiDeps.system), and switches when the setting changes.
import { render, type Instance } from 'ink';
import { App } from './app.js';
import { TuiController, type TuiDeps } from './controller.js';

export type { GraphicalOpened, TuiClient, TuiDeps } from './controller.js';

export interface TerminalStreams {
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  stderr?: NodeJS.WriteStream | undefined;
}

/**
 * Draws the UI of `controller` on a terminal until `q` or Ctrl-C. `debug` writes each frame
 * whole (tests read the last one).
 */
export function mountTerminalUi(
  controller: TuiController,
  streams: TerminalStreams,
  options: { debug?: boolean } = {},
): Instance {
  return render(<App controller={controller} />, {
    stdin: streams.stdin,
    stdout: streams.stdout,
    ...(streams.stderr ? { stderr: streams.stderr } : {}),
    exitOnCtrlC: true,
    // Nothing of the UI writes to the console; left alone, the console stays the process's own
    // (a test runner's, say) rather than ink's copy of it.
    patchConsole: false,
    debug: options.debug ?? false,
  });
}

/** Runs the terminal UI until the user quits; the engine's connection is left as it is. */
export async function runTerminalUi(deps: TuiDeps, streams: TerminalStreams): Promise<void> {
  const controller = new TuiController(deps);
  controller.start();
  const app = mountTerminalUi(controller, streams);
  try {
    await app.waitUntilExit();
  } finally {
    await controller.stop();
  }
}

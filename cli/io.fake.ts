// A CliIo in memory, for running netcli's main in process: output collected, interrupts and
// secrets under the test's control, the daemon's start recorded (or done by the test).
import type { CliIo, CreateEngine, Output } from './io.js';

export class FakeOutput implements Output {
  text = '';
  constructor(readonly isTTY = false) {}
  write(text: string): void {
    this.text += text;
  }
}

export interface FakeIo extends CliIo {
  stdout: FakeOutput;
  stderr: FakeOutput;
  /** Ctrl-C: aborts every signal `interrupts()` handed out. */
  interrupt(): void;
  secrets: string[];
  daemonStarts: string[];
  /** What the graphical mode opened: `app`, or a URL given to the browser. */
  opened: string[];
  /** The programs `netcli exec` ran: the command and its arguments. */
  programs: string[][];
}

export function fakeIo(
  options: {
    env?: Record<string, string>;
    isRoot?: boolean;
    secrets?: string[];
    createEngine?: CreateEngine;
    startDaemon?: (socketPath: string) => Promise<void>;
    /** A desktop app is installed and a display shows it (default: neither). */
    desktopApp?: boolean;
    /** A browser opens URLs (default: no display). */
    browser?: boolean;
    /** What a program run by `netcli exec` does (default: exits 0). */
    runProgram?: (command: string, args: readonly string[]) => Promise<number>;
  } = {},
): FakeIo {
  const programs: string[][] = [];
  const interrupt = new AbortController();
  const daemonStarts: string[] = [];
  const opened: string[] = [];
  const secrets = [...(options.secrets ?? [])];
  return {
    stdout: new FakeOutput(),
    stderr: new FakeOutput(),
    env: options.env ?? {},
    isRoot: options.isRoot ?? false,
    interrupts: () => interrupt.signal,
    interrupt: () => interrupt.abort(),
    secrets,
    async readSecret() {
      const secret = secrets.shift();
      if (secret === undefined) throw new Error('the test gave no secret to read');
      return secret;
    },
    daemonStarts,
    async startDaemon(socketPath) {
      daemonStarts.push(socketPath);
      await options.startDaemon?.(socketPath);
    },
    opened,
    async launchDesktopApp() {
      if (options.desktopApp) opened.push('app');
      return options.desktopApp ?? false;
    },
    async openInBrowser(url) {
      if (options.browser) opened.push(url);
      return options.browser ?? false;
    },
    pid: 4242,
    programs,
    async runProgram(command, args) {
      programs.push([command, ...args]);
      if (options.runProgram) return options.runProgram(command, args);
      return 0;
    },
    createEngine: options.createEngine,
  };
}

export interface NetcliRun {
  code: number;
  stdout: string;
  stderr: string;
  io: FakeIo;
}

/**
 * Runs netcli's main in process against the socket (added as --socket unless the arguments
 * name one); `io` gives a prepared fake (secrets, interrupts).
 */
export async function runNetcli(
  socketPath: string,
  args: readonly string[],
  io: FakeIo = fakeIo(),
): Promise<NetcliRun> {
  const { main } = await import('./main.js');
  const argv = args.includes('--socket') ? [...args] : [...args, '--socket', socketPath];
  const code = await main(argv, io);
  return { code, stdout: io.stdout.text, stderr: io.stderr.text, io };
}

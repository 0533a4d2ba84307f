// What netcli needs of its process, injected so that tests run it in process: output streams,
// the environment, who runs it, interrupts, secrets, and starting the engine in the background.
import type { Language } from '../contracts/index.js';
import type { EngineApi } from '../engine/engine-api.js';

export interface Output {
  write(text: string): void;
  /** A terminal: spinners and prompts only there. */
  readonly isTTY: boolean;
}

/** What `netcli daemon` hands the engine's factory (engine/engine.ts `createEngine`). */
export interface EngineFactoryOptions {
  stateDir: string;
  /** Lines `cidr,country` that take precedence over the shipped IP-to-country data. */
  geoipFile?: string | undefined;
  /** Streaming platforms that add to or replace the shipped table's entries (same JSON shape). */
  platformsFile?: string | undefined;
  /**
   * How long a tunnel on TCP or TLS because UDP failed waits before it tries UDP again, in
   * seconds (then twice, four and six times as long); default the engine's (600).
   */
  udpRetryAfterSeconds?: number | undefined;
  /** A saved GET /relay-list body in place of the shipped relay list. */
  relayListFile?: string | undefined;
  /** The service's public key in place of the shipped one (base64 of 32 bytes). */
  serviceKey?: string | undefined;
}
export type CreateEngine = (options: EngineFactoryOptions) => Promise<EngineApi> | EngineApi;

export interface CliIo {
  stdout: Output;
  stderr: Output;
  env: Readonly<Record<string, string | undefined>>;
  /** Run as root: netcli may start the engine itself. */
  isRoot: boolean;
  /**
   * Aborts on Ctrl-C or SIGTERM from the moment it is asked for (commands that do not ask keep
   * the default: the process ends).
   */
  interrupts(): AbortSignal;
  /** Reads a password without echoing it (a prompt on a terminal, else a line of stdin). */
  readSecret(prompt: string): Promise<string>;
  /** Starts `netcli daemon` detached on this socket, its output to a log file. */
  startDaemon(socketPath: string): Promise<void>;
  /** Starts the installed desktop app; false when there is none or no display (cli/launch.ts). */
  launchDesktopApp(): Promise<boolean>;
  /**
   * Signs the user's browser in with a one-time link of the web graphical mode, never putting it
   * on a command line (cli/launch.ts); false when there is no display or no browser.
   */
  openInBrowser(url: string, language?: Language): Promise<boolean>;
  /** This process's id (`netcli exec` asks the engine to put it on a way). */
  readonly pid: number;
  /**
   * Runs a program in the foreground on this terminal (its stdin, stdout and stderr), passing it
   * Ctrl-C and SIGTERM; resolves to its exit status (128 + the signal that ended it), or rejects
   * with the spawn's error (ENOENT: no such program).
   */
  runProgram(command: string, args: readonly string[]): Promise<number>;
  /** The engine factory for `netcli daemon` (default: engine/engine.ts's createEngine). */
  createEngine?: CreateEngine | undefined;
}

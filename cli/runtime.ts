// One run of netcli: the options every command takes (--json, --socket), the engine's client
// for them, and the output rules (results on stdout, JSON with --json; the rest on stderr; all
// of it through the output boundary, cli/terminal-output.ts).
import type { Command } from 'commander';
import { DEFAULT_ENGINE_SOCKET, type LocalClient } from '../contracts/index.js';
import { EngineConnections, chooseSocket, type SocketChoice } from './engine-connection.js';
import type { CliIo } from './io.js';
import { withProgress } from './progress.js';
import { terminalIo, type OutputLine, type TerminalIo } from './terminal-output.js';
import { terminalJson } from './terminal-text.js';

export interface CommonOptions {
  json?: boolean;
  socket?: string;
}

/** Adds --json and --socket to a command (every command of netcli takes both). */
export function withCommon(cmd: Command): Command {
  return cmd
    .option('--json', 'print the result as stable JSON on stdout')
    .option(
      '--socket <path>',
      `the engine's socket (default: $FERRY_SOCKET, else ${DEFAULT_ENGINE_SOCKET})`,
    );
}

export class Runtime {
  private readonly connections: EngineConnections;
  /** The socket the last command chose: errors name it. */
  socket: SocketChoice;
  /** Set by a command that ends without an error but not in success (a stream that broke). */
  exitCode = 0;
  /** The process's streams behind the output boundary: every command writes through it. */
  readonly io: TerminalIo;

  constructor(io: CliIo) {
    this.io = terminalIo(io);
    this.connections = new EngineConnections(this.io);
    this.socket = chooseSocket(undefined, io.env);
  }

  socketFor(opts: CommonOptions): SocketChoice {
    this.socket = chooseSocket(opts.socket, this.io.env);
    return this.socket;
  }

  client(opts: CommonOptions): Promise<LocalClient> {
    return this.connections.client(this.socketFor(opts));
  }

  /** The command's result: its JSON with --json, else its lines for people. */
  print(opts: CommonOptions, value: unknown, human: () => readonly OutputLine[]): void {
    if (opts.json) this.io.stdout.write(terminalJson(value));
    else this.io.stdout.writeLines(human());
  }

  /** A next step or remark for people, on stderr; nothing with --json. */
  note(opts: CommonOptions, text: string): void {
    if (!opts.json) this.io.stderr.writeLines([text]);
  }

  progress<T>(opts: CommonOptions, label: string, work: Promise<T>): Promise<T> {
    return withProgress(this.io.stderr, label, !opts.json, work);
  }

  close(): Promise<void> {
    return this.connections.closeAll();
  }
}

// One run of netcli: the options every command takes (--json, --socket), the engine's client
// for them, and the output rules (results on stdout, JSON with --json; the rest on stderr; all
// of it through the output boundary, cli/terminal-output.ts).
import type { Command } from 'commander';
import {
  DEFAULT_ENGINE_SOCKET,
  translator,
  type Language,
  type LocalClient,
  type Translate,
} from '../contracts/index.js';
import { EngineConnections, chooseSocket, type SocketChoice } from './engine-connection.js';
import type { CliIo } from './io.js';
import { withProgress } from './progress.js';
import { terminalIo, type OutputLine, type TerminalIo } from './terminal-output.js';
import { terminalJson } from './terminal-text.js';

export interface CommonOptions {
  json?: boolean;
  socket?: string;
}

const english = translator('en');

/**
 * An option's flags as commander reads them (`--region <region>`): syntax, the same in every
 * language, never words to translate.
 */
export function flags(option: string, value: string): string {
  return `${option} ${value}`;
}

/**
 * Adds --json and --socket to a command (every command of netcli takes both), described in the
 * language of `t` (main.ts describes them again in netcli's language once the program is built).
 */
export function withCommon(cmd: Command, t: Translate = english): Command {
  return cmd
    .option('--json', commonOptionWords(t).json)
    .option(flags('--socket', '<path>'), commonOptionWords(t).socket);
}

/** The descriptions of --json and --socket. */
export function commonOptionWords(t: Translate): { json: string; socket: string } {
  return {
    json: t('netcli.common.json'),
    socket: t('netcli.common.socket', { socket: DEFAULT_ENGINE_SOCKET }),
  };
}

export class Runtime {
  private readonly connections: EngineConnections;
  /** The socket the last command chose: errors name it. */
  socket: SocketChoice;
  /** Set by a command that ends without an error but not in success (a stream that broke). */
  exitCode = 0;
  /** The process's streams behind the output boundary: every command writes through it. */
  readonly io: TerminalIo;
  /** netcli's words in its language (cli/language.ts): every command and report speaks it. */
  readonly t: Translate;

  constructor(
    io: CliIo,
    /** The language of this run (cli/language.ts). */
    readonly language: Language = 'en',
  ) {
    this.t = translator(language);
    this.io = terminalIo(io);
    this.connections = new EngineConnections(this.io, this.t);
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

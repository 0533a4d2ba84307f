// netcli's output boundary: every write to its stdout and stderr passes here. Text loses what a
// terminal would obey (cli/terminal-text.ts), a line stays one line whatever it holds, and only
// netcli's own drawing (the spinner, a QR code's colours) passes as it is.
import type { CliIo, Output } from './io.js';
import { plainLine, plainText } from './terminal-text.js';

/**
 * What netcli drew itself, terminal sequences included (a QR code's colours): written as it
 * is. Never text from outside: a drawing holds nothing of it but what it was drawn from.
 */
export class Drawing {
  constructor(readonly text: string) {}
}

/** A line of human output: text (screened at the boundary), or a drawing of netcli's own. */
export type OutputLine = string | Drawing;

export class TerminalOutput implements Output {
  constructor(private readonly out: Output) {}

  get isTTY(): boolean {
    return this.out.isTTY;
  }

  /** Text as netcli wrote it: its newlines and tabs kept, every other control removed. */
  write(text: string): void {
    this.out.write(plainText(text));
  }

  /**
   * Lines, each ended by a newline and each one line whatever it holds: a name with a line
   * break in it cannot start a line of its own ("Connected to ...").
   */
  writeLines(lines: readonly OutputLine[]): void {
    const text = lines.map((l) => (l instanceof Drawing ? l.text : plainLine(l)));
    this.out.write(`${text.join('\n')}\n`);
  }

  /** netcli's own terminal sequences (the spinner's carriage return and erase), as they are. */
  writeControls(text: string): void {
    this.out.write(text);
  }
}

/** A CliIo whose stdout and stderr are the boundary: what every command writes to. */
export interface TerminalIo extends Omit<CliIo, 'stdout' | 'stderr'> {
  stdout: TerminalOutput;
  stderr: TerminalOutput;
}

export function terminalIo(io: CliIo): TerminalIo {
  return { ...io, stdout: new TerminalOutput(io.stdout), stderr: new TerminalOutput(io.stderr) };
}

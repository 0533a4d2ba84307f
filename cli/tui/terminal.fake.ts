// A terminal in memory for the terminal UI's tests: a screen of a fixed size that keeps each
// frame ink draws, and a keyboard the test types on (what ink reads of a TTY's stdin).
import { EventEmitter } from 'node:events';

/** Keys as a terminal sends them. */
export const KEYS = {
  up: '\u001b[A',
  down: '\u001b[B',
  enter: '\r',
  escape: '\u001b',
  backspace: '\u007f',
  ctrlC: '\u0003',
} as const;

export class FakeScreen extends EventEmitter {
  readonly isTTY = true;
  readonly frames: string[] = [];

  constructor(
    readonly columns = 120,
    readonly rows = 40,
  ) {
    super();
  }

  write(text: string): boolean {
    this.frames.push(text);
    return true;
  }

  /** What the screen shows now (ink's debug mode draws each frame whole). */
  lastFrame(): string {
    return this.frames.at(-1) ?? '';
  }
}

export class FakeKeyboard extends EventEmitter {
  readonly isTTY = true;
  rawMode = false;
  readonly #typed: string[] = [];

  setRawMode(on: boolean): this {
    this.rawMode = on;
    return this;
  }
  setEncoding(): this {
    return this;
  }
  ref(): this {
    return this;
  }
  unref(): this {
    return this;
  }
  read(): string | null {
    return this.#typed.shift() ?? null;
  }

  /** Types `keys` (one key: a letter, or one of KEYS). */
  press(keys: string): void {
    this.#typed.push(keys);
    this.emit('readable');
  }
}

export interface FakeTerminal {
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  keyboard: FakeKeyboard;
  screen: FakeScreen;
}

export function fakeTerminal(): FakeTerminal {
  const keyboard = new FakeKeyboard();
  const screen = new FakeScreen();
  const errors = new FakeScreen();
  return {
    stdin: keyboard as unknown as NodeJS.ReadStream,
    stdout: screen as unknown as NodeJS.WriteStream,
    stderr: errors as unknown as NodeJS.WriteStream,
    keyboard,
    screen,
  };
}

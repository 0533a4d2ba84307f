// A terminal for the namespace tests of netcli's terminal UI: a tmux server of the test's own
// (its own socket, never the user's), one session per program run at a fixed size, keys sent
// to it and its screen read, waits bounded by a deadline. A pane stays after its program ends,
// with the exit code on its last line, so that what a program printed can still be read.
import { spawnSync } from 'node:child_process';

/** Variables that make terminal programs draw for a log rather than for a person (ink: only the last frame). */
const NOT_A_PERSON = ['CI', 'CONTINUOUS_INTEGRATION'];

/** One argument for sh, quoted. */
function quote(arg: string): string {
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

export class TmuxServer {
  #sessions = 0;

  /** `socket`: the server's socket path (a file in the test's own directory). */
  constructor(readonly socket: string) {}

  /** Runs tmux against this server; returns its stdout, throws with its stderr on failure. */
  tmux(...args: string[]): string {
    const env: NodeJS.ProcessEnv = { ...process.env, LANG: 'C.UTF-8' };
    for (const name of NOT_A_PERSON) delete env[name];
    const r = spawnSync('tmux', ['-u', '-S', this.socket, ...args], {
      encoding: 'utf8',
      env,
      timeout: 10_000,
    });
    if (r.status !== 0)
      throw new Error(`tmux ${args.join(' ')} exited ${r.status}: ${r.stderr || r.error}`);
    return r.stdout;
  }

  /** Starts `argv` in a new session of `width` x `height` cells. */
  open(argv: readonly string[], width = 120, height = 40): TmuxPane {
    const name = `run${this.#sessions++}`;
    const command = `${argv.map(quote).join(' ')}; echo "[exited $?]"; sleep 3600`;
    this.tmux('new-session', '-d', '-s', name, '-x', String(width), '-y', String(height), command);
    return new TmuxPane(this, name);
  }

  /** Ends the server and every program in its sessions. */
  stop(): void {
    try {
      this.tmux('kill-server');
    } catch {
      // Not started, or already gone.
    }
  }
}

export class TmuxPane {
  constructor(
    private readonly server: TmuxServer,
    readonly session: string,
  ) {}

  /** What the screen shows now, line by line (trailing blanks dropped). */
  screen(): string {
    return this.server
      .tmux('capture-pane', '-p', '-t', this.session)
      .split('\n')
      .map((l) => l.trimEnd())
      .join('\n')
      .trimEnd();
  }

  /** Keys by tmux's names (`Up`, `Enter`, `Escape`) or letters. */
  send(...keys: string[]): void {
    this.server.tmux('send-keys', '-t', this.session, ...keys);
  }

  /**
   * Polls the screen until `probe` returns a value, or fails after `timeoutMs` with `what` and
   * the last screen.
   */
  async waitUntil<T>(
    what: string,
    probe: (screen: string) => T | undefined,
    timeoutMs = 15_000,
  ): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    let last = '';
    for (;;) {
      last = this.screen();
      const found = probe(last);
      if (found !== undefined) return found;
      if (Date.now() >= deadline) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; the screen:\n${last}`);
  }

  /** Polls the screen until `pattern` matches it; the match. */
  waitFor(what: string, pattern: RegExp, timeoutMs = 15_000): Promise<RegExpExecArray> {
    return this.waitUntil(what, (screen) => pattern.exec(screen) ?? undefined, timeoutMs);
  }

  /** Waits until the program has ended; its exit code. */
  async exited(timeoutMs = 15_000): Promise<number> {
    const m = await this.waitFor('the program to end', /\[exited (\d+)\]/, timeoutMs);
    return Number(m[1]);
  }
}

// netcli ui, netcli tui and `netcli` alone, in process against the in-memory engine through the
// real host (with its web graphical mode): the choice of face kept by the engine, `netcli`
// alone opening that face at a terminal (and the help elsewhere, as before), the terminal UI's
// keys reaching the engine over the socket.
import { Command, CommanderError } from 'commander';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { FakeEngine } from '../../engine/engine.fake.js';
import { registerTui } from '../commands/tui.js';
import { registerUi } from '../commands/ui.js';
import { FakeOutput, fakeIo, runNetcli } from '../io.fake.js';
import { Runtime } from '../runtime.js';
import { CliHarness } from '../testing/cli-harness.js';
import { fakeTerminal, type FakeTerminal } from './terminal.fake.js';

// The web graphical mode's own address: a random 127.x.y.z, never 127.0.0.1.
const LINK = /http:\/\/127\.(?!0\.0\.1:)\d+\.\d+\.\d+:\d+\/session\/[A-Za-z0-9_-]{43}/;

describe('netcli ui, tui and netcli alone', () => {
  const cli = new CliHarness('ferry-cli-tui-', { gui: true });
  let socketPath: string;
  let engine: FakeEngine;
  const netcli = (...args: string[]) => runNetcli(socketPath, args);

  beforeEach(async () => {
    await cli.start();
    ({ socketPath, engine } = cli);
    await engine.init({ endpoint: 'https://ferry.example', protocol: 'wireguard' });
    await engine.createAccount({ device_name: 'laptop' });
  });
  afterEach(() => cli.close());

  /**
   * `netcli <args>` as main builds it, but at `terminal` (a person at a TTY), the environment
   * naming the socket; resolves once it ends, with what it wrote.
   */
  async function atTerminal(terminal: FakeTerminal, ...args: string[]) {
    const io = fakeIo({ env: { FERRY_SOCKET: socketPath } });
    io.stdout = new FakeOutput(true);
    const rt = new Runtime(io);
    const program = new Command('netcli').exitOverride().configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
    });
    registerTui(program, rt, terminal);
    registerUi(program, rt, terminal);
    try {
      await program.parseAsync(args, { from: 'user' });
      return { code: 0, stdout: io.stdout.text, stderr: io.stderr.text };
    } catch (e) {
      if (e instanceof CommanderError) return { code: 2, stdout: '', stderr: io.stderr.text };
      throw e;
    } finally {
      await rt.close();
    }
  }

  it('netcli ui says which face netcli opens, and switches it in the engine', async () => {
    const now = await netcli('ui');
    expect(now.code).toBe(0);
    expect(now.stdout).toBe(
      'netcli with no arguments opens the terminal UI (netcli tui).\nSwitch with: netcli ui graphical\n',
    );
    const set = await netcli('ui', 'graphical');
    expect(set.stdout).toBe(
      'netcli with no arguments opens the graphical mode (netcli gui) from now on.\nSwitch with: netcli ui terminal\n',
    );
    expect(engine.config.ui).toBe('graphical');
    expect(JSON.parse((await netcli('ui', '--json')).stdout)).toEqual({ ui: 'graphical' });
    expect(JSON.parse((await netcli('ui', 'terminal', '--json')).stdout)).toEqual({
      ui: 'terminal',
    });
    expect(engine.config.ui).toBe('terminal');
    const bad = await netcli('ui', 'holographic');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/Allowed choices are terminal, graphical/);
  });

  it('netcli alone without a terminal prints the help as before; unknown commands stay unknown', async () => {
    const alone = await runNetcli(socketPath, []);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toMatch(/^Usage: netcli \[options\] \[command\]/);
    expect(alone.stderr).toMatch(/\n {2}tui \[options\]/);
    expect(alone.stderr).not.toMatch(/\n {2}open\b/);
    const bogus = await netcli('conect');
    expect(bogus.code).toBe(2);
    expect(bogus.stderr).toMatch(/^netcli: unknown command 'conect'\n\(Did you mean connect\?\)/);
  });

  it('netcli tui needs a terminal, and has no JSON output', async () => {
    const r = await netcli('tui');
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'netcli: the terminal UI needs a terminal for its keys and its screen\nhint: netcli status --watch follows the connection without one\n',
    );
    const j = await netcli('tui', '--json');
    expect(j.code).toBe(1);
    expect(j.stderr).toMatch(/no JSON output/);
  });

  it('netcli alone at a terminal opens the terminal UI: its keys reach the engine, q quits', async () => {
    const terminal = fakeTerminal();
    const running = atTerminal(terminal);
    // Up: it reads keys and follows the engine's events.
    // (Its first start in a test worker loads ink and react: seconds on a busy machine.)
    const ready = { timeout: 10_000 };
    await vi.waitFor(
      () => expect(terminal.keyboard.rawMode && engine.listenerCount > 0).toBe(true),
      ready,
    );
    terminal.keyboard.press('k');
    await vi.waitFor(() => expect(engine.config.kill_switch).toBe(false), ready);
    terminal.keyboard.press('c');
    await vi.waitFor(() => expect(engine.status().status).toBe('connected'), ready);
    terminal.keyboard.press('q');
    const r = await running;
    expect(r.code).toBe(0);
    expect(terminal.keyboard.rawMode).toBe(false);
    expect(terminal.screen.frames.join('')).toContain('q quit');
    // Quitting the screen leaves the connection as it is.
    expect(engine.status().status).toBe('connected');
    // Its event stream is closed: the host lets go of its engine subscription once it sees that.
    await vi.waitFor(() => expect(engine.listenerCount).toBe(0), ready);
  });

  it('netcli alone at a terminal opens the graphical mode when the engine says so', async () => {
    await engine.setConfigKey('ui', 'graphical');
    const terminal = fakeTerminal();
    const r = await atTerminal(terminal);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Open Ferry in a browser on this machine/);
    expect(r.stdout).toMatch(LINK);
    expect(terminal.screen.frames).toEqual([]);
    // Without a terminal: the help, whatever the setting.
    expect((await runNetcli(socketPath, [])).code).toBe(2);
  });
});

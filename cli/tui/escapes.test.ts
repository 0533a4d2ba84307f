// The terminal UI draws what the control plane says (region names, notices, an error's detail)
// as text, never as commands to the terminal: escape sequences in them reach no frame.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Instance } from 'ink';
import { FakeEngine } from '../../engine/engine.fake.js';
import { FerryError } from '../../engine/errors.js';
import { describeFailure } from '../errors.js';
import { CONTROLS, hostile } from '../testing/terminal-controls.js';
import { TuiController } from './controller.js';
import { EngineClientFake } from './engine-client.fake.js';
import { mountTerminalUi } from './run.js';
import { fakeTerminal, type FakeTerminal } from './terminal.fake.js';

describe('terminal UI with a hostile control plane', () => {
  let engine: FakeEngine;
  let controller: TuiController;
  let terminal: FakeTerminal;
  let app: Instance;
  const screen = () => terminal.screen.lastFrame();
  const sees = (text: string | RegExp) =>
    vi.waitFor(() => expect(screen()).toMatch(text), { timeout: 5_000 });

  beforeEach(async () => {
    engine = new FakeEngine();
    await engine.init({ endpoint: 'https://ferry.example', protocol: 'wireguard' });
    await engine.createAccount({ device_name: 'laptop' });
    const real = await engine.listRegions();
    vi.spyOn(engine, 'listRegions').mockResolvedValue({
      ...real,
      regions: real.regions.map((r) => ({ ...r, name: hostile(r.name) })),
    });
    controller = new TuiController({
      client: new EngineClientFake(engine).client,
      describe: (e) => describeFailure(e, '/run/ferry/engine.sock'),
      openGraphical: async () => ({ url: 'http://127.0.0.1:4711/s/x', lines: [] }),
      backoff: { delayMs: () => 20 },
    });
    terminal = fakeTerminal();
    controller.start();
    app = mountTerminalUi(controller, terminal, { debug: true });
  });
  afterEach(async () => {
    app.unmount();
    await controller.stop();
    vi.restoreAllMocks();
  });

  it('region names, notices and an error’s detail reach the screen without their controls', async () => {
    await sees(/As ?ia East/);
    engine.notify({ code: 'key-rotated', message: hostile('the key was rotated') });
    await sees(/Note: th ?e key was rotated/);
    engine.failNextConnect = new FerryError('node-unreachable', hostile('the node went away'));
    terminal.keyboard.press('c');
    await sees(/th ?e node went away/);
    for (const frame of terminal.screen.frames) {
      // ink's own colours aside (none in these frames), nothing a terminal obeys.
      expect(frame).not.toMatch(CONTROLS);
      expect(frame).not.toContain('pwned');
      expect(frame).not.toContain('Y3VybCBldmls');
    }
  });
});

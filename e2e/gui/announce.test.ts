// The connection's changes said to a screen reader, on every screen, in the app's language: the
// shell's polite live region (renderer/ui/shell/announcer.tsx, outside the screens' panel) holds
// the engine's state in words once it changes. Driven in Debian's Chromium against the engine
// fake behind the engine host's web listener: a connect from Home says Connecting… then
// Connected; a disconnect from elsewhere (the tray, netcli) while Settings is shown says
// Disconnected; a connect that fails says Error; one that takes a while says Connecting… until
// it is done; in Persian, the Persian words.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EngineState } from '../../contracts/local-api.js';
import { translator } from '../../contracts/i18n/translator.js';
import { engineStateWords } from '../../contracts/words/states.js';
import { FerryError } from '../../engine/errors.js';
import { showScreen, useLanguage } from './a11y-kit.js';
import { FakeEngineGui } from './fake-engine-gui.js';

const english = engineStateWords(translator('en'));

/** A polite live region of the shell's own: outside the screens' panel. */
const ANNOUNCER =
  '[aria-live="polite"]:not([role="tabpanel"] *), [role="status"]:not([role="tabpanel"] *):not([aria-live="off"])';

/**
 * Starts keeping everything the shell's live regions say, in order (a change can be over before
 * a test looks: Connecting… lasts a moment against the fake).
 */
const RECORD = `(() => {
  const said = (window.__said = []);
  const take = () => {
    for (const el of document.querySelectorAll(${JSON.stringify(ANNOUNCER)})) {
      const text = (el.textContent || '').trim();
      if (text && said[said.length - 1] !== text) said.push(text);
    }
  };
  new MutationObserver(take).observe(document.body, {
    subtree: true,
    childList: true,
    characterData: true,
  });
})()`;

describe('state changes announced through a live region', () => {
  let g: FakeEngineGui;

  beforeAll(async () => {
    g = await FakeEngineGui.start();
  }, 90_000);
  afterAll(async () => {
    await g?.stop();
  }, 30_000);

  const page = () => g.app.page;
  const record = () => page().evaluate(RECORD);
  const said = () => page().evaluate('window.__said') as Promise<string[]>;
  /** What the shell's live region holds now. */
  const saying = async () =>
    (await page().locator(ANNOUNCER).allTextContents()).map((t) => t.trim()).filter(Boolean);
  const waitForState = (state: EngineState) =>
    page().locator(`.connection--${state}`).waitFor({ timeout: 15_000 });

  it('the live region is polite, and says nothing of what was so when the app opened', async () => {
    const region = page().locator(ANNOUNCER);
    expect(await region.count()).toBeGreaterThan(0);
    expect(await saying()).toEqual([]);
  });

  it('a connect from Home: Connecting…, then Connected', async () => {
    await showScreen(page(), 'home');
    await record();
    await g.app.connect();
    await g.app.waitForState('Connected');
    await expect.poll(saying).toEqual([english.connected]);
    const heard = await said();
    expect(heard.at(-1)).toBe(english.connected);
    expect(heard.every((w) => [english.connecting, english.connected].includes(w))).toBe(true);
  }, 30_000);

  it('a disconnect from elsewhere while Settings is shown: Disconnected', async () => {
    await showScreen(page(), 'settings');
    await record();
    await g.engine.disconnect();
    await expect.poll(saying).toEqual([english.disconnected]);
    expect((await said()).at(-1)).toBe(english.disconnected);
  }, 30_000);

  it('a connect that fails: Error', async () => {
    await showScreen(page(), 'home');
    g.engine.failNextConnect = new FerryError('node-unreachable', 'the node did not answer');
    await record();
    await g.engine.connect({}).catch(() => undefined);
    await waitForState('error');
    await expect.poll(saying).toEqual([english.error]);
    await g.engine.disconnect();
    await expect.poll(saying).toEqual([english.disconnected]);
  }, 30_000);

  it('a connect that takes a while: Connecting… while it lasts, then Connected', async () => {
    const hold = g.engine.holdConnect();
    const connected = g.engine.connect({});
    await hold.started;
    await expect.poll(saying).toEqual([english.connecting]);
    hold.release();
    await connected;
    await expect.poll(saying).toEqual([english.connected]);
    await g.engine.disconnect();
    await expect.poll(saying).toEqual([english.disconnected]);
  }, 30_000);

  it('in Persian, the Persian words', async () => {
    const persian = engineStateWords(translator('fa'));
    await useLanguage(g, 'fa');
    try {
      await showScreen(page(), 'settings');
      await record();
      await g.engine.connect({});
      await expect.poll(saying).toEqual([persian.connected]);
      await g.engine.disconnect();
      await expect.poll(saying).toEqual([persian.disconnected]);
    } finally {
      await useLanguage(g, 'auto');
    }
  }, 60_000);
});

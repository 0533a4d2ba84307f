// The web graphical mode in each of its languages, driven by Playwright in Debian's Chromium
// against the engine fake behind the engine host's web listener: the `language` setting set
// through the engine, the page opened again, then Home (connect, until connected), Settings,
// Account and Diagnostics, each checked for words of its language and none of English's; Persian
// right to left (<html dir="rtl" lang="fa">). A screenshot of each screen in each language.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LANGUAGES, type Language } from '../../contracts/i18n/languages.js';
import { translator, type Translate } from '../../contracts/i18n/translator.js';
import { engineStateWords } from '../../contracts/words/states.js';
import type { AppPage } from './app-page.js';
import { keepScreenshot } from './browser-kit.js';
import { FakeEngineGui } from './fake-engine-gui.js';

type Screen = 'home' | 'settings' | 'account' | 'diagnostics';

/** Per screen: words of the language it must show, and English words it must not. */
const SCREENS: Readonly<
  Record<Screen, { words: (t: Translate) => string[]; english: readonly string[] }>
> = {
  home: {
    words: (t) => [t('home.button.disconnect'), engineStateWords(t).connected],
    english: ['Disconnect', 'Connection', 'Latency'],
  },
  settings: {
    words: (t) => [
      t('app.settings.protection'),
      t('app.settings.killSwitch'),
      t('app.settings.homeCountry'),
      t('app.settings.language'),
      t('app.splitRules.title'),
    ],
    english: ['Protection', 'Kill switch', 'Home country', 'Split rules', 'Routing'],
  },
  account: {
    words: (t) => [t('app.account.title'), t('app.account.number'), t('app.account.signOut')],
    english: ['Your account', 'Account number', 'Sign out', 'Phones and tablets'],
  },
  diagnostics: {
    words: (t) => [
      t('app.diagnostics.run'),
      t('app.diagnostics.caption'),
      t('app.diagnostics.whatToDo'),
      t('app.diagnostics.checks.engine'),
    ],
    english: ['Run diagnostics', 'What to do', 'Verdict'],
  },
};

describe('the web graphical mode in every language against the engine fake', () => {
  let g: FakeEngineGui;
  let app: AppPage;

  beforeAll(async () => {
    g = await FakeEngineGui.start();
    app = g.app;
  }, 90_000);
  afterAll(async () => {
    await g?.stop();
  }, 30_000);

  /** The `language` setting through the engine, and the page opened again in it. */
  const useLanguage = async (language: Language) => {
    await g.engine.patchConfig({ language });
    await app.page.reload();
    await app.page.locator(`html[lang="${language}"]`).waitFor({ state: 'attached' });
    await app.page.getByRole('tablist').waitFor();
  };

  /** Shows a screen by its tab, named in the language. */
  const show = async (screen: Screen, t: Translate) => {
    await app.page
      .getByRole('tab', { name: t(`app.shell.screens.${screen}`), exact: true })
      .click();
    await app.page.locator(`#panel-${screen}[role="tabpanel"]`).waitFor();
  };

  /** What the screen says: its panel's text. */
  const panelText = async (screen: Screen) =>
    (await app.page.locator(`#panel-${screen}`).innerText()).replace(/\s+/g, ' ');

  const checkScreen = async (language: Language, screen: Screen, t: Translate) => {
    const words = SCREENS[screen].words(t);
    await expect.poll(() => panelText(screen)).toContain(words[0]);
    const text = await panelText(screen);
    for (const word of words) expect(text, `${language} ${screen}`).toContain(word);
    if (language !== 'en')
      for (const word of SCREENS[screen].english)
        expect(text, `${language} ${screen}: “${word}”`).not.toContain(word);
    // Never a command to type, in any language, on any screen.
    expect(text, `${language} ${screen}`).not.toMatch(/netcli/);
    await keepScreenshot(app.page, `languages-${language}-${screen}`);
  };

  for (const language of LANGUAGES) {
    it(`${language}: home (connected), settings, account and diagnostics`, async () => {
      const t = translator(language);
      if (g.engine.status().status !== 'disconnected') await g.engine.disconnect();
      await useLanguage(language);
      const html = app.page.locator('html');
      expect(await html.getAttribute('lang')).toBe(language);
      expect(await html.getAttribute('dir')).toBe(language === 'fa' ? 'rtl' : 'ltr');
      // The tabs in the language.
      for (const screen of Object.keys(SCREENS) as Screen[])
        await expect(
          app.page
            .getByRole('tab', { name: t(`app.shell.screens.${screen}`), exact: true })
            .count(),
        ).resolves.toBe(1);

      // Home: connect by the button in the language, until the engine and the page say connected.
      await show('home', t);
      await app.page.getByRole('button', { name: t('home.button.connect'), exact: true }).click();
      await expect.poll(() => g.engine.status().status, { timeout: 20_000 }).toBe('connected');
      await app.page
        .getByRole('button', { name: t('home.button.disconnect'), exact: true })
        .first()
        .waitFor();
      for (const ms of [38, 41, 52, 47]) g.engine.measure(ms);
      await checkScreen(language, 'home', t);

      await show('settings', t);
      // The language picker shows the setting; the home-country picker is there by its id.
      await expect(app.page.locator('#setting-language').inputValue()).resolves.toBe(language);
      await expect(app.page.locator('#setting-home-country').count()).resolves.toBe(1);
      await checkScreen(language, 'settings', t);

      await show('account', t);
      await app.page.locator('.account-number').first().waitFor();
      await checkScreen(language, 'account', t);

      await show('diagnostics', t);
      await app.page.getByRole('button', { name: t('app.diagnostics.run'), exact: true }).click();
      await app.page.locator('table.checks').waitFor({ timeout: 30_000 });
      await checkScreen(language, 'diagnostics', t);
    }, 120_000);
  }

  it('choosing a language on Settings switches the app at once', async () => {
    await useLanguage('en');
    await show('settings', translator('en'));
    await app.page.locator('#setting-language').selectOption('ru');
    const ru = translator('ru');
    await app.page.locator('html[lang="ru"]').waitFor({ state: 'attached' });
    await expect.poll(() => panelText('settings')).toContain(ru('app.settings.killSwitch'));
    expect(g.engine.config.language).toBe('ru');
    await app.page.locator('#setting-language').selectOption('auto');
    // Chromium's locale here is English.
    await app.page.locator('html[lang="en"]').waitFor({ state: 'attached' });
    expect(g.engine.config.language).toBe('auto');
  }, 60_000);
});

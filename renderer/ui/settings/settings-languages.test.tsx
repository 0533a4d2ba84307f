// The Settings screen in the language the `language` setting names: Persian and Chinese words
// (not English ones), the language picker with each language by its own name, and the home
// country's picker with the countries named in the app's language.
import { renderToStaticMarkup } from 'react-dom/server.node';
import { describe, expect, it } from 'vitest';
import type { LanguageSetting } from '../../../contracts/client-config.js';
import { CONFIG, REGIONS, statusOf } from '../../store/engine-answers.fake.js';
import { createEngineStore } from '../../store/engine-store.js';
import { FakeTransport } from '../../transport/transport.fake.js';
import { LanguageProvider } from '../i18n/language-provider.js';
import { EngineStoreProvider } from '../store-context.js';
import { HOME_COUNTRY_SETTING_ID } from './language-settings.js';
import { SettingsScreen } from './settings-screen.js';

function settingsIn(language: LanguageSetting, homeCountry = 'auto'): string {
  const store = createEngineStore(new FakeTransport(), {
    initial: {
      link: 'up',
      config: { ...CONFIG, language, home_country: homeCountry },
      regions: REGIONS,
      status: statusOf(),
    },
  });
  return renderToStaticMarkup(
    <EngineStoreProvider store={store}>
      <LanguageProvider>
        <SettingsScreen />
      </LanguageProvider>
    </EngineStoreProvider>,
  );
}

/** The text a person reads: the markup without its tags. */
const text = (html: string) => html.replace(/<[^>]+>/g, ' ');

const ENGLISH = ['Protection', 'Kill switch', 'Split tunneling', 'Home country', 'Split rules'];

describe('Settings in the language of the setting', () => {
  it('English by default, with the language and home-country pickers', () => {
    const html = settingsIn('en');
    for (const word of ENGLISH) expect(text(html)).toContain(word);
    expect(html).toContain(`id="${HOME_COUNTRY_SETTING_ID}"`);
    expect(html).toMatch(/<option value="auto" selected="">Detect automatically<\/option>/);
    expect(html).toMatch(/<option value="auto"[^>]*>System language<\/option>/);
    expect(html).toContain('<option value="fa" lang="fa">فارسی</option>');
    expect(html).toContain('<option value="DE">Germany</option>');
  });

  it('Persian: Persian words and countries, no English ones', () => {
    const html = settingsIn('fa', 'IR');
    const words = text(html);
    for (const word of ['محافظت', 'کلید قطع اضطراری', 'تونل‌زنی جداگانه', 'کشور شما', 'زبان'])
      expect(words).toContain(word);
    for (const word of ENGLISH) expect(words).not.toContain(word);
    expect(html).toMatch(/<option value="IR" selected="">ایران<\/option>/);
    expect(html).toContain('<option value="auto">زبان سیستم</option>');
    // Each language by its own name, whatever the app's.
    expect(html).toContain('<option value="zh-TW" lang="zh-TW">繁體中文</option>');
  });

  it('Simplified Chinese: Chinese words and countries, sorted in Chinese, no English ones', () => {
    const html = settingsIn('zh-CN');
    const words = text(html);
    for (const word of ['保护', '网络锁', '分流', '所在国家', '自动检测', '语言'])
      expect(words).toContain(word);
    for (const word of ENGLISH) expect(words).not.toContain(word);
    expect(html).toContain('<option value="DE">德国</option>');
    const countries = [...html.matchAll(/<option value="([A-Z]{2})"[^>]*>([^<]*)</g)].map(
      (m) => m[2]!,
    );
    expect(countries.length).toBeGreaterThan(240);
    const collator = new Intl.Collator('zh-CN');
    expect([...countries].sort((a, b) => collator.compare(a, b))).toEqual(countries);
  });
});

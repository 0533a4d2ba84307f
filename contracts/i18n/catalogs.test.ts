// The catalogs: every language has every key of English's and no other, the plural forms its
// own rules need, the same placeholders and the same command lines and names; the translator
// counts in each language's forms and digits; and the English words the modules of words/ read
// from the catalog are the words they had.
import { describe, expect, it } from 'vitest';
import { BLOCKAGES, TRANSPORT_REASON_CODES } from '../transports.js';
import { CONFIG_EFFECT_WORDS, UNCHANGED_BUT_RECONNECTED_WORDS } from '../words/effects.js';
import { APP_ERROR_WORDS, ENGINE_DOWN_WORDS, NETCLI_ERROR_HINTS } from '../words/errors.js';
import { diagnosticCountWords } from '../words/diagnostics.js';
import { noticeTitle } from '../words/notices.js';
import { ENGINE_STATE_WORDS, NO_STATUS_WORDS } from '../words/states.js';
import { blockageText, transportReasonText } from '../words/transports.js';
import { LANGUAGES, type Language } from './languages.js';
import { CATALOGS, PLURAL_SUFFIXES, translator, type Catalog } from './translator.js';

/** A catalog's leaves by dotted key. */
function leaves(catalog: Catalog, prefix = ''): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const [k, v] of Object.entries(catalog)) {
    if (v !== null && typeof v === 'object' && !Array.isArray(v))
      for (const [kk, vv] of leaves(v, `${prefix}${k}.`)) out.set(kk, vv);
    else out.set(`${prefix}${k}`, v);
  }
  return out;
}

const PLURAL = new RegExp(`^(.*)_(${PLURAL_SUFFIXES.join('|')})$`);

/** Base key → the plural categories it is written in (none for a key that is not counted). */
function keysOf(catalog: Catalog): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const key of leaves(catalog).keys()) {
    const m = PLURAL.exec(key);
    const base = m ? m[1]! : key;
    const forms = out.get(base) ?? new Set<string>();
    if (m) forms.add(m[2]!);
    out.set(base, forms);
  }
  return out;
}

/** The forms of a key: itself, or its plural forms. */
function forms(catalog: Catalog, base: string): string[] {
  const all = leaves(catalog);
  return [...all.keys()]
    .filter((k) => k === base || PLURAL.exec(k)?.[1] === base)
    .map((k) => all.get(k) as string);
}

/** `{{name}}` and `{{count, number}}` as written (spaces aside), sorted. */
function placeholders(text: string): string[] {
  return [...text.matchAll(/\{\{([^}]*)\}\}/g)].map((m) => m[1]!.replace(/\s+/g, '')).sort();
}

/** What stays as it is in every language: netcli, its options and <placeholders>, and names. */
function verbatim(text: string): string[] {
  return (
    text.match(/netcli|--[a-z][\w-]*|<[^<>\s]+>|\b(?:Ferry|WireGuard|UDP|TCP|TLS|DNS|https)\b/g) ??
    []
  ).sort();
}

/** The netcli command lines in a translation: netcli and the Latin words after it. */
function commands(text: string): string[] {
  return text.match(/netcli(?: [a-z0-9<[-][^\s,;،؛，；。：、]*)*/g) ?? [];
}

const en = CATALOGS.en;
const englishLeaves = leaves(en);
const OTHERS = LANGUAGES.filter((l) => l !== 'en');

describe('the catalogs', () => {
  it('have every key of English and none it lacks, in the plural forms each language needs', () => {
    const english = keysOf(en);
    expect(english.get('states.glance.connected')).toEqual(new Set());
    expect(english.get('diagnostics.problems')).toEqual(new Set(['one', 'other']));
    for (const language of LANGUAGES) {
      const keys = keysOf(CATALOGS[language]);
      expect([...keys.keys()].sort(), language).toEqual([...english.keys()].sort());
      const categories = new Intl.PluralRules(language).resolvedOptions().pluralCategories;
      for (const [base, written] of keys) {
        const counted = english.get(base)!.size > 0;
        expect([...written].sort(), `${language} ${base}`).toEqual(
          counted ? [...categories].sort() : [],
        );
      }
    }
  });

  it('have words at every leaf', () => {
    for (const language of LANGUAGES)
      for (const [key, value] of leaves(CATALOGS[language])) {
        expect(typeof value, `${language} ${key}`).toBe('string');
        expect((value as string).trim(), `${language} ${key}`).not.toBe('');
      }
  });

  it('fill the same placeholders as English, and keep command lines and names as they are', () => {
    for (const base of keysOf(en).keys()) {
      const english = (englishLeaves.get(base) ?? englishLeaves.get(`${base}_other`)) as string;
      for (const language of OTHERS)
        for (const text of forms(CATALOGS[language], base)) {
          expect(placeholders(text), `${language} ${base}`).toEqual(placeholders(english));
          expect(verbatim(text), `${language} ${base}`).toEqual(verbatim(english));
          for (const command of commands(text))
            expect(english, `${language} ${base}: ${command}`).toContain(command);
        }
    }
  });

  it('count in plural forms and in numbers of the language', () => {
    const ru = translator('ru');
    expect([1, 2, 5, 21, 12, 1.5].map((count) => ru('diagnostics.problems', { count }))).toEqual([
      '1 проблема',
      '2 проблемы',
      '5 проблем',
      '21 проблема',
      '12 проблем',
      '1,5 проблемы',
    ]);
    expect(ru('diagnostics.warnings', { count: 3 })).toBe('3 предупреждения');
    expect(translator('en')('diagnostics.problems', { count: 1000 })).toBe('1,000 problems');
    expect(translator('zh-CN')('diagnostics.warnings', { count: 1 })).toBe('1 个警告');
    expect(translator('zh-TW')('diagnostics.warnings', { count: 2 })).toBe('2 個警告');
    expect(translator('fa')('diagnostics.problems', { count: 21 })).toBe('۲۱ مشکل');
  });

  it('translate each language in its own words, and fill the placeholders', () => {
    const said: Record<Language, string> = {
      en: 'Connected',
      'zh-CN': '已连接',
      'zh-TW': '已連線',
      ru: 'Подключено',
      fa: 'متصل',
    };
    for (const language of LANGUAGES) {
      expect(translator(language)('states.glance.connected')).toBe(said[language]);
      expect(translator(language)).toBe(translator(language));
    }
    expect(translator('zh-TW')('transports.reasons.chosen', { transport: 'TLS' })).toBe(
      '依混淆設定使用 TLS',
    );
    // i18next's console notice never shows: netcli's stdout is for its output (and `--json`).
    expect((globalThis as Record<string, unknown>).__i18next_supportNoticeShown).toBeUndefined();
    // A value is put in as it is: the faces escape (or print) the whole.
    expect(
      translator('en')('transports.reasons.fallback', { blockages: '<b>', transport: 'TCP' }),
    ).toBe('<b>: using TCP');
  });
});

describe('the English words, read from the catalog', () => {
  it('are the words they were', () => {
    expect(ENGINE_STATE_WORDS.connecting).toBe('Connecting…');
    expect(NO_STATUS_WORDS['engine-unavailable']).toBe('Engine not running');
    expect(noticeTitle('failover')).toBe('Moved to another server');
    expect(noticeTitle('data-cap-90')).toBe('Data cap');
    expect(CONFIG_EFFECT_WORDS.netcli.saved).toBe('saved; it takes effect at the next connect');
    expect(UNCHANGED_BUT_RECONNECTED_WORDS).toBe(
      'Nothing changed in the settings; the tunnel reconnected with them.',
    );
    expect(ENGINE_DOWN_WORDS).toBe(
      "Ferry's engine isn't answering. Make sure Ferry is running; this window reconnects on its own.",
    );
    expect(APP_ERROR_WORDS['device-limit']).toBe(
      'Your plan’s device limit is reached. Revoke a device you no longer use first (under Devices on the Account screen), then try again.',
    );
    expect(NETCLI_ERROR_HINTS['platform-unverified']).toEqual([
      'connect where it is verified: netcli connect --mode stream --platform <platform> --region <region>; netcli region list shows the platforms verified per region',
    ]);
    expect(blockageText('tcp-stalled')).toBe('TCP to the server stalled after a few kilobytes');
    expect(diagnosticCountWords('problems', 1)).toBe('1 problem');
    expect(diagnosticCountWords('warnings', 2)).toBe('2 warnings');
  });

  it('say why the tunnel runs over its transport', () => {
    expect(transportReasonText('tcp', 'chosen', [])).toBe(
      'using TCP, as the obfuscation setting says',
    );
    expect(transportReasonText('udp', 'first-choice', [])).toBe(
      'using UDP, the first the autopilot tried',
    );
    expect(transportReasonText('tls', 'remembered', [])).toBe(
      'TLS worked on this network before: using it',
    );
    expect(transportReasonText('tcp', 'only-offered', [])).toBe(
      'using TCP, the only transport the server offers here',
    );
    expect(transportReasonText('udp', 'retried', [])).toBe(
      'UDP gets through on this network again: using it',
    );
    expect(
      transportReasonText('tls', 'fallback', [
        { transport: 'udp', blockage: 'udp-unanswered' },
        { transport: 'tcp', blockage: 'tcp-reset' },
        { transport: 'tcp', blockage: 'tcp-reset' },
      ]),
    ).toBe('UDP looks blocked on this network; TCP to the server was reset: using TLS');
    expect(transportReasonText('tcp', 'fallback', [])).toBe(
      'the faster transports failed: using TCP',
    );
    for (const code of TRANSPORT_REASON_CODES)
      expect(transportReasonText('udp', code, [])).not.toMatch(/transports\.|\{\{/);
    for (const blockage of BLOCKAGES) expect(blockageText(blockage)).not.toMatch(/^transports\./);
  });
});

// netcli's language: the `language` setting when it names one, else the system's locale; read
// from an engine only when one already answers (never started for it); and every human line, the
// help and commander's own words in that language, while --json stays the same in every one.
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { translator } from '../contracts/index.js';
import { bytesText } from './format/account.js';
import { table } from './format/table.js';
import { signInPageHtml } from './sign-in-page.js';
import { latencyText, monthText } from './format/words.js';
import { fakeIo } from './io.fake.js';
import { engineLanguageSetting, netcliLanguage, socketInArguments } from './language.js';
import { CliHarness } from './testing/cli-harness.js';

describe("netcli's language", () => {
  it('is the setting when it names one, else the system’s (LC_ALL > LC_MESSAGES > LANG)', () => {
    expect(netcliLanguage(undefined, {})).toBe('en');
    expect(netcliLanguage('auto', { LANG: 'ru_RU.UTF-8' })).toBe('ru');
    expect(netcliLanguage(undefined, { LANG: 'fa_IR.UTF-8' })).toBe('fa');
    expect(netcliLanguage('auto', { LC_ALL: 'zh_TW.UTF-8', LANG: 'ru_RU.UTF-8' })).toBe('zh-TW');
    expect(netcliLanguage('auto', { LC_MESSAGES: 'zh_CN.UTF-8', LANG: 'en_US.UTF-8' })).toBe(
      'zh-CN',
    );
    expect(netcliLanguage('auto', { LANG: 'ru_RU.UTF-8', LANGUAGE: 'fa:en' })).toBe('fa');
    expect(netcliLanguage('auto', { LANG: 'de_DE.UTF-8' })).toBe('en');
    expect(netcliLanguage('zh-CN', { LANG: 'ru_RU.UTF-8' })).toBe('zh-CN');
    expect(netcliLanguage('en', { LC_ALL: 'fa_IR.UTF-8' })).toBe('en');
  });

  it('finds the socket the arguments name, before or after the command', () => {
    expect(socketInArguments(['status'])).toBeUndefined();
    expect(socketInArguments(['--socket', '/a.sock', 'status'])).toBe('/a.sock');
    expect(socketInArguments(['status', '--socket=/b.sock'])).toBe('/b.sock');
    expect(socketInArguments(['exec', '--via', 'direct', '--', 'x', '--socket', 'no'])).toBe(
      undefined,
    );
  });

  it('asks no engine that is not there (and starts none)', async () => {
    expect(await engineLanguageSetting(path.join('/nonexistent', 'ferry.sock'))).toBeUndefined();
    const io = fakeIo({ env: { LANG: 'ru_RU.UTF-8' }, isRoot: true });
    const { main } = await import('./main.js');
    expect(await main(['connect', '--help', '--socket', '/nonexistent/ferry.sock'], io)).toBe(0);
    expect(io.daemonStarts).toEqual([]);
    expect(io.stdout.text).toMatch(/^Использование: netcli connect \[options\]/);
  });
});

describe("netcli's numbers, sizes, months and tables in each language", () => {
  it('writes them in the language’s own forms (English as before)', () => {
    expect(bytesText(1536 * 1024 * 1024)).toBe('1.5 GB');
    expect(bytesText(1536 * 1024 * 1024, translator('ru'))).toBe('1,5 ГБ');
    expect(bytesText(1536 * 1024 * 1024, translator('fa'))).toBe('۱٫۵ گیگابایت');
    expect(latencyText('12ms', translator('en'))).toBe('12ms');
    expect(latencyText('12ms', translator('zh-CN'))).toBe('12 毫秒');
    expect(latencyText('12ms', translator('fa'))).toBe('۱۲ میلی‌ثانیه');
    expect(monthText('2026-05', translator('en'))).toBe('2026-05');
    expect(monthText('2026-05', translator('ru'))).toBe('май 2026 г.');
    expect(monthText('2026-05', translator('zh-TW'))).toBe('2026年5月');
  });

  it('writes the browser’s sign-in page in the language, right to left in Persian', () => {
    const form = { action: 'http://127.9.8.7:4242/session', token: 'x' };
    expect(signInPageHtml(form)).toContain(
      '<p>Opening Ferry… If nothing happens, <button type="submit">open Ferry</button>.</p>',
    );
    const fa = signInPageHtml(form, 'fa');
    expect(fa).toContain('<html lang="fa" dir="rtl">');
    expect(fa).toContain('<button type="submit">Ferry را باز کنید</button>');
    expect(signInPageHtml(form, 'zh-CN')).toContain('<title>正在打开 Ferry…</title>');
  });

  it('pads table columns by the width a terminal gives Chinese characters', () => {
    expect(table(['地区', 'X'], [['global', 'a']])).toEqual(['地区    X', 'global  a']);
  });
});

describe('netcli in the languages', () => {
  const cli = new CliHarness('ferry-cli-lang-');
  const { ok, run } = cli;
  beforeEach(() => cli.startSignedIn());
  afterEach(() => cli.close());

  const inLocale = (LANG: string, ...args: string[]) => run(args, fakeIo({ env: { LANG } }));

  it('LANG=ru_RU.UTF-8: status and connect --help in Russian, commands and options as they are', async () => {
    const status = await inLocale('ru_RU.UTF-8', 'status');
    expect(status.code).toBe(0);
    expect(status.stdout).toBe('Отключено\n');

    const help = await inLocale('ru_RU.UTF-8', 'connect', '--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Использование: netcli connect \[options\]\n/);
    expect(help.stdout).toMatch(/^подключиться; завершается, когда трафик пошёл/m);
    expect(help.stdout).toMatch(/^Параметры:$/m);
    expect(help.stdout).toMatch(/--region <region> +auto, id региона или имя правила региона/);
    expect(help.stdout).toMatch(/--json +вывести результат в stdout в стабильном формате JSON/);
    expect(help.stdout).toMatch(/-h, --help +показать справку по команде/);
    expect(help.stdout).not.toMatch(/Usage:|Options:|display help/);

    const top = await inLocale('ru_RU.UTF-8', '--help');
    expect(top.stdout).toMatch(/^Команды:$/m);
    expect(top.stdout).toMatch(/^ {2}status \[options\] +подключение: состояние, регион,/m);

    await ok('connect');
    const connected = await inLocale('ru_RU.UTF-8', 'status');
    expect(connected.stdout).toMatch(/^Подключено к .+ по WireGuard/);
    expect(connected.stdout).toMatch(/^Задержка /m);
    expect(connected.stdout).toMatch(/Аварийный выключатель (включён|выключен)/);
  });

  it('says commander’s usage errors in the language', async () => {
    const r = await inLocale('ru_RU.UTF-8', 'status', '--colour');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^netcli: неизвестный параметр «--colour»/);
    expect(r.stderr).toContain('(добавьте --help, чтобы увидеть справку)');
    const missing = await inLocale('zh_CN.UTF-8', 'login');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^netcli: 缺少必需的参数“number”/);
    // English as commander writes it.
    const english = await inLocale('C', 'status', '--colour');
    expect(english.stderr).toMatch(/^netcli: unknown option '--colour'/);
  });

  it('says failures and their hints in the language', async () => {
    await cli.stopHost();
    const r = await inLocale('ru_RU.UTF-8', 'status');
    expect(r.code).toBe(3);
    expect(r.stderr).toBe(
      `netcli: на ${cli.socketPath} не отвечает ни один движок\n` +
        `подсказка: движок запущен? Запустите его: sudo netcli daemon --socket ${cli.socketPath}\n`,
    );
  });

  it('`config set language zh-CN` switches netcli to Chinese whatever the system’s', async () => {
    await ok('config', 'set', 'language', 'zh-CN');
    expect(cli.engine.config.language).toBe('zh-CN');
    const status = await inLocale('ru_RU.UTF-8', 'status');
    expect(status.stdout).toBe('未连接\n');
    const help = await cli.netcli('status', '--help');
    expect(help.stdout).toMatch(/^用法： netcli status \[options\]/);
    expect(help.stdout).toContain('连接情况：状态、地区、节点、延迟');
    const regions = await cli.netcli('region', 'list');
    expect(regions.stdout).toMatch(/^地区 +名称 +区域 +负载/);

    // Back to auto: the system's again.
    await ok('config', 'set', 'language', 'auto');
    expect((await inLocale('ru_RU.UTF-8', 'status')).stdout).toBe('Отключено\n');
    expect((await cli.netcli('status')).stdout).toBe('Disconnected\n');
  });

  it('refuses a language without a catalog, listing the ones there are', async () => {
    const r = await run(['config', 'set', 'language', 'de']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^hint: language: one of auto, en, zh-CN, zh-TW, ru, fa$/m);
    const ru = await inLocale('ru_RU.UTF-8', 'config', 'set', 'language', 'de');
    expect(ru.stderr).toMatch(
      /^подсказка: language: одно из значений auto, en, zh-CN, zh-TW, ru, fa$/m,
    );
    expect(cli.engine.config.language).toBe('auto');
  });

  it('prints the same --json in every language', async () => {
    await ok('connect');
    const commands = [
      ['status'],
      ['region', 'list'],
      ['config', 'list'],
      ['account'],
      ['devices'],
      ['split', 'list'],
      ['service', 'list'],
    ];
    for (const args of commands) {
      const english = await run([...args, '--json']);
      expect(english.code, args.join(' ')).toBe(0);
      for (const LANG of ['ru_RU.UTF-8', 'zh_CN.UTF-8', 'zh_TW.UTF-8', 'fa_IR.UTF-8']) {
        const other = await inLocale(LANG, ...args, '--json');
        expect(normalise(other.stdout), `${LANG} ${args.join(' ')}`).toBe(
          normalise(english.stdout),
        );
      }
    }
  });

  it('LANG=fa_IR.UTF-8: Persian words, Persian digits, commands and options verbatim', async () => {
    const help = await inLocale('fa_IR.UTF-8', 'connect', '--help');
    expect(help.stdout).toMatch(/^طرز استفاده: netcli connect \[options\]/);
    expect(help.stdout).toMatch(/--mode <mode> +secure یا stream/);
    await cli.stopHost();
    const down = await inLocale('fa_IR.UTF-8', 'status');
    expect(down.stderr).toContain(`sudo netcli daemon --socket ${cli.socketPath}`);
    expect(down.stderr).toMatch(/^راهنمایی: آیا موتور در حال اجراست؟/m);
  });

  it('zh-TW: Traditional characters with Taiwan usage', async () => {
    const r = await inLocale('zh_TW.UTF-8', 'status');
    expect(r.stdout).toBe('未連線\n');
    const help = await inLocale('zh_TW.UTF-8', 'connect', '--help');
    expect(help.stdout).toMatch(/^用法： netcli connect/);
    expect(help.stdout).toContain('連線；流量開始通過後返回');
  });
});

/** A --json answer without what changes between two calls (times, latencies, counters). */
function normalise(text: string): string {
  return text
    .replace(/"\d{4}-\d\d-\d\dT[^"]*"/g, '"<time>"')
    .replace(/"latency":\s*"[^"]*"/g, '"latency":"<x>"')
    .replace(/"(bytes|rx_bytes|tx_bytes|avg_ms|jitter_ms|uptime_s)":\s*[\d.]+/g, '"$1":0');
}

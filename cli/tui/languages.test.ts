// The terminal UI in the person's language: the system's (LANG) while the `language` setting is
// auto, the setting's once it names one, switched live when it changes (here, in netcli or in
// the app); numbers in the language's digits; columns measured in cells (CJK takes two).
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Instance } from 'ink';
import { FakeEngine } from '../../engine/engine.fake.js';
import type { Language } from '../../contracts/i18n/languages.js';
import { describeFailure } from '../errors.js';
import { TuiController } from './controller.js';
import { EngineClientFake } from './engine-client.fake.js';
import { fitEnd, isolateLatin, padEnd, padStart, textWidth } from './language.js';
import { mountTerminalUi } from './run.js';
import { fakeTerminal, type FakeTerminal } from './terminal.fake.js';

describe('terminal UI in the person’s language', () => {
  let engine: FakeEngine;
  let controller: TuiController;
  let terminal: FakeTerminal;
  let app: Instance | undefined;
  const screen = () => terminal.screen.lastFrame();
  const sees = (text: string | RegExp) =>
    vi.waitFor(() => expect(screen()).toMatch(text), { timeout: 5_000 });

  async function open(system: Language): Promise<void> {
    engine = new FakeEngine();
    await engine.init({ endpoint: 'https://ferry.example', protocol: 'wireguard' });
    await engine.createAccount({ device_name: 'laptop' });
    controller = new TuiController({
      client: new EngineClientFake(engine).client,
      describe: (e) => describeFailure(e, '/run/ferry/engine.sock'),
      openGraphical: async () => ({ lines: [] }),
      backoff: { delayMs: () => 20 },
      system,
      configPollMs: 50,
    });
    terminal = fakeTerminal();
    controller.start();
    app = mountTerminalUi(controller, terminal, { debug: true });
  }

  afterEach(async () => {
    app?.unmount();
    await controller.stop();
  });

  it('speaks the system’s language (zh-CN): header, settings, regions and the keys in Chinese', async () => {
    await open('zh-CN');
    await sees('● 未连接');
    await sees('Asia East');
    expect(screen()).toContain('延迟 -');
    expect(screen()).toContain('网络锁：开（下次连接起生效） · 分流：自动 · DNS auto');
    expect(screen()).toContain(
      'c 连接  d 断开  ↑↓ 地区  ⏎ 切换  k 网络锁  s 分流  u 规则  n dns  r 测延迟  g 图形界面  q 退出',
    );
    expect(screen()).toMatch(/^ {2}地区 +ID、区域 +延迟 +负载$/m);
    expect(screen()).toMatch(/Europe West .*不在你的套餐内$/m);

    terminal.keyboard.press('c');
    await sees(/● 已连接 {2}Global · 节点 zrh-1 · WireGuard/);
    await sees(/^延迟 12 毫秒 {2}▄$/m);
    await sees('传输方式：使用 UDP');
    expect(screen()).toMatch(/^已连接到 global（节点 zrh-1），使用 WireGuard/m);
    expect(screen()).toMatch(/^ {2}出口 IP \S+ -> \S+$/m);
    expect(screen()).toMatch(/Global .*12 毫秒 .*● 已连接$/m);
  });

  it('follows the language setting live: English, then Russian when it is set elsewhere', async () => {
    await open('en');
    await sees('● Disconnected');
    await sees('c connect  d disconnect');
    await engine.setConfigKey('language', 'ru');
    await sees('● Отключено');
    expect(screen()).toContain('Аварийный выключатель: вкл. (сработает со следующего подключения)');
    expect(screen()).toContain('c подключить  d отключить  ↑↓ регион');
    expect(screen()).not.toContain('Disconnected');
    await engine.setConfigKey('language', 'auto');
    await sees('● Disconnected');
  });

  it('Persian: the words in Persian, the numbers in Persian digits, keys and commands as they are, Latin runs isolated', async () => {
    await open('fa');
    // What the screen reads as, the isolates aside (they take no cell).
    const read = () => screen().replace(/[\u2066\u2069]/g, '');
    const reads = (text: string | RegExp) =>
      vi.waitFor(() => expect(read()).toMatch(text), { timeout: 5_000 });
    await reads('● قطع');
    terminal.keyboard.press('c');
    await reads(/● متصل {2}Global · گره zrh-1 · WireGuard/);
    await reads('تأخیر ۱۲ میلی‌ثانیه');
    expect(read()).toContain('c اتصال  d قطع');
    expect(read()).toMatch(/۴۰٪/);
    // The keys and names in left-to-right isolates, the Persian words outside them.
    expect(screen()).toContain('\u2066c\u2069 اتصال  \u2066d\u2069 قطع');
    expect(screen()).toContain(
      '\u2066Global\u2069 · گره \u2066zrh-1\u2069 · \u2066WireGuard\u2069',
    );
  });

  it('isolates the Latin runs of a Persian line, its sentence marks outside', () => {
    expect(isolateLatin('راه‌اندازی نشده: netcli init --endpoint <url>')).toBe(
      'راه‌اندازی نشده: \u2066netcli init --endpoint <url>\u2069',
    );
    expect(isolateLatin('گره zrh-1 (Tokyo).')).toBe('گره \u2066zrh-1\u2069 (\u2066Tokyo\u2069).');
    expect(isolateLatin('تأخیر ۱۲')).toBe('تأخیر ۱۲');
  });

  it('measures columns in cells: a Chinese character takes two', () => {
    expect(textWidth('地区')).toBe(4);
    expect(textWidth('میلی‌ثانیه')).toBe(9);
    expect(padEnd('地区', 6)).toBe('地区  ');
    expect(padEnd('北京东城区', 6)).toBe('北京东');
    expect(padStart('延迟', 8)).toBe('    延迟');
    expect(fitEnd('/opt/程序/运行', 8)).toBe('…序/运行');
  });
});

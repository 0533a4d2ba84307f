// The tray with a fake Tray and the in-memory engine hosted behind the port: what it shows for
// each state (tooltip, menu, which actions are on), that it follows the engine's events, and
// that its connect and disconnect act on the engine.
import { describe, expect, it, vi } from 'vitest';
import { idleStatus, type LocalStatus } from '../../contracts/index.js';
import { FakeEngine } from '../../engine/engine.fake.js';
import { hostedPort, unavailablePort } from './engine-port.js';
import { translator } from '../../contracts/index.js';
import { startTray, trayLanguage, trayView, type TrayItem, type TraySeam } from './tray.js';
import { trayIconPng, trayLook, trayPixels, TRAY_LOOKS, type TrayLook } from './tray-icons.js';

class FakeTray implements TraySeam {
  tooltip = '';
  items: TrayItem[] = [];
  destroyed = false;

  setToolTip(text: string): void {
    this.tooltip = text;
  }

  setMenu(items: TrayItem[]): void {
    this.items = items;
  }

  looks: TrayLook[] = [];
  setLook(look: TrayLook): void {
    this.looks.push(look);
  }

  destroy(): void {
    this.destroyed = true;
  }

  item(id: string) {
    const item = this.items.find((i) => i.type === 'normal' && i.id === id);
    if (!item || item.type !== 'normal') throw new Error(`no menu item ${id}`);
    return item;
  }
}

const noop = { connect() {}, disconnect() {}, showWindow() {}, quit() {} };

function status(over: Partial<LocalStatus>): LocalStatus {
  return { ...idleStatus(true, true), ...over };
}

async function settle(check: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
}

describe('the tray’s view', () => {
  const enabled = (items: TrayItem[]) =>
    Object.fromEntries(items.flatMap((i) => (i.type === 'normal' ? [[i.id, i.enabled]] : [])));

  it('shows the state, the region and the latency', () => {
    const view = trayView(
      status({ status: 'connected', region: 'asia-east', latency: '12ms' }),
      undefined,
      noop,
    );
    expect(view.tooltip).toBe('Ferry: Connected · asia-east · 12 ms');
    expect(view.items[0]).toMatchObject({ label: 'Connected · asia-east · 12 ms', enabled: false });
    expect(enabled(view.items)).toEqual({
      state: false,
      connect: false,
      disconnect: true,
      show: true,
      quit: true,
    });
  });

  it('offers connect when disconnected, and both (with the reason) in error', () => {
    expect(enabled(trayView(status({}), undefined, noop).items)).toMatchObject({
      connect: true,
      disconnect: false,
    });
    const error = trayView(
      status({
        status: 'error',
        error: { code: 'node-unreachable', message: 'the node did not answer' },
      }),
      undefined,
      noop,
    );
    expect(error.tooltip).toBe('Ferry: Error (the node did not answer)');
    expect(enabled(error.items)).toMatchObject({ connect: true, disconnect: true });
    expect(
      enabled(trayView(status({ status: 'connecting' }), undefined, noop).items),
    ).toMatchObject({
      connect: false,
      disconnect: true,
    });
  });

  it('says when there is no engine, and offers neither', () => {
    const view = trayView(undefined, { code: 'engine-unavailable', message: 'start it' }, noop);
    expect(view.tooltip).toBe('Ferry: Engine not running (start it)');
    expect(enabled(view.items)).toMatchObject({ connect: false, disconnect: false });
  });
});

describe('the tray', () => {
  it('follows the engine, and connects and disconnects it', async () => {
    const engine = new FakeEngine();
    const port = hostedPort(engine);
    const tray = new FakeTray();
    const actions = { showWindow: vi.fn(), quit: vi.fn() };
    const controller = startTray(tray, port, actions);
    await settle(() => tray.tooltip === 'Ferry: Disconnected');
    expect(tray.tooltip).toBe('Ferry: Disconnected');

    // A connect refused by the engine shows why.
    tray.item('connect').click!();
    await settle(() => tray.tooltip.includes('configured'));
    expect(tray.tooltip).toBe('Ferry: Disconnected (no control plane is configured)');

    await engine.init({ endpoint: 'https://ferry.example' });
    await engine.createAccount({});
    tray.item('connect').click!();
    await settle(() => tray.tooltip.startsWith('Ferry: Connected'));
    expect(tray.tooltip).toBe('Ferry: Connected · Global · 12 ms');
    expect(tray.looks.at(-1)).toBe('connected');
    expect(engine.status().status).toBe('connected');

    // A change made elsewhere (netcli, the window) shows through the events.
    await engine.disconnect();
    expect(tray.tooltip).toBe('Ferry: Disconnected');
    await engine.connect({});
    tray.item('disconnect').click!();
    await settle(() => engine.status().status === 'disconnected');
    await settle(() => tray.tooltip === 'Ferry: Disconnected');
    expect(tray.tooltip).toBe('Ferry: Disconnected');

    tray.item('show').click!();
    tray.item('quit').click!();
    expect(actions.showWindow).toHaveBeenCalledTimes(1);
    expect(actions.quit).toHaveBeenCalledTimes(1);

    controller.dispose();
    expect(tray.destroyed).toBe(true);
    expect(engine.listenerCount).toBe(0);
    await port.close();
  });

  it('says when the engine is not running', async () => {
    const tray = new FakeTray();
    startTray(tray, unavailablePort('Start it with: sudo systemctl start ferry-engine.'), noop);
    await settle(() => tray.tooltip.includes('Engine not running'));
    expect(tray.tooltip).toBe(
      'Ferry: Engine not running (Start it with: sudo systemctl start ferry-engine.)',
    );
  });
});

describe('the tray’s look and words', () => {
  it('shows the state by the icon’s look', () => {
    expect(trayView(status({}), undefined, noop).look).toBe('disconnected');
    expect(trayView(status({ status: 'connecting' }), undefined, noop).look).toBe('connecting');
    expect(trayView(status({ status: 'reconnecting' }), undefined, noop).look).toBe('connecting');
    expect(trayView(status({ status: 'connected' }), undefined, noop).look).toBe('connected');
    expect(trayView(status({ status: 'error' }), undefined, noop).look).toBe('error');
    expect(
      trayView(undefined, { code: 'engine-unavailable', message: 'start it' }, noop).look,
    ).toBe('error');
    expect(trayView(undefined, undefined, noop).look).toBe('disconnected');
    expect(trayLook('disconnecting')).toBe('connecting');
  });

  it('draws each look as its own small PNG, by shape as well as by colour', () => {
    const pngs = TRAY_LOOKS.map((look) => trayIconPng(look));
    for (const png of pngs) {
      expect(png.subarray(0, 8)).toEqual(
        Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      );
      // IHDR: 32×32, 8 bits, RGBA.
      expect(png.readUInt32BE(16)).toBe(32);
      expect(png.readUInt32BE(20)).toBe(32);
      expect(png[24]).toBe(8);
      expect(png[25]).toBe(6);
    }
    expect(new Set(pngs.map((p) => p.toString('base64'))).size).toBe(4);
    expect(trayIconPng('connected', 64).readUInt32BE(16)).toBe(64);
    // Shapes: the disconnected ring is empty in the middle, the connected disc is not.
    const alphaAt = (look: TrayLook, x: number, y: number) =>
      trayPixels(look)[(y * 32 + x) * 4 + 3];
    expect(alphaAt('disconnected', 16, 16)).toBe(0);
    expect(alphaAt('connected', 16, 8)).toBe(255);
    expect(alphaAt('error', 0, 0)).toBe(0);
  });

  it('speaks the configured language, or the app’s locale when it is auto', () => {
    expect(trayLanguage('auto', 'ru-RU')).toBe('ru');
    expect(trayLanguage(undefined, 'zh-TW')).toBe('zh-TW');
    expect(trayLanguage('fa', 'en-US')).toBe('fa');
    expect(trayLanguage('auto', 'de-DE')).toBe('en');
    const regions = [{ id: 'asia-east', name: 'Asia East (Tokyo)', country: 'JP' }];
    const ru = trayView(
      status({ status: 'connected', region: 'asia-east', latency: '12ms' }),
      undefined,
      noop,
      { t: translator('ru'), language: 'ru', regions },
    );
    expect(ru.tooltip).toBe('Ferry: Подключено · Tokyo, Япония · 12 мс');
    expect(ru.items.flatMap((i) => (i.type === 'normal' ? [i.label] : []))).toEqual([
      'Подключено · Tokyo, Япония · 12 мс',
      'Подключиться',
      'Отключиться',
      'Открыть Ferry',
      'Выйти из Ferry',
    ]);
    const fa = trayView(status({}), undefined, noop, { t: translator('fa'), language: 'fa' });
    expect(fa.items.find((i) => i.type === 'normal' && i.id === 'connect')).toMatchObject({
      label: 'اتصال',
    });
  });

  it('follows the language setting the engine holds', async () => {
    const engine = new FakeEngine();
    await engine.patchConfig({ language: 'zh-CN' });
    const port = hostedPort(engine);
    const tray = new FakeTray();
    const controller = startTray(tray, port, noop, { locale: 'en-US' });
    await settle(() => tray.tooltip.startsWith('Ferry：'));
    expect(tray.item('connect').label).toBe('连接');
    expect(tray.looks).toEqual(['disconnected']);
    await engine.patchConfig({ language: 'auto' });
    await controller.refresh();
    expect(tray.item('connect').label).toBe('Connect');
    controller.dispose();
    await port.close();
  });
});

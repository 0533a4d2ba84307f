// The tray with a fake Tray and the in-memory engine hosted behind the port: what it shows for
// each state (tooltip, menu, which actions are on), that it follows the engine's events, and
// that its connect and disconnect act on the engine.
import { describe, expect, it, vi } from 'vitest';
import { idleStatus, type LocalStatus } from '../../contracts/index.js';
import { FakeEngine } from '../../engine/engine.fake.js';
import { hostedPort, unavailablePort } from './engine-port.js';
import { startTray, trayView, type TrayItem, type TraySeam } from './tray.js';

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
    expect(view.tooltip).toBe('Ferry: Connected · asia-east · 12ms');
    expect(view.items[0]).toMatchObject({ label: 'Connected · asia-east · 12ms', enabled: false });
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
    expect(tray.tooltip).toBe('Ferry: Connected · global · 12ms');
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

// The preload's bridge with a fake contextBridge and ipcRenderer: only `ferry` is exposed, and
// only invoke and onEvent on it; a call is checked before it is sent and its result after; an
// event is checked before a listener sees it, and the IPC event itself never reaches the page.
import { describe, expect, it, vi } from 'vitest';
import { idleStatus } from '../../contracts/local-api.js';
import type { FaceEvent, FerryBridge } from '../../contracts/ipc.js';
import { exposeFerryBridge, type IpcRendererSeam } from './bridge.js';

type Listener = (event: unknown, ...args: unknown[]) => void;

function fakeIpc(
  answer: (channel: string, payload: unknown) => unknown = () => ({ ok: true, value: null }),
) {
  const listeners = new Map<string, Set<Listener>>();
  const ipc = {
    invoke: vi.fn(async (channel: string, payload: unknown) => answer(channel, payload)),
    on: vi.fn((channel: string, l: Listener) => {
      if (!listeners.has(channel)) listeners.set(channel, new Set());
      listeners.get(channel)!.add(l);
    }),
    removeListener: vi.fn((channel: string, l: Listener) => {
      listeners.get(channel)?.delete(l);
    }),
    /** What main's webContents.send(channel, data) does on this side. */
    push(channel: string, data: unknown) {
      for (const l of listeners.get(channel) ?? [])
        l({ sender: 'the ipcRenderer', ports: [] }, data);
    },
  };
  return ipc satisfies IpcRendererSeam;
}

function expose(ipc: IpcRendererSeam): { exposed: Map<string, unknown>; ferry: FerryBridge } {
  const exposed = new Map<string, unknown>();
  exposeFerryBridge({ exposeInMainWorld: (key, api) => exposed.set(key, api) }, ipc);
  return { exposed, ferry: exposed.get('ferry') as FerryBridge };
}

describe('the preload', () => {
  it('exposes `ferry` only, with invoke and onEvent only', () => {
    const { exposed, ferry } = expose(fakeIpc());
    expect([...exposed.keys()]).toEqual(['ferry']);
    expect(Object.keys(ferry).sort()).toEqual(['invoke', 'onEvent']);
    expect(Object.isFrozen(ferry)).toBe(true);
    // Nothing of Electron's or Node's hangs off it.
    for (const value of Object.values(ferry)) expect(typeof value).toBe('function');
    expect(JSON.stringify(Object.getOwnPropertyNames(ferry))).not.toMatch(/ipc|require|process/);
  });

  it('sends a valid call on its channel, with the payload as given', async () => {
    const ipc = fakeIpc(() => ({ ok: true, value: idleStatus(true, true) }));
    const { ferry } = expose(ipc);
    const result = await ferry.invoke('connect', {
      body: { region: 'asia-east', protocol: 'WireGuard' },
    });
    expect(ipc.invoke).toHaveBeenCalledWith('ferry:connect', {
      body: { region: 'asia-east', protocol: 'WireGuard' },
    });
    expect(result).toMatchObject({ ok: true, value: { status: 'disconnected' } });
    // A call without a payload sends an empty one.
    await (ferry.invoke as (id: string) => Promise<unknown>)('status');
    expect(ipc.invoke).toHaveBeenLastCalledWith('ferry:status', {});
  });

  it('refuses a bad payload or an unknown call before sending anything', async () => {
    const ipc = fakeIpc();
    const { ferry } = expose(ipc);
    const invoke = ferry.invoke as (id: string, payload: unknown) => Promise<any>;
    const bad = await invoke('connect', { body: { protocol: 'openvpn', colour: 'blue' } });
    expect(bad).toMatchObject({ ok: false, error: { code: 'validation-failed' } });
    const fields = (bad.error.errors as { field: string; allowed?: string[] }[])
      .map((e) => e.field)
      .sort();
    expect(fields).toEqual(['body.colour', 'body.protocol']);
    expect(await invoke('setConfigKey', { params: { key: 'dns' } })).toMatchObject({
      ok: false,
      error: { code: 'validation-failed', errors: [{ field: 'body' }] },
    });
    expect(await invoke('status', 'please')).toMatchObject({
      ok: false,
      error: { code: 'validation-failed' },
    });
    // The routes netcli alone uses, and names that are no route at all.
    for (const id of ['events', 'openGui', 'constructor', '__proto__', 'toString'])
      expect(await invoke(id, {}), id).toMatchObject({ ok: false, error: { code: 'not-found' } });
    expect(ipc.invoke).not.toHaveBeenCalled();
  });

  it('checks the result’s shape on the way back', async () => {
    const answers: unknown[] = [
      { ok: false, error: { code: 'not-signed-in', message: 'this device is not signed in' } },
      { ok: 'yes', value: 1 },
      { ok: false, error: { message: 'no code' } },
      { ok: true, value: 1, stack: 'Error: at main.ts:1' },
      undefined,
    ];
    const ipc = fakeIpc(() => answers.shift());
    const { ferry } = expose(ipc);
    expect(await ferry.invoke('status', {})).toEqual({
      ok: false,
      error: { code: 'not-signed-in', message: 'this device is not signed in' },
    });
    for (let i = 0; i < 4; i++)
      expect(await ferry.invoke('status', {})).toMatchObject({
        ok: false,
        error: { code: 'bad-response' },
      });
  });

  it('answers `unavailable` when main does not answer', async () => {
    const ipc = fakeIpc(() => {
      throw new Error("No handler registered for 'ferry:status'");
    });
    const { ferry } = expose(ipc);
    expect(await ferry.invoke('status', {})).toMatchObject({
      ok: false,
      error: { code: 'unavailable' },
    });
  });

  it('passes valid events to listeners (only the event), drops others, and unsubscribes', () => {
    const ipc = fakeIpc();
    const { ferry } = expose(ipc);
    const seen: FaceEvent[] = [];
    const seenArgs: unknown[][] = [];
    const unsubscribe = ferry.onEvent((e, ...rest: unknown[]) => {
      seen.push(e);
      seenArgs.push(rest);
    });
    const notice = {
      type: 'notice',
      notice: { code: 'key-rotated', message: 'the device key was rotated' },
    };
    ipc.push('ferry:event', notice);
    ipc.push('ferry:event', { type: 'status', status: { status: 'sideways' } });
    ipc.push('ferry:event', { type: 'gossip' });
    ipc.push('ferry:event', { type: 'status', status: idleStatus(false, false) });
    expect(seen).toEqual([notice, { type: 'status', status: idleStatus(false, false) }]);
    expect(seenArgs).toEqual([[], []]);
    unsubscribe();
    ipc.push('ferry:event', notice);
    expect(seen).toHaveLength(2);
    expect(ipc.removeListener).toHaveBeenCalledTimes(1);
  });
});

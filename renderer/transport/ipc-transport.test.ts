// IpcTransport over a fake preload bridge, and the choice between IPC and HTTP.
import { describe, expect, it } from 'vitest';
import type { FaceEvent, FaceResult, FerryBridge } from '../../contracts/ipc.js';
import { idleStatus } from '../../contracts/local-api.js';
import { FaceCallError } from './face-call-error.js';
import { HttpTransport } from './http-transport.js';
import { IpcTransport } from './ipc-transport.js';
import { pickTransport } from './pick-transport.js';

function fakeBridge(answer: (id: string, payload: unknown) => Promise<FaceResult<unknown>>) {
  const listeners = new Set<(e: FaceEvent) => void>();
  const invoked: { id: string; payload: unknown }[] = [];
  const bridge: FerryBridge = {
    invoke: ((id: string, payload: unknown) => {
      invoked.push({ id, payload });
      return answer(id, payload);
    }) as FerryBridge['invoke'],
    onEvent(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  return { bridge, invoked, listeners };
}

describe('IpcTransport', () => {
  it('hands the payload to the bridge and returns the value of {ok: true}', async () => {
    const status = idleStatus(true, true);
    const { bridge, invoked } = fakeBridge(async () => ({ ok: true, value: status }));
    const t = new IpcTransport(bridge);
    expect(await t.call('status', {})).toEqual(status);
    await t.call('login', { body: { account_number: '1234 5678 1234 5678' } });
    expect(invoked[1]).toEqual({
      id: 'login',
      payload: { body: { account_number: '1234 5678 1234 5678' } },
    });
  });

  it('rejects with the error of {ok: false}, its code and field errors kept', async () => {
    const error = {
      code: 'config-invalid' as const,
      message: 'dns must be auto or an address',
      errors: [{ field: 'dns', message: 'dns must be auto or an address' }],
    };
    const { bridge } = fakeBridge(async () => ({ ok: false, error }));
    const e = await new IpcTransport(bridge)
      .call('patchConfig', { body: { dns: '1.1.1.1' } })
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(FaceCallError);
    expect((e as FaceCallError).toFaceError()).toEqual(error);
  });

  it('turns a broken bridge into unreachable', async () => {
    const { bridge } = fakeBridge(() => Promise.reject(new Error('main went away')));
    await expect(new IpcTransport(bridge).call('status', {})).rejects.toMatchObject({
      code: 'unreachable',
    });
  });

  it('forwards events, says up, and stops on unsubscribe', async () => {
    const { bridge, listeners } = fakeBridge(async () => ({ ok: true, value: undefined }));
    const got: (FaceEvent | string)[] = [];
    const stop = new IpcTransport(bridge).subscribe({
      event: (e) => void got.push(e),
      connection: (s) => void got.push(s),
    });
    const notice: FaceEvent = { type: 'notice', notice: { code: 'failover', message: 'moved' } };
    for (const l of listeners) l(notice);
    await Promise.resolve();
    expect(got).toEqual([notice, 'up']);
    stop();
    expect(listeners.size).toBe(0);
  });
});

describe('pickTransport', () => {
  it('takes IPC inside the app', () => {
    const { bridge } = fakeBridge(async () => ({ ok: true, value: undefined }));
    const t = pickTransport({
      bridge,
      origin: 'http://127.0.0.1:1',
      fetch: () => fail(),
      // The app's window has no page key to take.
      pageKey: () => fail(),
    });
    expect(t).toBeInstanceOf(IpcTransport);
  });

  it('takes HTTP on the page’s origin, sending the session cookie and the page key', async () => {
    const seen: { url: string; credentials: RequestCredentials | undefined; key: string | null }[] =
      [];
    const t = pickTransport({
      bridge: undefined,
      origin: 'http://127.0.0.1:4711',
      pageKey: () => 'KEY',
      fetch: async (url, init) => {
        seen.push({
          url,
          credentials: init.credentials,
          key: new Headers(init.headers).get('x-ferry-page'),
        });
        return new Response(JSON.stringify(idleStatus(false, false)), {
          headers: { 'content-type': 'application/json' },
        });
      },
    });
    expect(t).toBeInstanceOf(HttpTransport);
    await t.call('status', {});
    expect(seen).toEqual([
      { url: 'http://127.0.0.1:4711/api/v1/status', credentials: 'same-origin', key: 'KEY' },
    ]);
  });
});

function fail(): never {
  throw new Error('not expected');
}

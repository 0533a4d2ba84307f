// The local API's client waits as long as its route table says: the long routes (tunnels,
// probes, checks) their own time, every other call the client's default, a call's own over both.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from './api-error.js';
import { LOCAL_TIMEOUTS_MS, createLocalClient, localRoutes } from './local-api.js';
import { DEFAULT_TIMEOUT_MS, type FetchLike } from './route-client.js';

/** A host that never answers: each request ends only when its signal aborts. */
const silent: FetchLike = (_url, init) =>
  new Promise<Response>((_, reject) =>
    init.signal?.addEventListener('abort', () => reject(new Error('aborted'))),
  );

/** How a call ended, and after how many (fake) milliseconds. */
async function endOf(call: Promise<unknown>): Promise<{ code: string; afterMs: number }> {
  const start = Date.now();
  const ended = call.then(
    () => ({ code: 'answered', afterMs: Date.now() - start }),
    (e: unknown) => ({
      code: e instanceof ApiError ? e.code : String(e),
      afterMs: Date.now() - start,
    }),
  );
  await vi.runAllTimersAsync();
  return ended;
}

describe('the local routes’ time limits', () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  it('give the calls that wait for a tunnel, probes or checks their own time', () => {
    const limits = Object.fromEntries(
      Object.entries(localRoutes)
        .filter(([, def]) => 'timeoutMs' in def)
        .map(([id, def]) => [id, (def as { timeoutMs: number }).timeoutMs]),
    );
    // Where the faces disagreed, the longer wait (latencyCheck: the TUI's 60 s; init: none).
    expect(limits).toEqual({
      connect: 120_000,
      patchConfig: 120_000,
      setConfigKey: 120_000,
      init: 60_000,
      latencyCheck: 120_000,
      streamTest: 60_000,
      diagnose: 30_000,
      startTunnel: 120_000,
      // Calls the engine makes to the control plane: room for API access to try direct, then relays.
      ...Object.fromEntries(
        [
          'createAccount',
          'login',
          'logout',
          'account',
          'listDevices',
          'addDevice',
          'renameDevice',
          'revokeDevice',
          'listRegions',
        ].map((id) => [id, 60_000]),
      ),
      testApiAccess: 45_000,
      useApiAccess: 45_000,
    });
    expect(LOCAL_TIMEOUTS_MS.tunnel).toBeGreaterThan(DEFAULT_TIMEOUT_MS);
  });

  it('are applied by the generated client: the route’s, else the default, a call’s own first', async () => {
    const client = createLocalClient({ fetch: silent });
    expect(await endOf(client.connect({ body: {} }))).toEqual({
      code: 'timeout',
      afterMs: 120_000,
    });
    expect(await endOf(client.diagnose())).toEqual({ code: 'timeout', afterMs: 30_000 });
    expect(await endOf(client.status())).toEqual({
      code: 'timeout',
      afterMs: DEFAULT_TIMEOUT_MS,
    });
    expect(await endOf(client.connect({ body: {}, timeoutMs: 2_000 }))).toEqual({
      code: 'timeout',
      afterMs: 2_000,
    });
    // A client's own default is for the routes that name none.
    const impatient = createLocalClient({ fetch: silent, timeoutMs: 50 });
    expect(await endOf(impatient.status())).toEqual({ code: 'timeout', afterMs: 50 });
    expect(await endOf(impatient.latencyCheck({ body: { all: true } }))).toEqual({
      code: 'timeout',
      afterMs: 120_000,
    });
  });
});

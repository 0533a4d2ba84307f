// Many long polls and event streams at once: no listener piles up on anything shared (Node
// warns past ten on one target), and shutdown still ends every one of them.
import { rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { startControlPlane } from './testing/control-plane-harness.js';

const CLIENTS = 25;

describe('long polls and event streams', () => {
  it('hold no listener on a shared target, and all end at shutdown', async () => {
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    const h = await startControlPlane('sqlite');
    try {
      await h.plane.app.listen({ host: '127.0.0.1', port: 0 });
      const base = `http://127.0.0.1:${(h.plane.app.server.address() as AddressInfo).port}/v1`;
      const node = await h.addHealthyNode('global');
      const device = await h.signIn(await h.createAccount());
      const { version } = (await h.call('GET', '/node/peers?after=0', { token: node.token })).body;

      const polls = Array.from({ length: CLIENTS }, () =>
        fetch(`${base}/node/peers?after=${version}&wait=60`, {
          headers: { authorization: `Bearer ${node.token}` },
        }),
      );
      const streams = await Promise.all(
        Array.from({ length: CLIENTS }, () =>
          fetch(`${base}/events`, { headers: { authorization: `Bearer ${device.token}` } }),
        ),
      );
      expect(streams.every((s) => s.status === 200)).toBe(true);
      // Each stream has sent its first event: every one is open and subscribed.
      const readers = streams.map((s) => s.body!.getReader());
      await Promise.all(readers.map((r) => r.read()));
      // The polls are in the server (a change wakes each of them, then they poll again).
      await new Promise((r) => setTimeout(r, 200));

      const ended = Promise.all(
        readers.map(async (r) => {
          while (!(await r.read()).done);
        }),
      );
      const started = Date.now();
      await h.plane.close();
      const answered = await Promise.all(polls);
      expect(answered.map((a) => a.status)).toEqual(Array(CLIENTS).fill(200));
      await ended;
      expect(Date.now() - started).toBeLessThan(5_000);
      // Warnings are emitted on the next tick.
      await new Promise((r) => setImmediate(r));
      expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
    } finally {
      process.off('warning', onWarning);
      await h.plane.close().catch(() => {});
      rmSync(h.dataDir, { recursive: true, force: true });
    }
  });
});

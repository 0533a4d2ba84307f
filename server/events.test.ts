// GET /events: a device's status changes arrive as server-sent events.
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, startControlPlane, type Harness } from './testing/control-plane-harness.js';

interface SseEvent {
  event: string;
  data: any;
}

/** Reads server-sent events until `count` have arrived or the time is up. */
async function readEvents(
  url: string,
  token: string,
  count: number,
  during: () => Promise<void>,
): Promise<SseEvent[]> {
  const controller = new AbortController();
  const res = await fetch(url, {
    headers: { authorization: `Bearer ${token}` },
    signal: controller.signal,
  });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const events: SseEvent[] = [];
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  const timeout = setTimeout(() => controller.abort(), 10_000);
  const reading = (async () => {
    try {
      while (events.length < count) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (event && data) events.push({ event, data: JSON.parse(data) });
        }
      }
    } catch {
      // Aborted by the timeout: the assertions below say what was missing.
    }
  })();
  await new Promise((r) => setTimeout(r, 100));
  await during();
  await reading;
  clearTimeout(timeout);
  controller.abort();
  return events;
}

describe.each(backends())('events on %s', (backend) => {
  let h: Harness;
  let base: string;
  beforeAll(async () => {
    h = await startControlPlane(backend);
    await h.plane.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(h.plane.app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => h?.close());

  it('streams disconnected → connecting → connected → disconnected', async () => {
    const node = await h.addHealthyNode('global');
    const device = await h.signIn(await h.createAccount());
    const events = await readEvents(`${base}/v1/events`, device.token, 4, async () => {
      await h.call('POST', '/connect', { token: device.token, body: {} });
      await new Promise((r) => setTimeout(r, 100));
      await h.heartbeat(node.token, {
        fresh_handshakes: [{ device_id: device.device.id, latency_ms: 12 }],
      });
      await new Promise((r) => setTimeout(r, 100));
      await h.call('POST', '/disconnect', { token: device.token });
    });
    expect(events.map((e) => `${e.event}:${e.data.status}`)).toEqual([
      'status:disconnected',
      'status:connecting',
      'status:connected',
      'status:disconnected',
    ]);
    expect(events[2]!.data.latency).toBe('12ms');
  });

  it('streams connected only once a latency exists: a tunnel up without one is connecting', async () => {
    // A region of its own: the node of the test before is still healthy in global.
    const node = await h.addHealthyNode('asia-east');
    const device = await h.signIn(await h.createAccount());
    const events = await readEvents(`${base}/v1/events`, device.token, 4, async () => {
      await h.call('POST', '/connect', { token: device.token, body: { region: 'asia-east' } });
      await new Promise((r) => setTimeout(r, 100));
      // The node sees the handshake, and has measured nothing yet.
      await h.heartbeat(node.token, { fresh_handshakes: [{ device_id: device.device.id }] });
      await new Promise((r) => setTimeout(r, 100));
      // The client's first report: now it is connected, and the stream says so.
      await h.call('PUT', '/status/latency', { token: device.token, body: { latency_ms: 9 } });
      await new Promise((r) => setTimeout(r, 100));
      await h.call('POST', '/disconnect', { token: device.token });
    });
    expect(events.map((e) => `${e.event}:${e.data.status}`)).toEqual([
      'status:disconnected',
      'status:connecting',
      'status:connected',
      'status:disconnected',
    ]);
    expect(events[2]!.data.latency).toBe('9ms');
  });

  it('tells a revoked device and ends its stream', async () => {
    const account = await h.createAccount();
    const a = await h.signIn(account);
    const b = await h.signIn(account);
    const events = await readEvents(`${base}/api/v1/events`, b.token, 2, async () => {
      await h.call('DELETE', `/devices/${b.device.id}`, { token: a.token });
    });
    expect(events.map((e) => e.event)).toEqual(['status', 'revoked']);
  });
});

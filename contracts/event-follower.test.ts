// The one event follower against a fake fetch that answers as the engine host does: real
// text/event-stream bodies fed in pieces, hosts that refuse, end the stream, or send an event
// that breaks the contract.
import { describe, expect, it } from 'vitest';
import { ApiError } from './api-error.js';
import {
  EVENT_STREAM_BACKOFF,
  exponentialBackoff,
  faceEventOf,
  followEvents,
  type FollowEventsOptions,
  type FollowedLink,
  type LocalEvent,
} from './event-follower.js';
import { createLocalClient, idleStatus, type LocalStatus } from './local-api.js';
import type { FetchLike } from './route-client.js';

/** A body the test writes to and ends; the request's abort breaks it, as fetch's does. */
function eventBody() {
  const encoder = new TextEncoder();
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const stream = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) });
  return {
    response: (signal?: AbortSignal) => {
      signal?.addEventListener('abort', () => controller.error(signal.reason), { once: true });
      return new Response(stream, {
        headers: { 'content-type': 'text/event-stream; charset=utf-8' },
      });
    },
    write: (text: string) => controller.enqueue(encoder.encode(text)),
    end: () => controller.close(),
  };
}

interface Sent {
  url: string;
  method: string | undefined;
  signal: AbortSignal | undefined;
}

function fakeFetch(
  answer: (n: number, signal: AbortSignal | undefined) => Response | Promise<Response>,
) {
  const sent: Sent[] = [];
  const fetch: FetchLike = async (url, init) => {
    sent.push({ url, method: init.method, signal: init.signal ?? undefined });
    return answer(sent.length - 1, init.signal ?? undefined);
  };
  return { fetch, sent };
}

const refused = () =>
  Promise.reject(
    new TypeError('fetch failed', {
      cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
    }),
  );

const connected = (latency: string): LocalStatus => ({
  ...idleStatus(true, true),
  status: 'connected',
  latency,
  region: 'asia-east',
});
const statusEvent = (s: unknown) => `event: status\ndata: ${JSON.stringify(s)}\n\n`;

async function until(check: () => boolean, what = 'the condition'): Promise<void> {
  const deadline = Date.now() + 2_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

/** Follows with a fake wait that records each delay and returns at once. */
function follow(fetch: FetchLike, options: Partial<FollowEventsOptions> = {}) {
  const stop = new AbortController();
  const log: (string | LocalEvent)[] = [];
  const links: FollowedLink[] = [];
  const delays: number[] = [];
  const bad: ApiError[] = [];
  const done = followEvents(createLocalClient({ fetch }), {
    signal: stop.signal,
    onEvent: (e) => void log.push(e),
    onLink: (l) => {
      links.push(l);
      log.push(l.state);
    },
    wait: async (ms) => void delays.push(ms),
    backoff: { delayMs: (attempt) => attempt },
    onBadEvent: (e) => void bad.push(e),
    ...options,
  });
  return { stop, log, links, delays, bad, done };
}

describe('followEvents', () => {
  it('opens GET /api/v1/events through the client’s fetch and hands on typed events', async () => {
    const body = eventBody();
    const { fetch, sent } = fakeFetch((_n, signal) => body.response(signal));
    const f = follow(fetch);
    const text =
      statusEvent(connected('42ms')) +
      ': heartbeat\n\n' +
      'event: notice\ndata: {"code":"failover","message":"moved to node b"}\n\n';
    body.write(text.slice(0, 17));
    body.write(text.slice(17, 200));
    body.write(text.slice(200));
    await until(() => f.log.length === 3);
    expect(sent[0]).toMatchObject({ url: 'http://ferry.local/api/v1/events', method: 'GET' });
    expect(f.log[0]).toBe('up');
    expect(f.log[1]).toMatchObject({ event: 'status', data: { status: 'connected' } });
    expect(f.log[2]).toMatchObject({
      event: 'notice',
      data: { code: 'failover', message: 'moved to node b' },
    });
    expect(faceEventOf(f.log[2] as LocalEvent)).toEqual({
      type: 'notice',
      notice: { code: 'failover', message: 'moved to node b' },
    });
    f.stop.abort();
    await f.done;
  });

  it('drops an event that breaks the contract, and one it does not know; the stream goes on', async () => {
    const body = eventBody();
    const { fetch, sent } = fakeFetch((_n, signal) => body.response(signal));
    const f = follow(fetch);
    body.write(statusEvent({ status: 'flying', latency: 7 }));
    body.write('event: weather\ndata: {"sky":"blue"}\n\n');
    body.write('event: status\ndata: {not json\n\n');
    body.write(statusEvent(connected('50ms')));
    await until(() => f.log.length === 2);
    expect(f.log).toEqual(['up', expect.objectContaining({ data: connected('50ms') })]);
    expect(f.bad.map((e) => e.code)).toEqual(['bad-response', 'bad-response']);
    expect(f.bad[0]!.detail).toMatch(/the status event does not match the contract at status/);
    // The bad events' values are nowhere in what is reported.
    expect(JSON.stringify(f.bad.map((e) => e.detail))).not.toMatch(/flying/);
    expect(sent).toHaveLength(1);
    f.stop.abort();
    await f.done;
  });

  it('opens the stream again when the host ends it, after the backoff’s first wait', async () => {
    const bodies = [eventBody(), eventBody()];
    const { fetch, sent } = fakeFetch((n, signal) => bodies[n]!.response(signal));
    const f = follow(fetch);
    bodies[0]!.write(statusEvent(connected('42ms')));
    await until(() => f.log.length === 2);
    bodies[0]!.end();
    await until(() => sent.length === 2);
    bodies[1]!.write(statusEvent(connected('50ms')));
    await until(() => f.log.length === 5);
    expect(f.log.map((x) => (typeof x === 'string' ? x : x.event))).toEqual([
      'up',
      'status',
      'ended',
      'up',
      'status',
    ]);
    expect(f.delays).toEqual([0]);
    f.stop.abort();
    await f.done;
  });

  it('backs off further on each refusal, and starts over once a stream delivered', async () => {
    let refusals = 3;
    const bodies = [eventBody(), eventBody()];
    let opened = 0;
    const { fetch, sent } = fakeFetch((_n, signal) =>
      refusals-- > 0 ? refused() : bodies[opened++]!.response(signal),
    );
    const f = follow(fetch);
    await until(() => sent.length === 4, 'three refusals');
    bodies[0]!.write(statusEvent(connected('42ms')));
    await until(() => f.log.length === 5);
    expect(f.links.slice(0, 3).map((l) => l.state)).toEqual(['down', 'down', 'down']);
    const why = (f.links[0] as { error: unknown }).error;
    expect(why).toBeInstanceOf(ApiError);
    expect(why).toMatchObject({ code: 'unreachable' });
    expect(f.delays).toEqual([0, 1, 2]);
    bodies[0]!.end();
    await until(() => f.delays.length === 4);
    expect(f.delays[3]).toBe(0);
    f.stop.abort();
    await f.done;
  });

  it('ends when its signal aborts: the stream let go, nothing more delivered, no more tries', async () => {
    const body = eventBody();
    const { fetch, sent } = fakeFetch((_n, signal) => body.response(signal));
    const f = follow(fetch);
    body.write(statusEvent(connected('42ms')));
    await until(() => f.log.length === 2);
    f.stop.abort();
    await f.done;
    expect(sent[0]!.signal?.aborted).toBe(true);
    expect(f.log).toHaveLength(2);
    expect(sent).toHaveLength(1);
  });

  it('ends during a wait when its signal aborts, and resolves at once when aborted before', async () => {
    const { fetch, sent } = fakeFetch(refused);
    const stop = new AbortController();
    let waiting = false;
    const done = followEvents(createLocalClient({ fetch }), {
      signal: stop.signal,
      onEvent: () => undefined,
      wait: (_ms, signal) =>
        new Promise<void>((resolve) => {
          waiting = true;
          signal.addEventListener('abort', () => resolve(), { once: true });
        }),
    });
    await until(() => waiting, 'the wait');
    stop.abort();
    await done;
    expect(sent).toHaveLength(1);

    const never = fakeFetch(refused);
    await followEvents(createLocalClient({ fetch: never.fetch }), {
      signal: AbortSignal.abort(),
      onEvent: () => undefined,
      wait: async () => undefined,
    });
    expect(never.sent).toHaveLength(0);
  });

  it('stops after a stream stopped when retry says no, and says how it stopped', async () => {
    const body = eventBody();
    const { fetch, sent } = fakeFetch((_n, signal) => body.response(signal));
    const stops: string[] = [];
    const f = follow(fetch, { retry: (s) => (stops.push(s.state), false) });
    body.write(statusEvent(connected('42ms')));
    await until(() => f.log.length === 2);
    body.end();
    await f.done;
    expect(stops).toEqual(['ended']);
    expect(f.log.at(-1)).toBe('ended');
    expect(f.delays).toEqual([]);
    expect(sent).toHaveLength(1);

    const down = follow(fakeFetch(refused).fetch, { retry: () => false });
    await down.done;
    expect(down.links).toEqual([{ state: 'down', error: expect.any(ApiError) }]);
  });

  it('a handler that throws is the handler’s bug: reported, and the stream goes on', async () => {
    const body = eventBody();
    const { fetch } = fakeFetch((_n, signal) => body.response(signal));
    const errors: unknown[] = [];
    let seen = 0;
    const f = follow(fetch, {
      onEvent: () => {
        seen += 1;
        if (seen === 1) throw new Error('a face bug');
      },
      onHandlerError: (e) => void errors.push(e),
    });
    body.write(statusEvent(connected('42ms')) + statusEvent(connected('43ms')));
    await until(() => seen === 2);
    expect(errors).toEqual([new Error('a face bug')]);
    expect(f.links).toEqual([{ state: 'up' }]);
    f.stop.abort();
    await f.done;
  });
});

describe('the backoff', () => {
  it('doubles from its first wait up to its ceiling; every face waits 0.5 s to 10 s', () => {
    expect([0, 1, 2, 3, 10].map((a) => exponentialBackoff(20, 100).delayMs(a))).toEqual([
      20, 40, 80, 100, 100,
    ]);
    expect([0, 1, 2, 5, 1_000].map((a) => EVENT_STREAM_BACKOFF.delayMs(a))).toEqual([
      500, 1_000, 2_000, 10_000, 10_000,
    ]);
  });
});

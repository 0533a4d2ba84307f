// Server-sent events arrive whole whatever the pieces the network cut them into, with the
// standard's line endings, multi-line data, ids and comments.
import { describe, expect, it } from 'vitest';
import { EventTooLargeError, ServerSentEventParser, readServerSentEvents } from './sse.js';

function parseInPieces(text: string, size: number) {
  const parser = new ServerSentEventParser();
  const events = [];
  for (let i = 0; i < text.length; i += size)
    events.push(...parser.push(text.slice(i, i + size), i + size >= text.length));
  return events;
}

function bodyOf(pieces: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(c) {
      for (const p of pieces) c.enqueue(encoder.encode(p));
      c.close();
    },
  });
}

const STREAM =
  ': keepalive\n\n' +
  'event: status\ndata: {"status":"connecting"}\n\n' +
  'id: 7\r\nevent: keys\r\ndata: {"a":1,\r\ndata:"b":2}\r\n\r\n' +
  'data: plain\r\rdata:no-space\n\n' +
  'event: ignored-without-data\n\n' +
  'retry: 1000\nunknown: field\ndata: last\n\n';

const EXPECTED = [
  { event: 'status', data: '{"status":"connecting"}', id: undefined },
  { event: 'keys', data: '{"a":1,\n"b":2}', id: '7' },
  { event: 'message', data: 'plain', id: '7' },
  { event: 'message', data: 'no-space', id: '7' },
  { event: 'message', data: 'last', id: '7' },
];

describe('server-sent events', () => {
  it('parses a stream given at once', () => {
    expect(parseInPieces(STREAM, STREAM.length)).toEqual(EXPECTED);
  });

  it('parses the same events whatever the piece size (a CRLF split across pieces too)', () => {
    for (const size of [1, 2, 3, 5, 7, 13]) expect(parseInPieces(STREAM, size)).toEqual(EXPECTED);
  });

  it('ends an event at a CR that is the last byte of the stream', () => {
    expect(parseInPieces('data: x\r\r', 9)).toEqual([
      { event: 'message', data: 'x', id: undefined },
    ]);
  });

  it('reads a body, drops an event the stream did not finish, and decodes split UTF-8', async () => {
    const bytes = new TextEncoder().encode('data: für\n\n');
    // "ü" is two bytes: cut between them.
    const cut = bytes.indexOf(0xc3) + 1;
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(bytes.slice(0, cut));
        c.enqueue(bytes.slice(cut));
        c.enqueue(new TextEncoder().encode('data: unfinished\n'));
        c.close();
      },
    });
    const events = [];
    for await (const e of readServerSentEvents(body)) events.push(e);
    expect(events).toEqual([{ event: 'message', data: 'für', id: undefined }]);
  });

  it('cancels the body when the reader stops early', async () => {
    let cancelled = false;
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      pull(c) {
        c.enqueue(encoder.encode('data: again\n\n'));
      },
      cancel() {
        cancelled = true;
      },
    });
    for await (const e of readServerSentEvents(body)) {
      expect(e.data).toBe('again');
      break;
    }
    expect(cancelled).toBe(true);
  });

  it('refuses an event longer than its cap, however it comes: one endless line or many lines', () => {
    const cap = 1_000;
    // One line that never ends, in small pieces: refused once the line passes the cap.
    const endless = new ServerSentEventParser({ maxEventLength: cap });
    expect(() => {
      for (let i = 0; i < 200; i++) endless.push('xxxxxxxxxx');
    }).toThrow(EventTooLargeError);
    // Many short data lines of one event: the event is what is capped.
    const lines = new ServerSentEventParser({ maxEventLength: cap });
    expect(() => lines.push('event: e\n' + 'data: 0123456789\n'.repeat(100))).toThrow(
      new EventTooLargeError(cap),
    );
    // Many events, each under the cap: no limit on the stream.
    const many = new ServerSentEventParser({ maxEventLength: cap });
    const event = `event: e\ndata: ${'x'.repeat(cap - 20)}\n\n`;
    let count = 0;
    for (let i = 0; i < 1_000; i++) count += many.push(event).length;
    expect(count).toBe(1_000);
    // The default is 1 MiB.
    expect(() => new ServerSentEventParser().push('data: ' + 'x'.repeat(1024 * 1024))).toThrow(
      'an event is larger than 1 MiB',
    );
  });

  it('scans a long line once, not from its start on every piece', () => {
    // 2,000 pieces of 400 characters: rescanning the line on each would compare 800 million.
    const parser = new ServerSentEventParser();
    const piece = 'y'.repeat(400);
    const started = performance.now();
    parser.push('data: ');
    for (let i = 0; i < 2_000; i++) parser.push(piece);
    expect(parser.push('\n\n')).toEqual([
      { event: 'message', data: 'y'.repeat(800_000), id: undefined },
    ]);
    expect(performance.now() - started).toBeLessThan(500);
  });

  it('stops reading a body at an event past the cap, and cancels it', async () => {
    let cancelled = false;
    let pulled = 0;
    const piece = new TextEncoder().encode('z'.repeat(1_000));
    const body = new ReadableStream<Uint8Array>({
      pull(c) {
        // 2 MB in all: read whole when nothing stops it.
        if (pulled === 2_000) return c.close();
        pulled++;
        c.enqueue(piece);
      },
      cancel() {
        cancelled = true;
      },
    });
    const events = readServerSentEvents(body, { maxEventLength: 10_000 });
    await expect(events.next()).rejects.toThrow(EventTooLargeError);
    expect(cancelled).toBe(true);
    expect(pulled).toBeLessThanOrEqual(12);
  });

  it('reads nothing from an empty body', async () => {
    const events = [];
    for await (const e of readServerSentEvents(bodyOf([]))) events.push(e);
    expect(events).toEqual([]);
  });
});

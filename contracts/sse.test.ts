// Server-sent events arrive whole whatever the pieces the network cut them into, with the
// standard's line endings, multi-line data, ids and comments.
import { describe, expect, it } from 'vitest';
import { ServerSentEventParser, readServerSentEvents } from './sse.js';

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

  it('reads nothing from an empty body', async () => {
    const events = [];
    for await (const e of readServerSentEvents(bodyOf([]))) events.push(e);
    expect(events).toEqual([]);
  });
});

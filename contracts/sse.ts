// Server-sent events: the text/event-stream format (WHATWG HTML, "Server-sent events") read
// into whole events, for the clients of the stream routes in our route tables.

export interface ServerSentEvent {
  /** The `event:` field; `message` when the event named none. */
  event: string;
  /** The `data:` lines joined with newlines. */
  data: string;
  /** The last `id:` seen on the stream, as the standard carries it from event to event. */
  id: string | undefined;
}

/**
 * Parses a stream given in arbitrary pieces. Lines end with CRLF, LF or CR; a blank line ends
 * an event; comments (`:` lines, the server's keepalives) and unknown fields are skipped.
 */
export class ServerSentEventParser {
  private buffer = '';
  private type = '';
  private data: string[] = [];
  private lastId: string | undefined;

  /**
   * Feeds a piece of the stream; returns the events it completed. `final`: the stream ends with
   * this piece.
   */
  push(text: string, final = false): ServerSentEvent[] {
    this.buffer += text;
    const events: ServerSentEvent[] = [];
    let start = 0;
    for (;;) {
      const end = this.lineEnd(start, final);
      if (end === -1) break;
      const event = this.line(this.buffer.slice(start, end));
      if (event) events.push(event);
      // A CR may be the first half of a CRLF.
      start = this.buffer[end] === '\r' && this.buffer[end + 1] === '\n' ? end + 2 : end + 1;
    }
    this.buffer = this.buffer.slice(start);
    return events;
  }

  /**
   * The index of the next line end at or after `from`, or -1. A CR at the very end of what has
   * arrived waits for the next piece (unless there is none), which may begin with the LF of the
   * same line end.
   */
  private lineEnd(from: number, final: boolean): number {
    for (let i = from; i < this.buffer.length; i++) {
      const c = this.buffer[i];
      if (c === '\n') return i;
      if (c === '\r') return final || i + 1 < this.buffer.length ? i : -1;
    }
    return -1;
  }

  private line(line: string): ServerSentEvent | undefined {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.type = value;
    else if (field === 'data') this.data.push(value);
    else if (field === 'id' && !value.includes('\0')) this.lastId = value;
    return undefined;
  }

  private dispatch(): ServerSentEvent | undefined {
    const event =
      this.data.length === 0
        ? undefined
        : { event: this.type || 'message', data: this.data.join('\n'), id: this.lastId };
    this.type = '';
    this.data = [];
    return event;
  }
}

/**
 * The events of a response body, in order, until the stream ends. An event the stream had not
 * finished when it ended is dropped, as the standard says. Stopping the iteration cancels the
 * body.
 */
export async function* readServerSentEvents(
  body: ReadableStream<Uint8Array>,
): AsyncGenerator<ServerSentEvent, void, undefined> {
  const parser = new ServerSentEventParser();
  const decoder = new TextDecoder();
  const reader = body.getReader();
  let finished = false;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) {
        finished = true;
        yield* parser.push(decoder.decode(), true);
        return;
      }
      yield* parser.push(decoder.decode(value, { stream: true }));
    }
  } finally {
    // Cancelling a stream that ended or failed is a no-op; one the consumer left is released.
    if (!finished) await reader.cancel().catch(() => undefined);
  }
}

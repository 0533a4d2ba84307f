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

/** The longest event a reader takes by default, in characters (one MiB of ASCII). */
export const MAX_EVENT_LENGTH = 1024 * 1024;

export interface ServerSentEventLimits {
  /**
   * The most characters one event may keep (its type and data lines, and a line not yet
   * ended, whatever its field): a server that sends more is refused, not buffered without end.
   * Caps each event, not the stream: a stream may last as long as the reader wants.
   */
  maxEventLength?: number | undefined;
}

/** Thrown by a reader when one event passes its cap. */
export class EventTooLargeError extends RangeError {
  constructor(readonly maxEventLength: number) {
    super(`an event is larger than ${sizeInWords(maxEventLength)}`);
    this.name = 'EventTooLargeError';
  }
}

/** A size as people read it: whole MiB or KiB when it is one, else characters. */
function sizeInWords(n: number): string {
  if (n % (1024 * 1024) === 0) return `${n / (1024 * 1024)} MiB`;
  if (n % 1024 === 0) return `${n / 1024} KiB`;
  return `${n} characters`;
}

/**
 * Parses a stream given in arbitrary pieces. Lines end with CRLF, LF or CR; a blank line ends
 * an event; comments (`:` lines, the server's keepalives) and unknown fields are skipped.
 */
export class ServerSentEventParser {
  /**
   * The pieces of the line not yet ended: kept apart, not joined on each piece, so that a long
   * line arriving in many pieces costs its length once (a joined string was copied again on
   * every piece).
   */
  private partial: string[] = [];
  private partialLength = 0;
  /** The last piece ended with a CR: an LF first in the next one belongs to that line end. */
  private afterCr = false;
  /** The characters the event under way keeps so far (its type and data lines). */
  private eventLength = 0;
  private type = '';
  private data: string[] = [];
  private lastId: string | undefined;
  private readonly maxEventLength: number;

  constructor(limits: ServerSentEventLimits = {}) {
    this.maxEventLength = limits.maxEventLength ?? MAX_EVENT_LENGTH;
  }

  /**
   * Feeds a piece of the stream; returns the events it completed. `final`: the stream ends with
   * this piece (a line it leaves unended is dropped). Throws EventTooLargeError once an event
   * passes the cap (the parser is then of no further use).
   */
  push(text: string, final = false): ServerSentEvent[] {
    const events: ServerSentEvent[] = [];
    let i = 0;
    if (this.afterCr && text.length > 0) {
      this.afterCr = false;
      if (text[0] === '\n') i = 1;
    }
    let start = i;
    for (; i < text.length; i++) {
      const c = text[i];
      if (c !== '\n' && c !== '\r') continue;
      const piece = text.slice(start, i);
      const line = this.partial.length === 0 ? piece : this.partial.join('') + piece;
      this.partial = [];
      this.partialLength = 0;
      const event = this.line(line);
      if (event) events.push(event);
      // A CR may be the first half of a CRLF, whose LF may come with the next piece.
      if (c === '\r') {
        if (i + 1 === text.length) this.afterCr = true;
        else if (text[i + 1] === '\n') i++;
      }
      start = i + 1;
    }
    if (final) {
      this.partial = [];
      this.partialLength = 0;
    } else if (start < text.length) {
      this.partial.push(text.slice(start));
      this.partialLength += text.length - start;
      this.checkLength(this.partialLength);
    }
    return events;
  }

  /** Refuses an event whose kept parts and `unfinished` characters pass the cap. */
  private checkLength(unfinished: number): void {
    if (this.eventLength + unfinished > this.maxEventLength)
      throw new EventTooLargeError(this.maxEventLength);
  }

  private line(line: string): ServerSentEvent | undefined {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') {
      this.eventLength += value.length - this.type.length;
      this.type = value;
    } else if (field === 'data') {
      this.eventLength += value.length + 1;
      this.data.push(value);
    } else if (field === 'id' && !value.includes('\0')) this.lastId = value;
    this.checkLength(0);
    return undefined;
  }

  private dispatch(): ServerSentEvent | undefined {
    const event =
      this.data.length === 0
        ? undefined
        : { event: this.type || 'message', data: this.data.join('\n'), id: this.lastId };
    this.type = '';
    this.data = [];
    this.eventLength = 0;
    return event;
  }
}

/**
 * The events of a response body, in order, until the stream ends. An event the stream had not
 * finished when it ended is dropped, as the standard says. Stopping the iteration cancels the
 * body, and so does an event past the cap (EventTooLargeError).
 */
export async function* readServerSentEvents(
  body: ReadableStream<Uint8Array>,
  limits: ServerSentEventLimits = {},
): AsyncGenerator<ServerSentEvent, void, undefined> {
  const parser = new ServerSentEventParser(limits);
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

// A byte stream carried in TLS 1.3 application-data records over a socket, as the TLS transport's
// API streams are (docs/protocol.md, "API streams"): what is written goes out in records of at
// most RECORD_PAYLOAD bytes; what arrives is the payload of the application-data records, after
// the handshake's (ServerHello, change_cipher_spec and the first application-data record, which
// stands for the peer's encrypted flight, are skipped). There is no TLS-layer encryption: the
// bytes inside are themselves TLS (the client's, end to end with the control plane).
import { Duplex } from 'node:stream';
import type { Socket } from 'node:net';

/** TLS record types. */
export const HANDSHAKE = 22;
export const CHANGE_CIPHER_SPEC = 20;
export const APPLICATION_DATA = 23;

/** A full TLS 1.3 record's payload (16,384 + content type + tag), as the TLS transport sends. */
export const RECORD_PAYLOAD = 16_401;
/** The largest application-data payload a TLS 1.3 peer may send (2^14 + 256). */
const MAX_PAYLOAD = 16_640;
/** The largest handshake record we accept (a ServerHello is ~120 bytes; room for more). */
const MAX_HANDSHAKE = 16_384;

/** Wraps `data` in application-data records. */
export function toRecords(data: Buffer): Buffer[] {
  const out: Buffer[] = [];
  for (let at = 0; at < data.length; at += RECORD_PAYLOAD) {
    const part = data.subarray(at, at + RECORD_PAYLOAD);
    const header = Buffer.from([APPLICATION_DATA, 3, 3, part.length >> 8, part.length & 0xff]);
    out.push(header, part);
  }
  return out;
}

export class RecordError extends Error {}

/**
 * Reads records off a byte stream: whole records, checked as they come. `skipFirstData`: the
 * first application-data record is the peer's (fake) encrypted flight, not data.
 */
export class RecordReader {
  #buffer: Buffer = Buffer.alloc(0);
  #skip: boolean;
  #dataStarted = false;

  constructor(opts: { skipFirstData: boolean }) {
    this.#skip = opts.skipFirstData;
  }

  /** Whether the handshake part is over (the skipped record has been read). */
  get flightDone(): boolean {
    return !this.#skip;
  }

  /** Takes bytes; returns the data they complete. Throws RecordError on what cannot be ours. */
  push(chunk: Buffer): Buffer[] {
    this.#buffer = this.#buffer.length ? Buffer.concat([this.#buffer, chunk]) : chunk;
    const data: Buffer[] = [];
    while (this.#buffer.length >= 5) {
      const type = this.#buffer[0]!;
      const len = this.#buffer.readUInt16BE(3);
      if (this.#buffer[1] !== 3 || this.#buffer[2]! > 4) throw new RecordError('not a TLS record');
      if (type === APPLICATION_DATA) {
        if (len < 1 || len > MAX_PAYLOAD) throw new RecordError('a record of a wrong size');
      } else if (type === HANDSHAKE || type === CHANGE_CIPHER_SPEC) {
        if (this.#dataStarted || len > MAX_HANDSHAKE)
          throw new RecordError('a handshake record amid data');
      } else throw new RecordError(`a TLS record of type ${type}`);
      if (this.#buffer.length < 5 + len) break;
      const payload = this.#buffer.subarray(5, 5 + len);
      this.#buffer = this.#buffer.subarray(5 + len);
      if (type !== APPLICATION_DATA) continue;
      if (this.#skip) {
        this.#skip = false;
        continue;
      }
      this.#dataStarted = true;
      data.push(payload);
    }
    return data;
  }
}

/**
 * The stream inside the records over `socket` (already connected). `prefix`: bytes to send before
 * any record (the relay's server flight; the client's change_cipher_spec and Finished). `head`:
 * bytes already read from the socket. Ends and errors follow the socket's both ways.
 */
export class RecordStream extends Duplex {
  readonly #socket: Socket;
  readonly #reader: RecordReader;
  /** The client's answer to the peer's flight, sent once the flight is read; writes wait for it. */
  #answer: Buffer | null;
  #waiting: (() => void)[] = [];

  constructor(
    socket: Socket,
    opts: { prefix?: Buffer; head?: Buffer; skipFirstData: boolean; answerFlight?: Buffer },
  ) {
    super({ allowHalfOpen: true });
    this.#socket = socket;
    this.#reader = new RecordReader({ skipFirstData: opts.skipFirstData });
    this.#answer = opts.answerFlight ?? null;
    if (opts.prefix?.length) socket.write(opts.prefix);
    socket.on('data', (chunk: Buffer) => this.#take(chunk));
    socket.on('end', () => this.push(null));
    socket.on('error', (e) => this.destroy(e));
    socket.on('close', () => {
      if (!this.destroyed) this.destroy();
    });
    if (opts.head?.length) queueMicrotask(() => this.#take(opts.head!));
  }

  /** The socket under the records (its addresses, for a rate limit). */
  get socket(): Socket {
    return this.#socket;
  }

  #take(chunk: Buffer): void {
    let data: Buffer[];
    try {
      data = this.#reader.push(chunk);
    } catch (e) {
      this.destroy(e as Error);
      return;
    }
    if (this.#answer && this.#reader.flightDone) {
      this.#socket.write(this.#answer);
      this.#answer = null;
      for (const go of this.#waiting.splice(0)) go();
    }
    for (const d of data) if (!this.push(d)) this.#socket.pause();
  }

  override _read(): void {
    this.#socket.resume();
  }

  override _write(chunk: Buffer, enc: BufferEncoding, done: (e?: Error | null) => void): void {
    if (this.#answer) {
      this.#waiting.push(() => this._write(chunk, enc, done));
      return;
    }
    // One write: a record's header never leaves in a segment of its own (no TLS stack does that).
    const ok = this.#socket.write(Buffer.concat(toRecords(chunk)));
    if (ok) done();
    else this.#socket.once('drain', () => done());
  }

  override _final(done: (e?: Error | null) => void): void {
    // The answer to the peer's flight goes out before the end.
    if (this.#answer) {
      this.#waiting.push(() => this._final(done));
      return;
    }
    this.#socket.end(done);
  }

  override _destroy(error: Error | null, done: (e?: Error | null) => void): void {
    if (error) this.#socket.resetAndDestroy();
    else this.#socket.destroy();
    done(error);
  }
}

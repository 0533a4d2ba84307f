// A TLS ClientHello read off the wire: the first handshake record of a TCP stream (or the CRYPTO
// data of a QUIC Initial) parsed into the fields that fingerprints and server-name rules look at.
// One reader for the censor of the test internet (bounded and total: malformed input is "not a
// hello", never an exception) and for the Chrome capture and the hello tests (parseClientHello:
// one whole record, strictly, with what a template keeps of it).

/** GREASE values (RFC 8701): 0x?A?A with both bytes equal. */
export function isGrease(v: number): boolean {
  return (v & 0x0f0f) === 0x0a0a && v >> 8 === (v & 0xff);
}

export interface HelloExtension {
  type: number;
  data: Buffer;
}

export interface ClientHello {
  legacyVersion: number;
  random: Buffer;
  sessionId: Buffer;
  cipherSuites: number[];
  /** In the order the client sent them, GREASE included. */
  extensions: HelloExtension[];
  /** The host_name of the server_name extension, if any. */
  serverName: string | undefined;
  /** The ALPN protocol names in order (empty without the extension). */
  alpn: string[];
  /** signature_algorithms in order (empty without the extension). */
  signatureAlgorithms: number[];
  /** supported_versions in order (empty without the extension). */
  supportedVersions: number[];
}

/** A record-layer limit: a ClientHello record is at most 2^14 bytes of payload. */
export const MAX_RECORD = 16_384 + 5;

export type RecordScan =
  | { kind: 'hello'; hello: ClientHello; recordLength: number }
  | { kind: 'incomplete' }
  | { kind: 'not-tls' };

/**
 * Reads the first TLS record of a client's stream: a complete handshake record holding a
 * ClientHello, not yet complete, or not TLS at all. A hello split over several records is read
 * from the first one only, as middleboxes do.
 */
export function scanClientRecord(stream: Buffer): RecordScan {
  if (stream.length === 0) return { kind: 'incomplete' };
  if (stream[0] !== 0x16) return { kind: 'not-tls' };
  if (stream.length >= 2 && stream[1] !== 0x03) return { kind: 'not-tls' };
  if (stream.length < 5) return { kind: 'incomplete' };
  const length = stream.readUInt16BE(3);
  if (length === 0 || length + 5 > MAX_RECORD) return { kind: 'not-tls' };
  if (stream.length < 5 + length) return { kind: 'incomplete' };
  const hello = parseHandshake(stream.subarray(5, 5 + length));
  return hello ? { kind: 'hello', hello, recordLength: 5 + length } : { kind: 'not-tls' };
}

/**
 * A ClientHello from a handshake message (type 1, 24-bit length, body); a truncated message (a
 * hello longer than its record) is read as far as it goes only when the body parses.
 */
export function parseHandshake(msg: Buffer): ClientHello | undefined {
  if (msg.length < 4 || msg[0] !== 0x01) return undefined;
  const length = msg.readUIntBE(1, 3);
  if (msg.length < 4 + length) return undefined;
  return parseClientHelloBody(msg.subarray(4, 4 + length));
}

class Reader {
  off = 0;
  constructor(private readonly b: Buffer) {}
  bytes(n: number): Buffer {
    if (this.off + n > this.b.length) throw new RangeError('short');
    const out = this.b.subarray(this.off, this.off + n);
    this.off += n;
    return out;
  }
  u8(): number {
    return this.bytes(1)[0]!;
  }
  u16(): number {
    return this.bytes(2).readUInt16BE(0);
  }
  vec8(): Buffer {
    return this.bytes(this.u8());
  }
  vec16(): Buffer {
    return this.bytes(this.u16());
  }
  get done(): boolean {
    return this.off >= this.b.length;
  }
}

function u16List(b: Buffer): number[] {
  const out: number[] = [];
  for (let i = 0; i + 1 < b.length; i += 2) out.push(b.readUInt16BE(i));
  return out;
}

/** The body of a ClientHello (after the handshake header). */
export function parseClientHelloBody(body: Buffer): ClientHello | undefined {
  try {
    const r = new Reader(body);
    const legacyVersion = r.u16();
    const random = r.bytes(32);
    const sessionId = r.vec8();
    const cipherSuites = u16List(r.vec16());
    r.vec8(); // compression methods
    const extensions: HelloExtension[] = [];
    if (!r.done) {
      const ext = new Reader(r.vec16());
      while (!ext.done) extensions.push({ type: ext.u16(), data: ext.vec16() });
    }
    const hello: ClientHello = {
      legacyVersion,
      random,
      sessionId,
      cipherSuites,
      extensions,
      serverName: undefined,
      alpn: [],
      signatureAlgorithms: [],
      supportedVersions: [],
    };
    for (const { type, data } of extensions) {
      const x = new Reader(data);
      if (type === 0x0000 && data.length > 0) {
        const list = new Reader(x.vec16());
        while (!list.done) {
          const kind = list.u8();
          const name = list.vec16();
          if (kind === 0) hello.serverName = name.toString('latin1');
        }
      } else if (type === 0x0010) {
        const list = new Reader(x.vec16());
        while (!list.done) hello.alpn.push(list.vec8().toString('latin1'));
      } else if (type === 0x000d) {
        hello.signatureAlgorithms = u16List(x.vec16());
      } else if (type === 0x002b) {
        hello.supportedVersions = u16List(x.vec8());
      }
    }
    return hello;
  } catch {
    return undefined;
  }
}

/** A whole ClientHello record, with what a template keeps of its framing. */
export interface ParsedClientHello extends ClientHello {
  recordVersion: number;
  compression: Buffer;
  /** Bytes of the record: header and handshake message. */
  recordLength: number;
}

/**
 * Parses the first record of `record` as a ClientHello that fills it exactly; throws, saying
 * why, on anything else (the capture and the tests want to know).
 */
export function parseClientHello(record: Buffer): ParsedClientHello {
  if (record.length < 9 || record[0] !== 22) throw new Error('not a TLS handshake record');
  const len = record.readUInt16BE(3);
  if (record.length < 5 + len) throw new Error('ClientHello truncated');
  if (record[5] !== 1) throw new Error('not a ClientHello');
  if (record.readUIntBE(6, 3) + 4 !== len) throw new Error('ClientHello does not fill its record');
  const body = record.subarray(9, 5 + len);
  const hello = parseClientHelloBody(body);
  if (!hello) throw new Error('ClientHello malformed');
  // The compression methods follow the session id and the cipher suites.
  const at = 2 + 32 + 1 + hello.sessionId.length + 2 + hello.cipherSuites.length * 2;
  const compression = Buffer.from(body.subarray(at + 1, at + 1 + body[at]!));
  return { ...hello, recordVersion: record.readUInt16BE(1), compression, recordLength: 5 + len };
}

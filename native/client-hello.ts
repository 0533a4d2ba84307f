// Reads one TLS ClientHello record into its fields (no I/O): the Chrome capture and the hello tests use it.

/** One extension as it appears on the wire. */
export interface HelloExtension {
  type: number;
  data: Buffer;
}

/** The fields of a ClientHello that a fingerprint or a template looks at. */
export interface ParsedClientHello {
  recordVersion: number;
  legacyVersion: number;
  random: Buffer;
  sessionId: Buffer;
  cipherSuites: number[];
  compression: Buffer;
  extensions: HelloExtension[];
  /** Bytes of the record: header and handshake message. */
  recordLength: number;
}

/** GREASE values (RFC 8701): 0x?A?A with both bytes equal. */
export function isGrease(v: number): boolean {
  return (v & 0x0f0f) === 0x0a0a && v >> 8 === (v & 0xff);
}

class Reader {
  constructor(
    private readonly b: Buffer,
    private at: number,
    private readonly end: number,
  ) {}
  need(n: number): void {
    if (this.at + n > this.end) throw new Error('ClientHello truncated');
  }
  u8(): number {
    this.need(1);
    return this.b[this.at++] as number;
  }
  u16(): number {
    this.need(2);
    const v = this.b.readUInt16BE(this.at);
    this.at += 2;
    return v;
  }
  bytes(n: number): Buffer {
    this.need(n);
    const v = this.b.subarray(this.at, this.at + n);
    this.at += n;
    return v;
  }
  get done(): boolean {
    return this.at === this.end;
  }
}

/** Parses the first record of `record` as a ClientHello; throws on anything else. */
export function parseClientHello(record: Buffer): ParsedClientHello {
  if (record.length < 9 || record[0] !== 22) throw new Error('not a TLS handshake record');
  const recordVersion = record.readUInt16BE(1);
  const len = record.readUInt16BE(3);
  if (record.length < 5 + len) throw new Error('ClientHello truncated');
  if (record[5] !== 1) throw new Error('not a ClientHello');
  const bodyLen = record.readUIntBE(6, 3);
  if (bodyLen + 4 !== len) throw new Error('ClientHello does not fill its record');
  const r = new Reader(record, 9, 5 + len);
  const legacyVersion = r.u16();
  const random = r.bytes(32);
  const sessionId = r.bytes(r.u8());
  const suites = r.bytes(r.u16());
  const cipherSuites: number[] = [];
  for (let i = 0; i + 1 < suites.length; i += 2) cipherSuites.push(suites.readUInt16BE(i));
  const compression = r.bytes(r.u8());
  const extLen = r.u16();
  const ext = new Reader(r.bytes(extLen), 0, extLen);
  const extensions: HelloExtension[] = [];
  while (!ext.done) {
    const type = ext.u16();
    extensions.push({ type, data: Buffer.from(ext.bytes(ext.u16())) });
  }
  if (!r.done) throw new Error('bytes after the extensions');
  return {
    recordVersion,
    legacyVersion,
    random: Buffer.from(random),
    sessionId: Buffer.from(sessionId),
    cipherSuites,
    compression: Buffer.from(compression),
    extensions,
    recordLength: 5 + len,
  };
}

// The byte stream inside TLS application-data records: what is written goes out in records of at
// most 16,401 bytes; the reader takes whole records however the bytes are cut, passes over the
// handshake's records (and the peer's flight when told), and refuses what cannot be ours. Over a
// real loopback TCP pair: data both ways, `prefix` first, `answerFlight` only after the peer's
// flight with writes held until then, ends and half-close, and a bad record's reset.
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';

import {
  APPLICATION_DATA,
  CHANGE_CIPHER_SPEC,
  HANDSHAKE,
  RECORD_PAYLOAD,
  RecordError,
  RecordReader,
  RecordStream,
  toRecords,
} from './record-stream.js';

/** One record of `type` around `payload`, version 3.3 unless told. */
function record(type: number, payload: Buffer | string, version: [number, number] = [3, 3]) {
  const body = Buffer.from(payload);
  const header = Buffer.from([type, ...version, body.length >> 8, body.length & 0xff]);
  return Buffer.concat([header, body]);
}

const data = (payload: Buffer | string) => record(APPLICATION_DATA, payload);
/** A peer's flight as the relay sends it: a ServerHello, change_cipher_spec, the encrypted rest. */
const serverHello = record(HANDSHAKE, Buffer.from([2, 0, 0, 2, 3, 3]));
const ccs = record(CHANGE_CIPHER_SPEC, Buffer.from([1]));
const flight = Buffer.concat([serverHello, ccs, data(randomBytes(90))]);
/** The client's answer: change_cipher_spec and a 53-byte Finished record. */
const answer = Buffer.concat([ccs, data(randomBytes(53))]);

/** The records a run of bytes holds, checked whole: each one's header and payload. */
function parse(wire: Buffer): { header: Buffer; payload: Buffer }[] {
  const out: { header: Buffer; payload: Buffer }[] = [];
  let at = 0;
  // Each turn takes at least a header's 5 bytes: bounded by the length.
  while (at < wire.length) {
    expect(wire.length - at, 'a record cut short').toBeGreaterThanOrEqual(5);
    const length = wire.readUInt16BE(at + 3);
    expect(wire.length - at, 'a record cut short').toBeGreaterThanOrEqual(5 + length);
    out.push({
      header: wire.subarray(at, at + 5),
      payload: wire.subarray(at + 5, at + 5 + length),
    });
    at += 5 + length;
  }
  return out;
}

describe('toRecords', () => {
  it('cuts data into application-data records of at most 16,401 bytes, each with its header', () => {
    const bytes = randomBytes(RECORD_PAYLOAD * 2 + 7);
    const records = parse(Buffer.concat(toRecords(bytes)));
    expect(records.map((r) => r.payload.length)).toEqual([16_401, 16_401, 7]);
    // 16,401 is 0x4011.
    expect(records.map((r) => [...r.header])).toEqual([
      [23, 3, 3, 0x40, 0x11],
      [23, 3, 3, 0x40, 0x11],
      [23, 3, 3, 0, 7],
    ]);
    expect(Buffer.concat(records.map((r) => r.payload)).equals(bytes)).toBe(true);
  });

  it('makes one record of exactly a full payload, and none of nothing', () => {
    const records = parse(Buffer.concat(toRecords(randomBytes(RECORD_PAYLOAD))));
    expect(records.map((r) => [...r.header])).toEqual([[23, 3, 3, 0x40, 0x11]]);
    expect(Buffer.concat(toRecords(Buffer.alloc(0)))).toHaveLength(0);
  });
});

describe('RecordReader', () => {
  const reader = (skipFirstData = false) => new RecordReader({ skipFirstData });

  it('yields the payload of each application-data record, however many a chunk holds', () => {
    const r = reader();
    expect(r.push(Buffer.concat([data('one'), data('two'), data('three')]))).toEqual(
      ['one', 'two', 'three'].map((s) => Buffer.from(s)),
    );
    expect(r.push(Buffer.alloc(0))).toEqual([]);
  });

  it('skips the first application-data record when told (the peer’s flight), and only it', () => {
    const r = reader(true);
    expect(r.flightDone).toBe(false);
    expect(r.push(data('the flight'))).toEqual([]);
    expect(r.flightDone).toBe(true);
    expect(r.push(data('first data'))).toEqual([Buffer.from('first data')]);
    // Not told: the first record is data.
    expect(reader().push(data('first data'))).toEqual([Buffer.from('first data')]);
    expect(reader().flightDone).toBe(true);
  });

  it('passes over handshake and change_cipher_spec records before the data', () => {
    const r = reader(true);
    expect(r.push(Buffer.concat([serverHello, ccs, ccs]))).toEqual([]);
    expect(r.flightDone).toBe(false);
    expect(r.push(Buffer.concat([data('flight'), data('hello')]))).toEqual([Buffer.from('hello')]);
  });

  it('refuses a handshake or change_cipher_spec record once data has begun', () => {
    for (const late of [serverHello, ccs]) {
      const r = reader(true);
      r.push(Buffer.concat([ccs, data('flight'), data('data')]));
      expect(() => r.push(late)).toThrow(RecordError);
    }
  });

  it('refuses a record of any other type: an alert, a heartbeat, a byte that is no type', () => {
    for (const type of [21, 24, 0, 0xff]) {
      expect(() => reader().push(record(type, 'x')), `type ${type}`).toThrow(
        `a TLS record of type ${type}`,
      );
    }
  });

  it('refuses a record whose version is not 3.x, and bytes that are not TLS at all', () => {
    for (const version of [
      [2, 0],
      [4, 3],
      [3, 5],
      [0, 0],
    ] as [number, number][]) {
      expect(() => reader().push(record(APPLICATION_DATA, 'x', version)), `${version}`).toThrow(
        'not a TLS record',
      );
    }
    expect(() => reader().push(Buffer.from('GET / HTTP/1.1\r\n\r\n'))).toThrow(RecordError);
    // TLS 1.0's record version, as a ClientHello's record carries, is 3.1: accepted.
    expect(reader().push(record(APPLICATION_DATA, 'x', [3, 1]))).toEqual([Buffer.from('x')]);
  });

  it('refuses an application-data record of 0 bytes or over 16,640, from its header alone', () => {
    expect(() => reader().push(data(''))).toThrow('a record of a wrong size');
    // The header is enough: the 16,641 bytes it announces are not waited for.
    expect(() => reader().push(Buffer.from([23, 3, 3, 0x41, 0x01]))).toThrow(
      'a record of a wrong size',
    );
    expect(() => reader().push(Buffer.from([23, 3, 3, 0xff, 0xff]))).toThrow(RecordError);
    const largest = randomBytes(16_640);
    const [got] = reader().push(data(largest));
    expect(got!.equals(largest)).toBe(true);
  });

  it('reads records cut anywhere across chunks, down to one byte at a time', () => {
    const payloads = [randomBytes(1), randomBytes(300), randomBytes(16_640), Buffer.from('end')];
    const wire = Buffer.concat([serverHello, ccs, data('the flight'), ...payloads.map(data)]);
    const r = reader(true);
    const got: Buffer[] = [];
    for (let at = 0; at < wire.length; at++) {
      const out = r.push(wire.subarray(at, at + 1));
      // A record's data comes out with its last byte, not before.
      if (out.length) expect(out).toHaveLength(1);
      got.push(...out);
    }
    expect(got).toHaveLength(payloads.length);
    expect(got.every((g, i) => g.equals(payloads[i]!))).toBe(true);
  });
});

describe('RecordStream over loopback TCP', () => {
  const sockets = new Set<net.Socket>();
  const servers: net.Server[] = [];
  afterEach(async () => {
    for (const s of sockets) s.destroy();
    sockets.clear();
    await Promise.all(servers.splice(0).map((s) => new Promise<void>((r) => s.close(() => r()))));
  });

  /** Two ends of one TCP connection on loopback, both allowing half-open. */
  async function tcpPair(): Promise<[net.Socket, net.Socket]> {
    const server = net.createServer({ allowHalfOpen: true });
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const accepted = once(server, 'connection') as Promise<[net.Socket]>;
    const left = net.connect({
      host: '127.0.0.1',
      port: (server.address() as net.AddressInfo).port,
      allowHalfOpen: true,
    });
    sockets.add(left);
    await once(left, 'connect');
    const [right] = await accepted;
    sockets.add(right);
    return [left, right];
  }

  /** Everything a readable gives until it ends, or its error. */
  function readAll(s: NodeJS.ReadableStream & NodeJS.EventEmitter) {
    const chunks: Buffer[] = [];
    s.on('data', (c: Buffer) => chunks.push(c));
    return new Promise<{ data: Buffer; error?: Error }>((resolve) => {
      s.once('end', () => resolve({ data: Buffer.concat(chunks) }));
      s.once('error', (error: Error) => resolve({ data: Buffer.concat(chunks), error }));
    });
  }

  /** Resolves once `s` has received `n` bytes in all: the first `n` of them. */
  function firstBytes(s: net.Socket, n: number): Promise<Buffer> {
    const chunks: Buffer[] = [];
    let length = 0;
    return new Promise((resolve) => {
      const onData = (c: Buffer) => {
        chunks.push(c);
        length += c.length;
        if (length < n) return;
        s.off('data', onData);
        resolve(Buffer.concat(chunks).subarray(0, n));
      };
      s.on('data', onData);
    });
  }

  it('carries data both ways, more than 64 KB each way, in order and in full records', async () => {
    const [left, right] = await tcpPair();
    // What goes on the wire from the left: records of at most a full payload each.
    const wire = readAll(right);
    const a = new RecordStream(left, { skipFirstData: false });
    const b = new RecordStream(right, { skipFirstData: false });
    const there = randomBytes(200_000);
    const back = randomBytes(150_000);
    const gotThere = readAll(b);
    const gotBack = readAll(a);
    a.end(there);
    b.end(back);
    // Buffer.equals: a deep comparison of 200,000 elements would take the test's time.
    expect((await gotThere).data.equals(there)).toBe(true);
    expect((await gotBack).data.equals(back)).toBe(true);

    const records = parse((await wire).data);
    expect(records.every((r) => r.header[0] === 23 && r.header[1] === 3 && r.header[2] === 3)).toBe(
      true,
    );
    expect(records.every((r) => r.payload.length >= 1 && r.payload.length <= RECORD_PAYLOAD)).toBe(
      true,
    );
    expect(records.reduce((n, r) => n + r.payload.length, 0)).toBe(there.length);
  });

  it('hands the socket whole records, never a header alone (a 5-byte segment marks the stream)', async () => {
    const [left, right] = await tcpPair();
    // With no delay, as both ends run, each write to the socket is a TCP segment of its own:
    // a TLS stack sends a record's header and payload together, never a bare 5-byte header.
    left.setNoDelay(true);
    const writes: Buffer[] = [];
    const write = left.write.bind(left) as (chunk: Buffer) => boolean;
    left.write = ((chunk: Buffer) => {
      writes.push(Buffer.from(chunk));
      return write(chunk);
    }) as typeof left.write;
    const s = new RecordStream(left, { skipFirstData: false });
    const got = readAll(new RecordStream(right, { skipFirstData: false }));
    s.write('hello');
    s.end(randomBytes(40_000));
    expect((await got).data).toHaveLength(40_005);
    expect(writes.length).toBeGreaterThan(0);
    // Each write is a run of whole records: it parses to the end with nothing left over.
    for (const w of writes) expect(parse(w).length).toBeGreaterThan(0);
  });

  it('sends `prefix` before any record', async () => {
    const [left, right] = await tcpPair();
    const arrived = firstBytes(right, flight.length + 6);
    const s = new RecordStream(left, { prefix: flight, skipFirstData: false });
    s.write('x');
    expect(await arrived).toEqual(Buffer.concat([flight, data('x')]));
  });

  it('reads `head`, bytes already taken off the socket, before what the socket brings', async () => {
    const [left, right] = await tcpPair();
    const s = new RecordStream(left, {
      head: Buffer.concat([flight, data('from the head')]),
      skipFirstData: true,
    });
    const got = readAll(s);
    right.end(data(', then the socket'));
    expect((await got).data.toString()).toBe('from the head, then the socket');
  });

  it('sends `answerFlight` only once the peer’s flight is read, holding writes made before', async () => {
    const [left, right] = await tcpPair();
    const wire: Buffer[] = [];
    right.on('data', (c: Buffer) => wire.push(c));
    const client = new RecordStream(left, { skipFirstData: true, answerFlight: answer });
    const got = readAll(client);
    client.write('early');

    // All of the flight but its last record: the client has read it (its own listener comes
    // first) and still sends nothing, neither the answer nor the write.
    const partial = once(left, 'data');
    right.write(Buffer.concat([serverHello, ccs]));
    await partial;
    expect(left.bytesWritten).toBe(0);

    const expected = Buffer.concat([answer, data('early'), data('late')]);
    const arrived = firstBytes(right, expected.length);
    right.write(Buffer.concat([data('the flight'), data('and data')]));
    await new Promise((r) => client.once('data', r));
    client.write('late');
    expect(await arrived).toEqual(expected);
    expect(Buffer.concat(wire)).toEqual(expected);
    right.end();
    expect((await got).data.toString()).toBe('and data');
  });

  it('holds an end made before the peer’s flight until the answer has gone out', async () => {
    const [left, right] = await tcpPair();
    const client = new RecordStream(left, { skipFirstData: true, answerFlight: answer });
    const errors: string[] = [];
    client.on('error', (e: NodeJS.ErrnoException) => errors.push(e.code ?? e.message));
    client.resume();
    const wire = readAll(right);
    // A client with nothing to say: its end, like its writes, waits for the flight's answer.
    client.end();
    right.write(flight);
    expect((await wire).data).toEqual(answer);
    expect(errors).toEqual([]);
  });

  it('passes ends on both ways and keeps a half-closed stream’s other way open', async () => {
    const [left, right] = await tcpPair();
    const a = new RecordStream(left, { skipFirstData: false });
    const b = new RecordStream(right, { skipFirstData: false });
    const closed = Promise.all([once(a, 'close'), once(b, 'close')]);
    const atB = readAll(b);
    a.end('last words');
    // b has read a's end and can still answer: half-close, not close.
    expect((await atB).data.toString()).toBe('last words');
    expect(b.writable).toBe(true);
    const atA = readAll(a);
    b.end('an answer after the end');
    expect(await atA).toEqual({ data: Buffer.from('an answer after the end') });
    // Both ways ended: both streams and their sockets are done.
    await closed;
    expect(left.destroyed && right.destroyed).toBe(true);
  });

  it('is destroyed with a RecordError on a bad record, and resets the connection', async () => {
    const [left, right] = await tcpPair();
    const s = new RecordStream(left, { skipFirstData: false });
    const failed = readAll(s);
    const reset = readAll(right);
    right.write(Buffer.concat([data('fine'), Buffer.from('GET / HTTP/1.1\r\n\r\n')]));
    const { error } = await failed;
    expect(error).toBeInstanceOf(RecordError);
    expect(s.destroyed).toBe(true);
    expect((await reset).error).toMatchObject({ code: 'ECONNRESET' });
  });
});

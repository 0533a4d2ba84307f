// The relay's side of API streams on loopback: a client made of a TCP socket and the records
// around it (as the engine's relay stream is, without the native hello) gets the relay's flight
// first, then speaks TLS to a real HTTPS control plane through the splice, end to end. The
// limits (streams at once, new streams per source), a control plane that is down, the idle time,
// close() and a handed-over descriptor that is no socket.
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { fstatSync, openSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import net from 'node:net';
import tls from 'node:tls';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

import { RecordStream } from '../../platform/tls/record-stream.js';
import { selfSignedCertificate } from '../../platform/tls/testing/self-signed.js';
import { ApiRelay, type ApiRelayOptions } from './api-relay.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Closes `server` and every connection it took. */
function closing(server: net.Server, sockets: Set<net.Socket>) {
  return () =>
    new Promise<void>((r) => {
      for (const s of sockets) s.destroy();
      server.close(() => r());
    });
}

/** A plain TCP server on loopback; `onSocket` gets each connection. Its port. */
async function tcpServer(onSocket: (s: net.Socket) => void = () => undefined): Promise<number> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer({ allowHalfOpen: true }, (s) => {
    sockets.add(s);
    s.on('error', () => undefined);
    onSocket(s);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(closing(server, sockets));
  return (server.address() as net.AddressInfo).port;
}

/** The relay's flight as a node sends it: ServerHello, change_cipher_spec, the encrypted rest. */
const reply = Buffer.concat([
  Buffer.from([22, 3, 3, 0, 6, 2, 0, 0, 2, 3, 3]),
  Buffer.from([20, 3, 3, 0, 1, 1]),
  Buffer.from([23, 3, 3, 0, 64]),
  randomBytes(64),
]);

/** The client's answer to it: change_cipher_spec and a Finished record of 53 random bytes. */
const clientFinished = () =>
  Buffer.concat([Buffer.from([20, 3, 3, 0, 1, 1, 23, 3, 3, 0, 53]), randomBytes(53)]);

/** A relay in front of the control plane's `port`; its front port hands each socket over. */
async function relayTo(port: number, o: Partial<ApiRelayOptions> = {}) {
  const relay = new ApiRelay({ target: () => ({ addresses: ['127.0.0.1'], port }), ...o });
  const front = await tcpServer((s) => relay.take(s, reply));
  cleanups.push(() => relay.close());
  return { relay, port: front };
}

/** A raw TCP connection to the relay's front (from `localAddress` if given). */
async function connect(port: number, localAddress?: string): Promise<net.Socket> {
  const s = net.connect({ host: '127.0.0.1', port, localAddress, allowHalfOpen: true });
  cleanups.push(() => void s.destroy());
  await once(s, 'connect');
  return s;
}

/** Everything a socket receives until it ends or closes, and the error it ended with. */
function received(s: net.Socket): Promise<{ data: Buffer; error?: string }> {
  const chunks: Buffer[] = [];
  s.on('data', (c: Buffer) => chunks.push(c));
  return new Promise((resolve) => {
    s.once('error', (e: NodeJS.ErrnoException) =>
      resolve({ data: Buffer.concat(chunks), error: e.code ?? e.message }),
    );
    s.once('end', () => resolve({ data: Buffer.concat(chunks) }));
    s.once('close', () => resolve({ data: Buffer.concat(chunks) }));
  });
}

/** Whether the relay answers a connection (its first bytes) or closes it unanswered. */
function answered(s: net.Socket): Promise<boolean> {
  return new Promise((resolve) => {
    s.once('data', () => resolve(true));
    s.once('end', () => resolve(false));
    s.once('close', () => resolve(false));
  });
}

/** Resolves once `s` has received `n` bytes in all: the first `n` of them. */
function firstBytes(s: net.Socket, n: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let length = 0;
  return new Promise((resolve, reject) => {
    const onData = (c: Buffer) => {
      chunks.push(c);
      length += c.length;
      if (length < n) return;
      s.off('data', onData);
      resolve(Buffer.concat(chunks).subarray(0, n));
    };
    s.on('data', onData);
    s.once('close', () => reject(new Error(`closed after ${length} of ${n} bytes`)));
  });
}

/** A stream the relay took: its flight has arrived. */
async function taken(port: number, localAddress?: string): Promise<net.Socket> {
  const s = await connect(port, localAddress);
  expect(await firstBytes(s, reply.length)).toEqual(reply);
  return s;
}

describe('the API relay', () => {
  let site: { cert: string; key: string };
  beforeAll(() => {
    site = selfSignedCertificate('control.example');
  });

  it('answers its flight first, then carries the client’s own TLS to the control plane', async () => {
    let servername: string | false | null | undefined;
    const https = createHttpsServer({ cert: site.cert, key: site.key }, (q, a) => {
      servername = (q.socket as tls.TLSSocket).servername;
      a.end(`hello from the control plane: ${q.method} ${q.url}`);
    });
    const sockets = new Set<net.Socket>();
    https.on('connection', (s: net.Socket) => sockets.add(s));
    await new Promise<void>((r) => https.listen(0, '127.0.0.1', r));
    cleanups.push(closing(https, sockets));
    const { relay, port } = await relayTo((https.address() as net.AddressInfo).port);

    const raw = await connect(port);
    raw.setNoDelay(true);
    // What arrives first is the relay's flight, byte for byte.
    const flight = firstBytes(raw, reply.length);
    const stream = new RecordStream(raw, { skipFirstData: true, answerFlight: clientFinished() });
    expect(await flight).toEqual(reply);

    // The client's TLS runs inside the records: the certificate is the control plane's, checked
    // against it and its name, and the relay never sees the handshake's keys.
    const client = tls.connect({
      socket: stream,
      servername: 'control.example',
      ca: site.cert,
    });
    await once(client, 'secureConnect');
    expect(client.authorized).toBe(true);
    const answer = new Promise<string>((resolve, reject) => {
      const chunks: Buffer[] = [];
      client.on('data', (c: Buffer) => chunks.push(c));
      client.once('end', () => resolve(Buffer.concat(chunks).toString()));
      client.once('error', reject);
    });
    client.write(
      'GET /api/v1/health HTTP/1.1\r\nhost: control.example\r\nconnection: close\r\n\r\n',
    );
    const text = await answer;
    expect(text).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(text).toContain('hello from the control plane: GET /api/v1/health');
    expect(servername).toBe('control.example');
    client.destroy();
    await vi.waitFor(() => expect(relay.active).toBe(0));
  });

  it('closes a stream beyond the streams at once unanswered, and takes one when a stream ends', async () => {
    // A control plane that ends its side when the client has ended its own, as a server does.
    const controlPlane = await tcpServer((s) => s.on('end', () => s.end()));
    const { relay, port } = await relayTo(controlPlane, { maxStreams: 2 });
    const a = await taken(port);
    await taken(port);
    expect(relay.active).toBe(2);
    const refused = await connect(port);
    // Not even the flight: closed as a port closes what it cannot take.
    expect(await answered(refused)).toBe(false);
    expect(relay.active).toBe(2);
    a.destroy();
    await vi.waitFor(() => expect(relay.active).toBe(1));
    await taken(port);
    expect(relay.active).toBe(2);
  });

  it('closes a source’s streams beyond its rate unanswered, not another source’s', async () => {
    let clock = 0;
    const { port } = await relayTo(await tcpServer(), {
      perSource: { perSecond: 1, burst: 1, maxKeys: 16 },
      now: () => clock,
    });
    await taken(port, '127.0.0.1');
    const over = await connect(port, '127.0.0.1');
    expect(await answered(over)).toBe(false);
    // Another address has its own bucket.
    await taken(port, '127.0.0.2');
    // A second later, the first source has a token again.
    clock += 1_000;
    await taken(port, '127.0.0.1');
  });

  it('counts an IPv6 source by its /64, as the probe responder does: one host may hold all of it', async () => {
    let clock = 0;
    const controlPlane = await tcpServer();
    const relay = new ApiRelay({
      target: () => ({ addresses: ['127.0.0.1'], port: controlPlane }),
      perSource: { perSecond: 1, burst: 1, maxKeys: 16 },
      now: () => clock,
    });
    cleanups.push(() => relay.close());
    // Loopback has no global IPv6 addresses to connect from: the relay is shown each connection
    // as coming from the next address of one /64, as a host rotating its addresses would.
    let host = 0;
    const front = await tcpServer((s) => {
      Object.defineProperty(s, 'remoteAddress', {
        value: `2001:db8:1:2::${(++host).toString(16)}`,
      });
      relay.take(s, reply);
    });
    await taken(front);
    const sameHost = await connect(front);
    expect(await answered(sameHost)).toBe(false);
    clock += 1_000;
    await taken(front);
  });

  it('closes the client when the control plane cannot be reached', async () => {
    const down = await tcpServer();
    // A port nothing listens on: the one just closed by the cleanup below.
    await cleanups.pop()!();
    const { relay, port } = await relayTo(down);
    const client = await connect(port);
    const ended = received(client);
    const { data } = await ended;
    expect(data.equals(reply)).toBe(true);
    await vi.waitFor(() => expect(relay.active).toBe(0));
  });

  it('tries the control plane’s addresses in turn', async () => {
    const echo = await tcpServer((s) => s.pipe(s));
    const down = await tcpServer();
    // A port nothing listens on: the one just closed by the cleanup below.
    await cleanups.pop()!();
    const tried: string[] = [];
    const { port } = await relayTo(echo, {
      target: () => ({ addresses: ['127.0.0.9', '127.0.0.1'], port: echo }),
      connect: (o) => {
        const { host, port } = o as net.TcpNetConnectOpts;
        tried.push(String(host));
        // The first address refuses the connection.
        return net.connect({ ...o, port: host === '127.0.0.9' ? down : port });
      },
    });
    // The records around the socket from the start: they read the flight themselves.
    const stream = new RecordStream(await connect(port), {
      skipFirstData: true,
      answerFlight: clientFinished(),
    });
    const echoed = once(stream, 'data') as Promise<[Buffer]>;
    stream.write('through the second address');
    expect((await echoed)[0].toString()).toBe('through the second address');
    expect(tried).toEqual(['127.0.0.9', '127.0.0.1']);
  });

  it('ends a stream with no byte either way for the idle time', async () => {
    const { relay, port } = await relayTo(await tcpServer(), { idleMs: 200 });
    const client = await taken(port);
    await received(client);
    await vi.waitFor(() => expect(relay.active).toBe(0));
  });

  it('ends every live stream on close(), and takes none after', async () => {
    const { relay, port } = await relayTo(await tcpServer());
    const clients = [await taken(port), await taken(port)];
    const ended = clients.map(received);
    relay.close();
    await Promise.all(ended);
    expect(relay.active).toBe(0);
    const late = await connect(port);
    expect(await answered(late)).toBe(false);
  });

  it('closes a handed-over descriptor that is not a socket', () => {
    const relay = new ApiRelay({ target: () => ({ addresses: ['127.0.0.1'], port: 9 }) });
    cleanups.push(() => relay.close());
    const fd = openSync('/dev/null', 'r');
    relay.onApiStream(fd, reply);
    expect(() => fstatSync(fd)).toThrow(/EBADF/);
    expect(relay.active).toBe(0);
  });
});

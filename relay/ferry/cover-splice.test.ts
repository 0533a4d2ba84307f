// The cover-site splice on loopback: through it a TLS client gets the cover site's own
// certificate and answers; the bytes read before the handover go first; half-close, resets,
// a cover site that is down, the bound on splices, the idle timeout and close() behave.
import { once } from 'node:events';
import net from 'node:net';
import tls from 'node:tls';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CoverSplice } from './cover-splice.js';
import { startHandoverPort, startTestCoverSite } from './testing/cover-server.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A plain TCP server on loopback; `onSocket` gets each connection. */
async function tcpServer(onSocket: (s: net.Socket) => void) {
  const sockets = new Set<net.Socket>();
  const server = net.createServer({ allowHalfOpen: true }, (s) => {
    sockets.add(s);
    s.on('error', () => undefined);
    onSocket(s);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(
    () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  );
  return (server.address() as net.AddressInfo).port;
}

async function spliceTo(
  port: number,
  o: Partial<ConstructorParameters<typeof CoverSplice>[0]> = {},
) {
  const splice = new CoverSplice({ target: () => ({ host: '127.0.0.1', port }), ...o });
  const front = await startHandoverPort((socket, head) => splice.splice(socket, head));
  cleanups.push(
    () => front.close(),
    () => splice.close(),
  );
  return { splice, port: front.port };
}

/** Everything a socket receives until it ends or closes, and how it ended. */
function received(s: net.Socket): Promise<{ data: Buffer; error?: string }> {
  const chunks: Buffer[] = [];
  s.on('data', (c: Buffer) => chunks.push(c));
  return new Promise((resolve) => {
    s.once('error', (e: NodeJS.ErrnoException) =>
      resolve({ data: Buffer.concat(chunks), error: e.code ?? e.message }),
    );
    // The test's sockets allow half-open: the far end's FIN ends what they receive.
    s.once('end', () => resolve({ data: Buffer.concat(chunks) }));
    s.once('close', () => resolve({ data: Buffer.concat(chunks) }));
  });
}

function connect(port: number): Promise<net.Socket> {
  const s = net.connect({ host: '127.0.0.1', port, allowHalfOpen: true });
  return once(s, 'connect').then(() => s);
}

describe('the cover-site splice', () => {
  it('gives a TLS client the cover site’s certificate, byte for byte, and its answers', async () => {
    const site = await startTestCoverSite('cover.example');
    cleanups.push(() => site.close());
    const { port } = await spliceTo(site.port);

    const client = tls.connect({
      host: '127.0.0.1',
      port,
      servername: 'cover.example',
      rejectUnauthorized: false,
      ALPNProtocols: ['http/1.1'],
    });
    await once(client, 'secureConnect');
    expect(Buffer.from(client.getPeerX509Certificate()!.raw)).toEqual(site.certDer);
    client.write('GET / HTTP/1.1\r\nhost: cover.example\r\nconnection: close\r\n\r\n');
    const { data } = await received(client);
    const answer = data.toString();
    expect(answer).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(answer).toContain('x-cover: cover.example');
    expect(answer).toContain('<title>cover.example</title>');
  });

  it('writes what was read before the handover first, then the rest in order', async () => {
    const got = new Promise<Buffer>((resolve) => {
      void tcpServer((s) => {
        const chunks: Buffer[] = [];
        s.on('data', (c: Buffer) => chunks.push(c));
        s.on('end', () => {
          resolve(Buffer.concat(chunks));
          s.end();
        });
      }).then((coverPort) => spliceTo(coverPort).then(({ port }) => started(port)));
    });
    let client!: net.Socket;
    async function started(port: number) {
      client = await connect(port);
      client.write('first flight|');
      await new Promise((r) => setTimeout(r, 50));
      client.write('second|');
      client.end('third');
    }
    expect((await got).toString()).toBe('first flight|second|third');
    client.destroy();
  });

  it('honours half-close: a stranger that shut its side still gets the whole answer', async () => {
    const coverPort = await tcpServer((s) => {
      const chunks: Buffer[] = [];
      s.on('data', (c: Buffer) => chunks.push(c));
      // Answers only once the request has ended, as a server reading to EOF does.
      s.on('end', () => setTimeout(() => s.end(`answer to ${Buffer.concat(chunks)}`), 50));
    });
    const { splice, port } = await spliceTo(coverPort);
    const client = await connect(port);
    const answer = received(client);
    client.end('request');
    expect(await answer).toEqual({ data: Buffer.from('answer to request') });
    await vi.waitFor(() => expect(splice.active).toBe(0));
  });

  it('passes a reset on: the cover site’s to the stranger, the stranger’s to the cover site', async () => {
    const coverPort = await tcpServer((s) => s.once('data', () => s.resetAndDestroy()));
    const { splice, port } = await spliceTo(coverPort);
    const client = await connect(port);
    const ended = received(client);
    client.write('hello');
    expect((await ended).error).toBe('ECONNRESET');
    await vi.waitFor(() => expect(splice.active).toBe(0));

    let coverSide!: Promise<{ data: Buffer; error?: string }>;
    const seen = new Promise<void>((r) => {
      void tcpServer((s) => {
        coverSide = received(s);
        s.once('data', () => r());
      }).then(async (p) => {
        const again = await spliceTo(p);
        const c = await connect(again.port);
        c.on('error', () => undefined);
        c.write('x');
        await seen;
        c.resetAndDestroy();
      });
    });
    await seen;
    expect((await coverSide).error).toBe('ECONNRESET');
  });

  it('resets a stranger when the cover site is down, and says so (it may have moved)', async () => {
    const closed = await tcpServer(() => undefined);
    // A port nothing listens on: the one just closed by the cleanup below.
    await cleanups.pop()!();
    const onConnectFailed = vi.fn();
    const { splice, port } = await spliceTo(closed, { onConnectFailed });
    const client = await connect(port);
    const ended = received(client);
    client.write('hello');
    expect((await ended).error).toBe('ECONNRESET');
    expect(onConnectFailed).toHaveBeenCalledTimes(1);
    expect(splice.active).toBe(0);
  });

  it('closes strangers beyond the bound at once, and takes new ones when a splice ends', async () => {
    const coverPort = await tcpServer((s) => {
      s.on('data', (c: Buffer) => s.write(c));
      s.on('end', () => s.end());
    });
    const { splice, port } = await spliceTo(coverPort, { maxSplices: 2 });
    const a = await connect(port);
    const b = await connect(port);
    for (const s of [a, b]) s.write('hi');
    await vi.waitFor(() => expect(splice.active).toBe(2));
    const c = await connect(port);
    const refused = received(c);
    c.write('hi');
    expect((await refused).data).toHaveLength(0);
    a.destroy();
    await vi.waitFor(() => expect(splice.active).toBe(1));
    const d = await connect(port);
    const echoed = new Promise<Buffer>((r) => d.once('data', r));
    d.write('again');
    expect((await echoed).toString()).toBe('again');
    for (const s of [b, d]) s.destroy();
  });

  it('ends a splice with no bytes either way for the idle time, and every splice on close()', async () => {
    const coverPort = await tcpServer(() => undefined);
    const { splice, port } = await spliceTo(coverPort, { idleMs: 300 });
    const idle = await connect(port);
    const idleEnded = received(idle);
    idle.write('x');
    await vi.waitFor(() => expect(splice.active).toBe(1));
    await idleEnded;
    await vi.waitFor(() => expect(splice.active).toBe(0));

    const kept = await connect(port);
    const keptEnded = received(kept);
    kept.write('y');
    await vi.waitFor(() => expect(splice.active).toBe(1));
    splice.close();
    await keptEnded;
    expect(splice.active).toBe(0);
    // Closed, it takes no one.
    const late = await connect(port);
    const lateEnded = received(late);
    late.write('z');
    expect((await lateEnded).data).toHaveLength(0);
  });
});

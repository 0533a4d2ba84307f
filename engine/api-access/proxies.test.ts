// API access through a proxy, for real on loopback (root, as the engine runs: the connection to
// the proxy is the engine's marked socket): an HTTP proxy answering CONNECT (node:http's
// 'connect' event) and a SOCKS5 proxy written here (RFC 1928, RFC 1929), each tunnelling to a
// local echo server. A tunnel carries bytes both ways, bytes the proxy sends right after its
// answer are kept, the control plane's host goes to a SOCKS5 proxy as a name, and a refusal, an
// answer that is not the protocol, or the caller's signal, fails the call with the socket closed.
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { createServer as createHttpServer, type IncomingMessage } from 'node:http';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';

import { parseApiMethod } from '../../contracts/index.js';
import { CONTROL_FWMARK } from '../protection/firewall-policy.js';
import { openHttpConnect, openSocks5, type ProxyMethod } from './proxies.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Listens on loopback; closes the server and every connection it took in the cleanup. */
async function listening(server: net.Server): Promise<number> {
  const sockets = new Set<net.Socket>();
  server.on('connection', (s: net.Socket) => {
    sockets.add(s);
    s.on('error', () => undefined);
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

/** The control plane stand-in: echoes what it is sent. */
const echoServer = () => listening(net.createServer((s) => s.pipe(s)));

/** The mark of the local socket with this port (ss -e), or undefined. */
function markOf(localPort: number): string | undefined {
  const out = execFileSync('ss', ['-tane', `sport = :${localPort}`], { encoding: 'utf8' });
  return /fwmark:(0x[0-9a-f]+)/.exec(out)?.[1];
}

/** Resolves with the first `n` bytes `s` receives (resuming it: a tunnel may come paused). */
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
    s.resume();
  });
}

/** A tunnel's end, closed in the cleanup. */
function kept(s: net.Socket): net.Socket {
  cleanups.push(() => void s.destroy());
  return s;
}

const options = (signal = new AbortController().signal) => ({ signal, addresses: ['127.0.0.1'] });

/** What a rejection says, for checks of its words. */
const words = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('it did not fail');
    },
    (e: unknown) => (e as Error).message,
  );

describe('an HTTP proxy (CONNECT)', () => {
  /**
   * A proxy whose CONNECT answer is `answer`'s; the requests it was sent, and for each one when
   * the engine's side went away (its FIN or reset: the proxy's socket allows half-open).
   */
  async function httpProxy(answer: (q: IncomingMessage, s: net.Socket, head: Buffer) => void) {
    const requests: IncomingMessage[] = [];
    const gone: Promise<void>[] = [];
    const server = createHttpServer();
    server.on('connect', (q: IncomingMessage, s: net.Socket, head: Buffer) => {
      requests.push(q);
      gone.push(
        new Promise<void>((r) => {
          s.once('end', r);
          s.once('close', r);
        }),
      );
      s.on('error', () => undefined);
      answer(q, s, head);
    });
    const port = await listening(server);
    return { method: parseApiMethod(`http://127.0.0.1:${port}`) as ProxyMethod, requests, gone };
  }

  it('tunnels to the host asked for, from the engine’s marked socket', async () => {
    const echo = await echoServer();
    const proxy = await httpProxy((_q, s, head) => {
      const up = net.connect(echo, '127.0.0.1', () => {
        s.write('HTTP/1.1 200 Connection established\r\n\r\n');
        up.write(head);
        s.pipe(up).pipe(s);
      });
      up.on('error', () => s.destroy());
      cleanups.push(() => void up.destroy());
    });
    const tunnel = kept(await openHttpConnect(proxy.method, 'control.example', 443, options()));
    expect(proxy.requests[0]!.url).toBe('control.example:443');
    expect(proxy.requests[0]!.headers.host).toBe('control.example:443');
    expect(markOf(tunnel.localPort!)).toBe(`0x${CONTROL_FWMARK.toString(16)}`);
    const echoed = firstBytes(tunnel, 5);
    tunnel.write('hello');
    expect((await echoed).toString()).toBe('hello');
  });

  it('writes an IPv6 host in brackets in the CONNECT request', async () => {
    const proxy = await httpProxy((_q, s) => s.end('HTTP/1.1 403 Forbidden\r\n\r\n'));
    await words(openHttpConnect(proxy.method, '2001:db8::1', 443, options()));
    expect(proxy.requests[0]!.url).toBe('[2001:db8::1]:443');
  });

  it('keeps the bytes that follow the proxy’s answer in the same packet', async () => {
    const echo = await echoServer();
    const proxy = await httpProxy((_q, s) => {
      const up = net.connect(echo, '127.0.0.1', () => {
        // The answer and the tunnel's first bytes in one write, so one segment, as a proxy
        // that relays a server speaking first may send them.
        s.write('HTTP/1.1 200 Connection established\r\nVia: test\r\n\r\nearly bytes|');
        s.pipe(up).pipe(s);
      });
      up.on('error', () => s.destroy());
      cleanups.push(() => void up.destroy());
    });
    const tunnel = kept(await openHttpConnect(proxy.method, 'control.example', 443, options()));
    // All the tunnel gives up to the echo, which comes last: what came before it is all there.
    const got = new Promise<string>((resolve) => {
      let text = '';
      tunnel.on('data', (c: Buffer) => {
        text += c.toString();
        if (text.endsWith('then the echo')) resolve(text);
      });
      tunnel.resume();
    });
    tunnel.write('then the echo');
    expect(await got).toBe('early bytes|then the echo');
  });

  for (const [status, line] of [
    [407, 'HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="x"'],
    [403, 'HTTP/1.0 403 Forbidden'],
  ] as const) {
    it(`fails on ${status}, naming the status and no address, and closes the socket`, async () => {
      const proxy = await httpProxy((_q, s) => s.write(`${line}\r\nContent-Length: 0\r\n\r\n`));
      const message = await words(openHttpConnect(proxy.method, 'control.example', 443, options()));
      expect(message).toContain(`HTTP ${status}`);
      for (const address of ['127.0.0.1', String(proxy.method.port), 'control.example'])
        expect(message).not.toContain(address);
      // The proxy kept its side open: the engine closed the connection.
      await proxy.gone[0];
    });
  }

  it('fails on an answer that is not HTTP, however it ends', async () => {
    const notHttp = await httpProxy((_q, s) => s.write('SSH-2.0-OpenSSH_9.6\r\n\r\n'));
    expect(await words(openHttpConnect(notHttp.method, 'control.example', 443, options()))).toBe(
      'the proxy’s answer is not HTTP',
    );
    await notHttp.gone[0];

    // No end of a head at all: read no further than 16 KiB.
    const endless = await httpProxy((_q, s) => s.write('x'.repeat(20_000)));
    expect(await words(openHttpConnect(endless.method, 'control.example', 443, options()))).toBe(
      'the proxy’s answer is not HTTP',
    );

    const closed = await httpProxy((_q, s) => s.end('HTTP/1.1 200 OK\r\n'));
    expect(await words(openHttpConnect(closed.method, 'control.example', 443, options()))).toBe(
      'the proxy closed the connection',
    );
  });

  it('fails when the signal aborts while the proxy says nothing, and closes the socket', async () => {
    const proxy = await httpProxy(() => undefined);
    const stop = new AbortController();
    const opening = words(
      openHttpConnect(proxy.method, 'control.example', 443, options(stop.signal)),
    );
    // The proxy has the request: the engine is waiting for its answer.
    await expect.poll(() => proxy.requests.length).toBe(1);
    stop.abort(new Error('the call is over'));
    expect(await opening).toMatch(/proxy/);
    await proxy.gone[0];
  });

  it('fails, saying so, when the proxy cannot be reached', async () => {
    const port = await listening(net.createServer());
    // A port nothing listens on: the one just closed by the cleanup below.
    await cleanups.pop()!();
    const method = parseApiMethod(`http://127.0.0.1:${port}`) as ProxyMethod;
    expect(await words(openHttpConnect(method, 'control.example', 443, options()))).toMatch(
      /^cannot reach the proxy: /,
    );
  });
});

/** What a SOCKS5 proxy was asked: the methods offered, the credentials, the destination. */
interface Socks5Seen {
  methods: number[];
  user?: string;
  password?: string;
  atyp?: number;
  host?: string;
  port?: number;
}

/**
 * A minimal SOCKS5 proxy (RFC 1928 CONNECT; RFC 1929 username/password when `credentials` are
 * given, which it then requires) that connects every request to `upstream` on loopback, whatever
 * the destination, and remembers what it was asked.
 */
async function socks5Proxy(upstream: number, credentials?: { user: string; password: string }) {
  const seen: Socks5Seen[] = [];
  const sockets: net.Socket[] = [];
  const port = await listening(
    net.createServer((s) => {
      sockets.push(s);
      const asked: Socks5Seen = { methods: [] };
      seen.push(asked);
      void serve(s, asked).catch(() => s.destroy());
    }),
  );

  /** Reads exactly `n` bytes as they come; rejects if the socket ends first. */
  function reader(s: net.Socket) {
    let buffer = Buffer.alloc(0);
    let wake: (() => void) | undefined;
    let ended = false;
    s.on('data', (c: Buffer) => {
      buffer = Buffer.concat([buffer, c]);
      wake?.();
    });
    s.once('close', () => {
      ended = true;
      wake?.();
    });
    const read = async (n: number): Promise<Buffer> => {
      // Each turn waits for a chunk or the close: bounded by what the client sends.
      while (buffer.length < n) {
        if (ended) throw new Error('the client went away');
        await new Promise<void>((r) => (wake = r));
      }
      const out = buffer.subarray(0, n);
      buffer = buffer.subarray(n);
      return out;
    };
    return { read, rest: () => buffer };
  }

  async function serve(s: net.Socket, asked: Socks5Seen) {
    const { read, rest } = reader(s);
    const [version, count] = await read(2);
    if (version !== 5) return s.destroy();
    asked.methods = [...(await read(count!))];
    const method = credentials ? 2 : 0;
    if (!asked.methods.includes(method)) return s.end(Buffer.from([5, 0xff]));
    s.write(Buffer.from([5, method]));
    if (credentials) {
      const [, userLength] = await read(2);
      asked.user = (await read(userLength!)).toString();
      const [passwordLength] = await read(1);
      asked.password = (await read(passwordLength!)).toString();
      const ok = asked.user === credentials.user && asked.password === credentials.password;
      if (!ok) return s.end(Buffer.from([1, 1]));
      s.write(Buffer.from([1, 0]));
    }
    const [, command, , atyp] = await read(4);
    asked.atyp = atyp;
    if (atyp === 3) asked.host = (await read((await read(1))[0]!)).toString();
    else {
      const address = await read(atyp === 1 ? 4 : 16);
      asked.host =
        atyp === 1
          ? [...address].join('.')
          : (address.toString('hex').match(/.{4}/g) ?? []).join(':');
    }
    asked.port = (await read(2)).readUInt16BE(0);
    // Command not supported (7) unless CONNECT.
    if (command !== 1) return s.end(Buffer.from([5, 7, 0, 1, 0, 0, 0, 0, 0, 0]));
    const up = net.connect(upstream, '127.0.0.1');
    up.on('error', () => s.destroy());
    await once(up, 'connect');
    s.removeAllListeners('data');
    s.write(Buffer.from([5, 0, 0, 1, 127, 0, 0, 1, up.localPort! >> 8, up.localPort! & 0xff]));
    if (rest().length) up.write(rest());
    s.pipe(up).pipe(s);
    sockets.push(up);
  }

  cleanups.push(() => sockets.forEach((s) => s.destroy()));
  return { port, seen, sockets };
}

describe('a SOCKS5 proxy', () => {
  it('tunnels to the host asked for, handing the proxy its NAME to resolve (RFC 1928)', async () => {
    const echo = await echoServer();
    const proxy = await socks5Proxy(echo);
    const method = parseApiMethod(`socks5://127.0.0.1:${proxy.port}`) as ProxyMethod;
    const tunnel = kept(await openSocks5(method, 'control.example', 443, options()));
    // The name, not an address the local resolver (which may lie) gave.
    expect(proxy.seen[0]).toMatchObject({
      methods: [0],
      atyp: 3,
      host: 'control.example',
      port: 443,
    });
    expect(markOf(tunnel.localPort!)).toBe(`0x${CONTROL_FWMARK.toString(16)}`);
    const echoed = firstBytes(tunnel, 'through socks'.length);
    tunnel.write('through socks');
    expect((await echoed).toString()).toBe('through socks');
  });

  it('signs in with the user name and password of the URL (RFC 1929)', async () => {
    const echo = await echoServer();
    const proxy = await socks5Proxy(echo, { user: 'me', password: 's@cret' });
    const method = parseApiMethod(`socks5://me:s%40cret@127.0.0.1:${proxy.port}`) as ProxyMethod;
    const tunnel = kept(await openSocks5(method, 'control.example', 443, options()));
    expect(proxy.seen[0]).toMatchObject({
      methods: [0, 2],
      user: 'me',
      password: 's@cret',
      atyp: 3,
      host: 'control.example',
    });
    const echoed = firstBytes(tunnel, 'signed in'.length);
    tunnel.write('signed in');
    expect((await echoed).toString()).toBe('signed in');
  });

  it('fails on a wrong password, never quoting it, with the socket closed', async () => {
    const proxy = await socks5Proxy(await echoServer(), { user: 'me', password: 's@cret' });
    const method = parseApiMethod(`socks5://me:hunter2@127.0.0.1:${proxy.port}`) as ProxyMethod;
    const message = await words(openSocks5(method, 'control.example', 443, options()));
    expect(message).toMatch(/^the SOCKS5 proxy refused: /);
    expect(message).not.toContain('hunter2');
    expect(proxy.seen[0]!.host).toBeUndefined();
    await expect.poll(() => proxy.sockets[0]!.destroyed).toBe(true);
  });

  it('fails when the proxy takes no method the engine offers', async () => {
    // A proxy that requires a password, asked with none.
    const proxy = await socks5Proxy(await echoServer(), { user: 'me', password: 's@cret' });
    const method = parseApiMethod(`socks5://127.0.0.1:${proxy.port}`) as ProxyMethod;
    expect(await words(openSocks5(method, 'control.example', 443, options()))).toMatch(
      /^the SOCKS5 proxy refused: /,
    );
    expect(proxy.seen[0]!.methods).toEqual([0]);
  });
});

// The engine's marked sockets, for real on loopback (root, as the engine runs): the mark is on
// the socket the kernel sends from (ss -e shows it), TCP and UDP carry data, and a socket that
// cannot be marked is an error, never an unmarked socket.
import { execFileSync } from 'node:child_process';
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { readdirSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';

import { connectMarkedTcp, markedUdpSocket } from './marked-socket.js';

const MARK = 0x6667;

/** The mark the kernel holds for the socket with this local port (ss -e), or undefined. */
function markOf(proto: 'tcp' | 'udp', localPort: number): string | undefined {
  const out = execFileSync('ss', [`-${proto[0]}ane`, `sport = :${localPort}`], {
    encoding: 'utf8',
  });
  return /fwmark:(0x[0-9a-f]+)/.exec(out)?.[1];
}

const closers: (() => void)[] = [];
afterEach(() => {
  while (closers.length) closers.pop()!();
});

function echoServer(host: string): Promise<Server> {
  const server = createServer((s) => s.pipe(s));
  closers.push(() => server.close());
  return new Promise((resolve) => server.listen(0, host, () => resolve(server)));
}

function udpEcho(type: 'udp4' | 'udp6', host: string): Promise<UdpSocket> {
  const echo = createSocket(type);
  echo.on('message', (m, r) => echo.send(m, r.port, r.address));
  closers.push(() => echo.close());
  return new Promise((resolve) => echo.bind(0, host, () => resolve(echo)));
}

describe('marked sockets', () => {
  for (const host of ['127.0.0.1', '::1']) {
    it(`TCP to ${host}: connected, carrying data, the mark on the socket`, async () => {
      const server = await echoServer(host);
      const port = (server.address() as { port: number }).port;
      const socket = await connectMarkedTcp(host, port, MARK);
      closers.push(() => socket.destroy());
      expect(markOf('tcp', socket.localPort!)).toBe('0x6667');
      const echoed = new Promise<string>((resolve) => socket.once('data', (d) => resolve(`${d}`)));
      socket.write('hello');
      expect(await echoed).toBe('hello');
    });
  }

  it('UDP: sends and receives on a connected socket with the mark', async () => {
    const echo = await udpEcho('udp4', '127.0.0.1');
    const socket = markedUdpSocket(4, MARK);
    closers.push(() => socket.close());
    await new Promise<void>((resolve) => socket.connect(echo.address().port, '127.0.0.1', resolve));
    expect(markOf('udp', socket.address().port)).toBe('0x6667');
    const echoed = new Promise<string>((resolve) => socket.once('message', (m) => resolve(`${m}`)));
    socket.send('probe');
    expect(await echoed).toBe('probe');
  });

  it('reports a refused connection as the socket’s error', async () => {
    const server = await echoServer('127.0.0.1');
    const port = (server.address() as { port: number }).port;
    server.close();
    await expect(connectMarkedTcp('127.0.0.1', port, MARK)).rejects.toMatchObject({
      code: 'ECONNREFUSED',
    });
  });

  it('closes the socket still connecting when its signal aborts, and says why', async () => {
    const server = await echoServer('127.0.0.1');
    const port = (server.address() as { port: number }).port;
    const openFds = () => readdirSync('/proc/self/fd').length;
    const before = openFds();
    const stop = new AbortController();
    const connecting = connectMarkedTcp('127.0.0.1', port, MARK, undefined, stop.signal);
    stop.abort(new Error('the call is over'));
    await expect(connecting).rejects.toThrow('the call is over');
    // The descriptor the addon made is closed with it (a leak would hold it for minutes).
    await new Promise((r) => setImmediate(r));
    expect(openFds()).toBe(before);
    // Already aborted: nothing is opened at all.
    await expect(async () =>
      connectMarkedTcp('127.0.0.1', port, MARK, undefined, stop.signal),
    ).rejects.toThrow('the call is over');
  });

  it('connects to addresses only: a name would make net open sockets of its own', () => {
    expect(() => connectMarkedTcp('localhost', 80, MARK)).toThrow(TypeError);
  });

  it('fails, never goes unmarked, when the socket cannot be marked', () => {
    const cannot = () => {
      throw Object.assign(new Error('cannot set the socket mark: Operation not permitted'), {
        code: 'ERR_FERRY_MARK',
      });
    };
    expect(() => connectMarkedTcp('127.0.0.1', 80, MARK, cannot)).toThrow(/socket mark/);
    expect(() => markedUdpSocket(4, MARK, cannot)).toThrow(/socket mark/);
  });
});

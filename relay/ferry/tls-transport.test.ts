// The relay's TLS port on loopback, without the native server: every connection is a
// stranger's, and gets the cover site (its certificate, byte for byte); a descriptor that is
// no socket is closed, not kept; close() frees the port.
import { once } from 'node:events';
import { openSync, fstatSync } from 'node:fs';
import net from 'node:net';
import tls from 'node:tls';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestCoverSite } from './testing/cover-server.js';
import { TlsTransport } from './tls-transport.js';

const log = pino({ level: 'silent' });
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as net.AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}

describe('the TLS port', () => {
  it('is the cover site to a stranger, and frees its port on close', async () => {
    const site = await startTestCoverSite('cover.example');
    cleanups.push(() => site.close());
    const port = await freePort();
    const transport = await TlsTransport.prepare(
      { port, cover: { host: '127.0.0.1', port: site.port }, serverName: 'cover.example' },
      log,
      new AbortController().signal,
    );
    await transport.listen('127.0.0.1');
    const client = tls.connect({
      host: '127.0.0.1',
      port,
      servername: 'cover.example',
      rejectUnauthorized: false,
    });
    await once(client, 'secureConnect');
    expect(Buffer.from(client.getPeerX509Certificate()!.raw)).toEqual(site.certDer);
    client.destroy();
    await transport.close();
    const refused = net.connect({ host: '127.0.0.1', port });
    const [error] = (await once(refused, 'error')) as [NodeJS.ErrnoException];
    expect(error.code).toBe('ECONNREFUSED');
  });

  it('closes a handed-over descriptor that is not a socket', async () => {
    const transport = await TlsTransport.prepare(
      { port: 1, cover: { host: '127.0.0.1', port: 9 }, serverName: 'cover.example' },
      log,
      new AbortController().signal,
    );
    cleanups.push(() => transport.close());
    const fd = openSync('/dev/null', 'r');
    transport.onStranger(fd, Buffer.from('x'));
    expect(() => fstatSync(fd)).toThrow(/EBADF/);
  });
});

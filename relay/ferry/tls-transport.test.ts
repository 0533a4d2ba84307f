// The relay's side of the TLS port without the native server: a descriptor handed over that is
// no socket is closed, not kept. (A stranger's socket handed over by the native server is
// spliced to the cover site: e2e/netns/relay-tls.test.ts; the splice: cover-splice.test.ts.)
import { fstatSync, openSync } from 'node:fs';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { TlsTransport } from './tls-transport.js';

const log = pino({ level: 'silent' });

describe('the TLS port’s strangers', () => {
  it('closes a handed-over descriptor that is not a socket', async () => {
    const transport = await TlsTransport.prepare(
      { port: 8443, cover: { host: '127.0.0.1', port: 9 }, serverName: 'cover.example' },
      log,
      new AbortController().signal,
    );
    const fd = openSync('/dev/null', 'r');
    transport.onStranger(fd, Buffer.from('x'));
    expect(() => fstatSync(fd)).toThrow(/EBADF/);
    transport.close();
  });
});

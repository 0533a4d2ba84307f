// The client's UAPI endpoints, and one exchange on a real unix socket as wireguard-go answers it.
// The UAPI text itself is tested with contracts/wireguard-uapi.ts.
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

import { UapiError } from '../../contracts/index.js';
import { uapiEndpoint, uapiExchange } from './wireguard-uapi.js';

const NODE_HEX = 'f1fd4f4f376133c4ca5c1bd0efb15a041df1a283f18a8e6656f748d6d0f1d971';

describe('endpoints', () => {
  it('are address:port, IPv6 in brackets', () => {
    expect(uapiEndpoint('192.0.2.10', 51820)).toBe('192.0.2.10:51820');
    expect(uapiEndpoint('2001:db8::1', 51820)).toBe('[2001:db8::1]:51820');
  });

  it('refuse host names and bad ports (UAPI takes addresses only)', () => {
    expect(() => uapiEndpoint('relay.example', 51820)).toThrow(TypeError);
    expect(() => uapiEndpoint('192.0.2.10', 0)).toThrow(TypeError);
  });
});

describe('an exchange on a unix socket', () => {
  let dir: string | undefined;
  let server: net.Server | undefined;
  afterEach(() => {
    server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const serve = async (answer: (request: string) => string) => {
    dir = mkdtempSync(path.join(tmpdir(), 'ferry-uapi-'));
    const socketPath = path.join(dir, 'fyt0.sock');
    server = net.createServer((c) => {
      let text = '';
      c.on('data', (d) => {
        text += d.toString();
        if (text.endsWith('\n\n')) c.end(answer(text));
      });
    });
    await new Promise<void>((r) => server!.listen(socketPath, r));
    return socketPath;
  };

  it('sends the request and resolves with the body of an errno=0 answer', async () => {
    const socketPath = await serve((req) =>
      req === 'get=1\n\n' ? `public_key=${NODE_HEX}\nerrno=0\n\n` : 'errno=1\n\n',
    );
    expect(await uapiExchange(socketPath, 'get=1\n\n', 2_000)).toBe(`public_key=${NODE_HEX}\n`);
  });

  it('rejects with the errno wireguard-go answered', async () => {
    const socketPath = await serve(() => 'errno=-22\n\n');
    const e = await uapiExchange(socketPath, 'set=1\nbogus=1\n\n', 2_000).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(UapiError);
    expect((e as UapiError).errno).toBe(-22);
  });

  it('rejects with ENOENT when there is no socket yet', async () => {
    const e = await uapiExchange('/nonexistent/fyt0.sock', 'get=1\n\n', 2_000).catch(
      (x: unknown) => x,
    );
    expect((e as UapiError).errno).toBe('ENOENT');
  });
});

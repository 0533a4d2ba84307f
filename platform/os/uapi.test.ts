// The UAPI client on a real unix socket as wireguard-go answers it: endpoints in UAPI's form,
// the request as formatted, a reply that arrives in pieces (its end found in the tail, the body
// cut at the byte), a refusal's errno, a socket that is missing or closes early. The UAPI text
// itself is tested with uapi-text.test.ts.
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { UapiError, uapiKeyFromHex } from './uapi-text.js';
import { UapiClient, uapiEndpoint, uapiExchange } from './uapi.js';

const NODE_HEX = 'f1fd4f4f376133c4ca5c1bd0efb15a041df1a283f18a8e6656f748d6d0f1d971';
/** A key of 16 times the two bytes of `n`, in UAPI's hex. */
const keyHex = (n: number) => n.toString(16).padStart(4, '0').repeat(16);

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

let dir: string;
let server: net.Server | undefined;
const requests: string[] = [];
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'ferry-uapi-'));
  requests.length = 0;
});
afterEach(async () => {
  await new Promise((r) => (server ? server.close(r) : r(undefined)));
  server = undefined;
  await rm(dir, { recursive: true, force: true });
});

/** A device that answers each request with `reply`, written `chunk` bytes at a time. */
async function device(reply: (request: string) => string, chunk = 7): Promise<string> {
  const socketPath = path.join(dir, 'wg0.sock');
  server = net.createServer((c) => {
    let text = '';
    c.on('data', (d) => {
      text += d.toString();
      if (!text.endsWith('\n\n')) return;
      requests.push(text);
      const out = Buffer.from(reply(text));
      for (let i = 0; i < out.length; i += chunk) c.write(out.subarray(i, i + chunk));
      c.end();
    });
  });
  await new Promise<void>((r) => server!.listen(socketPath, r));
  return socketPath;
}

/** A UapiClient on the socket at `socketPath` (its transport: one exchange there). */
const clientOn = (socketPath: string) =>
  new UapiClient(
    { exchange: (_name, request, ms) => uapiExchange(socketPath, request, ms) },
    'wg0',
    2_000,
  );

describe('an exchange on a unix socket', () => {
  it('sends the request and resolves with the body of an errno=0 answer', async () => {
    const socketPath = await device((req) =>
      req === 'get=1\n\n' ? `public_key=${NODE_HEX}\nerrno=0\n\n` : 'errno=1\n\n',
    );
    expect(await uapiExchange(socketPath, 'get=1\n\n', 2_000)).toBe(`public_key=${NODE_HEX}\n`);
  });

  it('rejects with the errno wireguard-go answered', async () => {
    const socketPath = await device(() => 'errno=-22\n\n');
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

  it('cuts the body at the byte, whatever the characters before the end', async () => {
    const socketPath = await device(() => 'name=Zürich ☃\nerrno=0\n\n', 3);
    expect(await uapiExchange(socketPath, 'get=1\n\n', 2_000)).toBe('name=Zürich ☃\n');
  });

  it('rejects when the socket closes before the end of the reply', async () => {
    const socketPath = await device(() => 'listen_port=51820\n');
    await expect(uapiExchange(socketPath, 'get=1\n\n', 2_000)).rejects.toThrow(
      /closed before the answer/,
    );
  });
});

describe('the UAPI client', () => {
  it('reads a reply of many peers that arrives in pieces', async () => {
    const peers = Array.from({ length: 300 }, (_, i) => i + 1);
    const reply =
      'listen_port=51820\n' +
      peers
        .map(
          (n) =>
            `public_key=${keyHex(n)}\nrx_bytes=${n}\nallowed_ip=10.64.${n >> 8}.${n & 255}/32\n`,
        )
        .join('') +
      'errno=0\n\n';
    const client = clientOn(await device(() => reply, 1000));
    const status = await client.get();
    expect(requests).toEqual(['get=1\n\n']);
    expect(status.listenPort).toBe(51820);
    expect(status.peers).toHaveLength(300);
    expect(status.peers[299]).toMatchObject({
      publicKey: uapiKeyFromHex(keyHex(300)),
      rxBytes: 300,
      allowedIps: ['10.64.1.44/32'],
    });
  });

  it('sends the set request as formatted', async () => {
    const client = clientOn(await device(() => 'errno=0\n\n'));
    await client.set({ listenPort: 51820 }, [
      { kind: 'remove', publicKey: uapiKeyFromHex(keyHex(3)) },
    ]);
    expect(requests).toEqual([
      `set=1\nlisten_port=51820\npublic_key=${keyHex(3)}\nremove=true\n\n`,
    ]);
  });

  it('rejects with the errno the device answered', async () => {
    const client = clientOn(await device(() => 'errno=-22\n\n'));
    const e = await client.set({}, []).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(UapiError);
    expect((e as UapiError).errno).toBe(-22);
  });
});

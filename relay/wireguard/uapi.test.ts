// The relay's UAPI client on a real unix socket: the request as formatted, a reply that arrives in
// pieces (its end found in the tail, the body cut at the byte), a refusal's errno, a socket that
// closes early.
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { UapiError, uapiKeyFromHex } from '../../contracts/index.js';
import { exchange, UapiClient } from './uapi.js';

/** A key of 16 times the two bytes of `n`, in UAPI's hex. */
const keyHex = (n: number) => n.toString(16).padStart(4, '0').repeat(16);

let dir: string;
let server: net.Server | undefined;
const requests: string[] = [];
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'ferry-relay-uapi-'));
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

describe('the relay’s UAPI client', () => {
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
    const client = new UapiClient(await device(() => reply, 1000));
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

  it('cuts the body at the byte, whatever the characters before the end', async () => {
    const socketPath = await device(() => 'name=Zürich ☃\nerrno=0\n\n', 3);
    expect(await exchange(socketPath, 'get=1\n\n', 2_000)).toBe('name=Zürich ☃\n');
  });

  it('sends the set request as formatted', async () => {
    const client = new UapiClient(await device(() => 'errno=0\n\n'));
    await client.set({ listenPort: 51820 }, [
      { kind: 'remove', publicKey: uapiKeyFromHex(keyHex(3)) },
    ]);
    expect(requests).toEqual([
      `set=1\nlisten_port=51820\npublic_key=${keyHex(3)}\nremove=true\n\n`,
    ]);
  });

  it('rejects with the errno the device answered', async () => {
    const client = new UapiClient(await device(() => 'errno=-22\n\n'));
    const e = await client.set({}, []).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(UapiError);
    expect((e as UapiError).errno).toBe(-22);
  });

  it('rejects when the socket closes before the end of the reply', async () => {
    const socketPath = await device(() => 'listen_port=51820\n');
    await expect(exchange(socketPath, 'get=1\n\n', 2_000)).rejects.toThrow(
      /closed before the answer/,
    );
  });
});

// JA4 against a published fingerprint (a Chrome hello's JA4 and JA4_r from browserleaks, with
// GREASE added as Chrome sends it) and against a real hello of Node's TLS.
import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import { connect } from 'node:tls';

import { describe, expect, it } from 'vitest';

import { isGrease, scanClientRecord, type ClientHello } from './client-hello.js';
import { ja4, ja4FromRaw, ja4Raw } from './ja4.js';

const u16 = (v: number) => Buffer.from([v >> 8, v & 0xff]);
const vec16 = (b: Buffer) => Buffer.concat([u16(b.length), b]);
const vec8 = (b: Buffer) => Buffer.concat([Buffer.from([b.length]), b]);
const list16 = (vs: number[]) => Buffer.concat(vs.map(u16));

/** A ClientHello record with these fields (extension data only where JA4 reads it). */
function helloRecord(opts: {
  ciphers: number[];
  extensions: number[];
  serverName?: string;
  alpn?: string[];
  sigalgs: number[];
  versions: number[];
}): Buffer {
  const data = (type: number): Buffer => {
    if (type === 0x0000 && opts.serverName)
      return vec16(Buffer.concat([Buffer.from([0]), vec16(Buffer.from(opts.serverName))]));
    if (type === 0x0010 && opts.alpn)
      return vec16(Buffer.concat(opts.alpn.map((p) => vec8(Buffer.from(p)))));
    if (type === 0x000d) return vec16(list16(opts.sigalgs));
    if (type === 0x002b) return vec8(list16(opts.versions));
    return Buffer.alloc(isGrease(type) ? 1 : 0);
  };
  const exts = Buffer.concat(opts.extensions.map((t) => Buffer.concat([u16(t), vec16(data(t))])));
  const body = Buffer.concat([
    u16(0x0303),
    Buffer.alloc(32, 7),
    vec8(Buffer.alloc(32, 9)),
    vec16(list16(opts.ciphers)),
    vec8(Buffer.from([0])),
    vec16(exts),
  ]);
  const msg = Buffer.concat([Buffer.from([1, 0, body.length >> 8, body.length & 0xff]), body]);
  return Buffer.concat([Buffer.from([0x16, 0x03, 0x01]), u16(msg.length), msg]);
}

function hello(record: Buffer): ClientHello {
  const scan = scanClientRecord(record);
  if (scan.kind !== 'hello') throw new Error(`not a hello: ${scan.kind}`);
  return scan.hello;
}

// browserleaks' record of a Chrome 143 hello: ja3_text gives the order on the wire.
const CHROME_CIPHERS = [
  4865, 4866, 4867, 49195, 49199, 49196, 49200, 52393, 52392, 49171, 49172, 156, 157, 47, 53,
];
const CHROME_EXTENSIONS = [45, 51, 16, 65037, 23, 17613, 0, 11, 10, 43, 65281, 35, 18, 5, 13, 27];
const CHROME_SIGALGS = [0x0403, 0x0804, 0x0401, 0x0503, 0x0805, 0x0501, 0x0806, 0x0601];
const CHROME_JA4 = 't13d1516h2_8daaf6152771_d8a2da3f94cd';
const CHROME_JA4_R =
  't13d1516h2_002f,0035,009c,009d,1301,1302,1303,c013,c014,c02b,c02c,c02f,c030,cca8,cca9_0005,000a,000b,000d,0012,0017,001b,0023,002b,002d,0033,44cd,fe0d,ff01_0403,0804,0401,0503,0805,0501,0806,0601';

describe('JA4', () => {
  it('hashes the published raw fingerprint to the published JA4', () => {
    expect(ja4FromRaw(CHROME_JA4_R)).toBe(CHROME_JA4);
  });

  it("gives a Chrome hello (GREASE first and last, extensions in any order) Chrome's JA4", () => {
    const record = helloRecord({
      ciphers: [0x4a4a, ...CHROME_CIPHERS],
      extensions: [0x1a1a, ...CHROME_EXTENSIONS.slice().reverse(), 0xfafa],
      serverName: 'cover.example',
      alpn: ['h2', 'http/1.1'],
      sigalgs: CHROME_SIGALGS,
      versions: [0x7a7a, 0x0304, 0x0303],
    });
    const h = hello(record);
    expect(h.serverName).toBe('cover.example');
    expect(ja4Raw(h)).toBe(CHROME_JA4_R);
    expect(ja4(h)).toBe(CHROME_JA4);
    expect(ja4(h, 'q').startsWith('q13d')).toBe(true);
  });

  it('tells a hello without SNI, ALPN or supported_versions, and odd ALPN values', () => {
    const base = { ciphers: [0x1301], sigalgs: [0x0403] };
    const plain = hello(helloRecord({ ...base, extensions: [0x000d], versions: [] }));
    expect(ja4(plain)).toMatch(/^t12i010100_/);
    const odd = hello(
      helloRecord({ ...base, extensions: [0x0010, 0x000d], alpn: ['\u0001x\u00ff'], versions: [] }),
    );
    expect(ja4(odd).slice(0, 10)).toBe('t12i01020f');
    const none = hello(helloRecord({ ciphers: [], extensions: [], sigalgs: [], versions: [] }));
    expect(ja4(none)).toBe('t12i000000_000000000000_000000000000');
  });

  it('reads a real hello of Node (OpenSSL) from the wire, and is not fooled by a partial one', async () => {
    const server = createServer();
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const first = new Promise<Buffer>((resolve) =>
      server.once('connection', (s) => {
        let got = Buffer.alloc(0);
        s.on('data', (d: Buffer) => {
          got = Buffer.concat([got, d]);
          if (scanClientRecord(got).kind !== 'incomplete') {
            resolve(got);
            s.destroy();
          }
        });
      }),
    );
    const port = (server.address() as AddressInfo).port;
    const c = connect({
      host: '127.0.0.1',
      port,
      servername: 'node.example',
      ALPNProtocols: ['http/1.1'],
    });
    c.on('error', () => undefined);
    const record = await first;
    server.close();
    const h = hello(record);
    expect(h.serverName).toBe('node.example');
    expect(ja4(h)).toMatch(/^t13d\d{4}h1_[0-9a-f]{12}_[0-9a-f]{12}$/);
    expect(ja4(h)).not.toBe(CHROME_JA4);
    expect(scanClientRecord(record.subarray(0, 100)).kind).toBe('incomplete');
    expect(scanClientRecord(Buffer.from('GET / HTTP/1.1\r\n')).kind).toBe('not-tls');
  });
});

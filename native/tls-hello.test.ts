// The addon's ClientHello on the wire, against the real Chrome's: a client of the real addon (root: a TUN
// device) connects by TLS to a listener that keeps each first record; its hellos have the captures' JA4,
// extension set and fixed data, the node's name, and vary where Chrome's vary.
import { readFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { ja4 } from './ja4.js';
import { isGrease, parseClientHello, type ParsedClientHello } from './client-hello.js';
import { loadHelloTemplate } from './hello-template.js';
import { nativeDataPlane } from './index.js';

const dir = join(import.meta.dirname, 'hello');
const chrome = readFileSync(join(dir, 'chrome-captures.txt'), 'utf8')
  .trim()
  .split('\n')
  .map((h) => parseClientHello(Buffer.from(h, 'hex')));

/**
 * Where an extension's list of 2-byte items starts: after a 2-byte or a 1-byte length prefix
 * that covers the rest of its data (supported_groups, signature_algorithms; supported_versions),
 * else at 0.
 */
function itemsStart(data: Buffer): number {
  if (data.length >= 2 && data.readUInt16BE(0) === data.length - 2) return 2;
  if (data.length >= 1 && data[0] === data.length - 1) return 1;
  return 0;
}

/**
 * Extension data with GREASE pairs written as `gggg` (they vary per connection, in Chrome too):
 * only whole items of the extension's list count, never a pair across an item's edge (a length
 * of 0x0a before the GREASE value 0x0a0a reads as 0x0a0a too).
 */
function normalised(h: ParsedClientHello): Map<number, string> {
  const m = new Map<number, string>();
  for (const e of h.extensions) {
    if (isGrease(e.type) || [0x0000, 0x0033, 0xfe0d].includes(e.type)) continue;
    const start = itemsStart(e.data);
    let s = '';
    for (let i = 0; i < e.data.length;) {
      const aligned = i >= start && (i - start) % 2 === 0;
      if (aligned && i + 1 < e.data.length && isGrease(e.data.readUInt16BE(i))) {
        s += 'gggg';
        i += 2;
      } else s += e.data[i++]!.toString(16).padStart(2, '0');
    }
    m.set(e.type, s);
  }
  return m;
}

describe('the hellos’ normal form', () => {
  it('counts GREASE in whole items only, whatever value it took', () => {
    const hello = (groups: string) =>
      ({ extensions: [{ type: 10, data: Buffer.from(groups, 'hex') }] }) as ParsedClientHello;
    // The length 0x000a, then GREASE 0x0a0a: not a GREASE pair at offset 1.
    expect(normalised(hello('000a0a0a11ec001d00170018')).get(10)).toBe('000agggg11ec001d00170018');
    expect(normalised(hello('000a3a3a11ec001d00170018')).get(10)).toBe('000agggg11ec001d00170018');
  });
});

/** The first records of the first `n` connections to a local listener while a TLS client keeps trying. */
async function captureHellos(n: number): Promise<Buffer[]> {
  const got: Buffer[] = [];
  const sockets: Socket[] = [];
  const server = createServer((s) => {
    sockets.push(s);
    let buf = Buffer.alloc(0);
    s.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      if (buf.length >= 5 && buf.length >= 5 + buf.readUInt16BE(3)) {
        got.push(buf.subarray(0, 5 + buf.readUInt16BE(3)));
        s.destroy();
      }
    });
    s.on('error', () => undefined);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const tag = Math.floor(Math.random() * 200) + 20;
  const client = nativeDataPlane.startClient(
    {
      interfaceName: `fhello${tag}`,
      address: `10.${tag}.3.2/24`,
      privateKey: nativeDataPlane.generatePrivateKey(),
      serverHost: '127.0.0.1',
      serverPort: (server.address() as AddressInfo).port,
      serverPublicKey: nativeDataPlane.publicKey(nativeDataPlane.generatePrivateKey()),
      transport: 'tls',
      tls: { serverName: 'cover.example.org', hello: loadHelloTemplate() },
    },
    () => undefined,
  );
  try {
    await expect.poll(() => got.length, { timeout: 8000, interval: 50 }).toBeGreaterThanOrEqual(n);
  } finally {
    client.close();
    for (const s of sockets) s.destroy();
    server.close();
  }
  return got.slice(0, n);
}

describe("the addon's ClientHello (root: a real TUN device)", () => {
  it("has the Chrome captures' JA4, extensions and fixed data, and varies as Chrome's does", async () => {
    const template = loadHelloTemplate();
    const records = await captureHellos(3);
    const hellos = records.map(parseClientHello);
    const ref = normalised(chrome[0]!);
    for (const [i, h] of hellos.entries()) {
      expect(records[i]!.subarray(0, 3).toString('hex')).toBe('160301');
      expect(ja4(h)).toBe(template.ja4);
      expect(normalised(h)).toEqual(ref);
      expect(h.cipherSuites.filter((c) => !isGrease(c))).toEqual(
        chrome[0]!.cipherSuites.filter((c) => !isGrease(c)),
      );
      expect(h.sessionId).toHaveLength(32);
      const sni = h.extensions.find((e) => e.type === 0)!.data;
      expect(sni.subarray(5).toString()).toBe('cover.example.org');
      const shares = h.extensions.find((e) => e.type === 0x33)!.data;
      expect(shares.length).toBe(chrome[0]!.extensions.find((e) => e.type === 0x33)!.data.length);
      const ech = h.extensions.find((e) => e.type === 0xfe0d)!.data;
      expect([144, 176, 208, 240]).toContain(ech.readUInt16BE(40));
      expect(isGrease(h.extensions[0]!.type) && isGrease(h.extensions.at(-1)!.type)).toBe(true);
    }
    const orders = new Set(hellos.map((h) => h.extensions.map((e) => e.type).join(',')));
    expect(orders.size).toBe(3);
    expect(new Set(hellos.map((h) => h.random.toString('hex'))).size).toBe(3);
  }, 20_000);
});

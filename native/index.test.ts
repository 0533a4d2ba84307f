// Tests of the typed wrapper over the real addon: key handling, option validation and error codes.
import { execFileSync } from 'node:child_process';
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { createSocket } from 'node:dgram';

import { describe, expect, it } from 'vitest';

import { NativeTunnelError, markedSocket, nativeDataPlane } from './index.js';
import { FakeDataPlane } from './tunnel.fake.js';

const goodClient = () => ({
  interfaceName: 'ferrytest0',
  address: '10.99.0.2/24',
  privateKey: nativeDataPlane.generatePrivateKey(),
  serverHost: '127.0.0.1',
  serverPort: 51820,
  serverPublicKey: nativeDataPlane.publicKey(nativeDataPlane.generatePrivateKey()),
});

describe('native data plane keys', () => {
  it('derives the same X25519 public key as node:crypto', () => {
    const { privateKey, publicKey } = generateKeyPairSync('x25519');
    const d = Buffer.from(privateKey.export({ format: 'jwk' }).d!, 'base64url').toString('base64');
    const x = Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url').toString('base64');
    expect(nativeDataPlane.publicKey(d)).toBe(x);
    expect(new FakeDataPlane().publicKey(d)).toBe(x);
  });

  it('generates distinct 32-byte keys that node:crypto accepts', () => {
    const a = nativeDataPlane.generatePrivateKey();
    const b = nativeDataPlane.generatePrivateKey();
    expect(a).not.toBe(b);
    expect(Buffer.from(a, 'base64')).toHaveLength(32);
    const pub = nativeDataPlane.publicKey(a);
    const fromNode = createPublicKey({
      key: { kty: 'OKP', crv: 'X25519', x: Buffer.from(pub, 'base64').toString('base64url') },
      format: 'jwk',
    });
    expect(fromNode.asymmetricKeyType).toBe('x25519');
  });

  it('rejects malformed keys with ERR_FERRY_KEY', () => {
    for (const bad of ['', 'abc', 'A'.repeat(44), `${'A'.repeat(42)}==`]) {
      expect(() => nativeDataPlane.publicKey(bad)).toThrow(NativeTunnelError);
      try {
        nativeDataPlane.publicKey(bad);
      } catch (err) {
        expect((err as NativeTunnelError).code).toBe('ERR_FERRY_KEY');
      }
    }
  });
});

describe('option validation (real and fake alike)', () => {
  const planes = [
    ['native', nativeDataPlane],
    ['fake', new FakeDataPlane()],
  ] as const;
  const cases: [string, Record<string, unknown>][] = [
    ['interface name too long', { interfaceName: 'x'.repeat(16) }],
    ['interface name with a slash', { interfaceName: 'a/b' }],
    ['address without prefix', { address: '10.99.0.2' }],
    ['bad cipher', { cipher: 'rc4' }],
    ['rekey over 120 s', { rekeySeconds: 121 }],
    ['port 0', { serverPort: 0 }],
    ['bad server key', { serverPublicKey: 'nope' }],
  ];
  for (const [name, plane] of planes) {
    for (const [what, patch] of cases) {
      it(`${name}: refuses ${what} before touching the system`, () => {
        const opts = { ...goodClient(), ...patch } as Parameters<typeof plane.startClient>[0];
        let caught: unknown;
        try {
          plane.startClient(opts, () => undefined).close();
        } catch (err) {
          caught = err;
        }
        expect(caught).toBeInstanceOf(NativeTunnelError);
        expect((caught as NativeTunnelError).code).toBe('ERR_FERRY_OPTIONS');
      });
    }
  }

  it('native: refuses duplicate peers', () => {
    const pub = nativeDataPlane.publicKey(nativeDataPlane.generatePrivateKey());
    expect(() =>
      nativeDataPlane.startServer(
        {
          interfaceName: 'ferrytest1',
          address: '10.99.0.1/24',
          privateKey: nativeDataPlane.generatePrivateKey(),
          listenHost: '127.0.0.1',
          listenPort: 51820,
          peers: [
            { id: 'a', publicKey: pub, address: '10.99.0.2' },
            { id: 'b', publicKey: pub, address: '10.99.0.3' },
          ],
        },
        () => undefined,
      ),
    ).toThrow(/duplicate peer public key/);
  });
});

describe('marked sockets', () => {
  /** The mark the kernel holds for a local UDP port (ss -e shows it). */
  const markOf = (port: number) =>
    /fwmark:(0x[0-9a-f]+)/.exec(
      execFileSync('ss', ['-uane', `sport = :${port}`], { encoding: 'utf8' }),
    )?.[1];

  it('hands out a socket that carries the mark from its first packet', async () => {
    const fd = markedSocket(4, 'udp', 0x6667);
    const socket = createSocket('udp4');
    await new Promise<void>((resolve) => socket.bind({ fd }, resolve));
    try {
      await new Promise<void>((resolve, reject) => {
        socket.once('error', reject);
        socket.send(Buffer.from('x'), 9, '127.0.0.1', (e) => (e ? reject(e) : resolve()));
      });
      expect(markOf(socket.address().port)).toBe('0x6667');
    } finally {
      socket.close();
    }
  });

  it('refuses what is not a family, kind and mark, with ERR_FERRY_OPTIONS', () => {
    for (const [family, kind, mark] of [
      [5, 'udp', 1],
      [4, 'sctp', 1],
      [4, 'tcp', 0],
      [6, 'tcp', 2 ** 32],
      [4, 'tcp', 1.5],
    ] as const) {
      try {
        markedSocket(family as 4, kind as 'tcp', mark);
        expect.unreachable(`${family} ${kind} ${mark} was taken`);
      } catch (e) {
        expect((e as NativeTunnelError).code).toBe('ERR_FERRY_OPTIONS');
      }
    }
  });
});

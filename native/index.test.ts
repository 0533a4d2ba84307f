// Tests of the typed wrapper over the real addon: key handling, option validation, error codes, and the TLS
// transport's seam (a client connecting by TLS, a stranger handed to onStranger).
import { execFileSync } from 'node:child_process';
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { connect, createServer, Socket, type AddressInfo } from 'node:net';

import { describe, expect, it } from 'vitest';

import { loadHelloTemplate } from './hello-template.js';
import { NativeTunnelError, markedSocket, nativeDataPlane, type TunnelEvent } from './index.js';
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

describe('the TLS transport through the addon (root: real TUN devices)', () => {
  const tag = Math.floor(Math.random() * 200) + 20;
  const freePort = async (): Promise<number> => {
    const s = createServer();
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    const port = (s.address() as AddressInfo).port;
    await new Promise((r) => s.close(r));
    return port;
  };

  it('connects a client by TLS, and hands a stranger over with what it read, on a live socket', async () => {
    const serverKey = nativeDataPlane.generatePrivateKey();
    const clientKey = nativeDataPlane.generatePrivateKey();
    const tlsPort = await freePort();
    const strangers: { fd: number; head: Buffer }[] = [];
    const server = nativeDataPlane.startServer(
      {
        interfaceName: `ftls${tag}s`,
        address: `10.${tag}.1.1/24`,
        privateKey: serverKey,
        listenHost: '127.0.0.1',
        listenPort: await freePort(),
        tlsListenHost: '127.0.0.1',
        tlsListenPort: tlsPort,
        onStranger: (fd, head) => strangers.push({ fd, head }),
        peers: [
          { id: 'c', publicKey: nativeDataPlane.publicKey(clientKey), address: `10.${tag}.2.2` },
        ],
      },
      () => undefined,
    );
    const states: string[] = [];
    const client = nativeDataPlane.startClient(
      {
        interfaceName: `ftls${tag}c`,
        address: `10.${tag}.2.2/24`,
        privateKey: clientKey,
        serverHost: '127.0.0.1',
        serverPort: tlsPort,
        serverPublicKey: nativeDataPlane.publicKey(serverKey),
        transport: 'tls',
        tls: { serverName: 'www.example.com', hello: loadHelloTemplate() },
      },
      (e) => {
        if (e.type === 'state') states.push(e.state);
      },
    );
    try {
      await expect.poll(() => states, { timeout: 5000 }).toContain('connected');
      const prober = connect(tlsPort, '127.0.0.1');
      const request = 'GET / HTTP/1.1\r\nHost: www.example.com\r\n\r\n';
      prober.write(request);
      await expect.poll(() => strangers.length, { timeout: 5000 }).toBe(1);
      // The engine read no more than a record header before deciding; the rest waits on the socket.
      const head = strangers[0]!.head.toString();
      expect(head.length).toBeGreaterThan(0);
      expect(head.length).toBeLessThanOrEqual(5);
      const handed = new Socket({ fd: strangers[0]!.fd, readable: true, writable: true });
      const rest = await new Promise<string>((r) => handed.once('data', (d) => r(d.toString())));
      expect(head + rest).toBe(request);
      handed.end('HTTP/1.1 204 No Content\r\n\r\n');
      const answer = await new Promise<string>((r) => {
        let got = '';
        prober.on('data', (d) => (got += d.toString()));
        prober.on('end', () => r(got));
      });
      expect(answer).toBe('HTTP/1.1 204 No Content\r\n\r\n');
      prober.destroy();
    } finally {
      client.close();
      server.close();
    }
  });

  it('reports what a TLS connection attempt ran into: a listener that resets after the hello', async () => {
    const hellos: number[] = [];
    const listener = createServer((socket) => {
      let got = 0;
      socket.on('data', (d) => {
        got += d.length;
        // The hello is one write: once it has stopped arriving, answer it as a censor does, with a RST.
        setTimeout(() => {
          if (socket.destroyed) return;
          hellos.push(got);
          socket.resetAndDestroy();
        }, 100);
      });
      socket.on('error', () => undefined);
    });
    await new Promise<void>((r) => listener.listen(0, '127.0.0.1', r));
    const events: TunnelEvent[] = [];
    const client = nativeDataPlane.startClient(
      {
        ...goodClient(),
        interfaceName: `ftls${tag}r`,
        address: `10.${tag}.3.2/24`,
        serverPort: (listener.address() as AddressInfo).port,
        transport: 'tls',
        tls: { serverName: 'www.example.com', hello: loadHelloTemplate() },
      },
      (e) => events.push(e),
    );
    try {
      await expect
        .poll(() => events.find((e) => e.type === 'transport'), { timeout: 5000 })
        .toEqual({ type: 'transport', transport: 'tls', outcome: 'reset', eventDrops: 0 });
      expect(hellos[0]).toBeGreaterThan(500);
    } finally {
      client.close();
      await new Promise((r) => listener.close(r));
    }
  });

  it('refuses TLS options that do not go together', () => {
    const hello = loadHelloTemplate();
    for (const patch of [
      { transport: 'tls' },
      { tls: { serverName: 'www.example.com', hello } },
      { transport: 'tls', tls: { serverName: '10.0.0.1', hello } },
      { transport: 'tls', tls: { serverName: 'www.example.com', hello: { ...hello, ja4: 'x' } } },
    ]) {
      const opts = { ...goodClient(), ...patch } as Parameters<
        typeof nativeDataPlane.startClient
      >[0];
      expect(() => nativeDataPlane.startClient(opts, () => undefined)).toThrow(NativeTunnelError);
    }
  });
});

// Tests of ferry-tun's argument handling against the fake data plane (no TUN device, no root needed).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, describe, expect, it, vi } from 'vitest';

import { main, parseHostPort, parsePeer, readPeersFile, scanPeersFile } from './ferry-tun-cli.js';
import { loadHelloTemplate } from './hello-template.js';
import { FakeDataPlane } from './tunnel.fake.js';

afterEach(() => vi.restoreAllMocks());

function captureOutput() {
  const out: string[] = [];
  const err: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((s) => (out.push(String(s)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((s) => (err.push(String(s)), true));
  return { out, err };
}

describe('argument parsers', () => {
  it('parses HOST:PORT and [v6]:PORT', () => {
    expect(parseHostPort('192.0.2.1:51820')).toEqual({ host: '192.0.2.1', port: 51820 });
    expect(parseHostPort('[2001:db8::1]:443')).toEqual({ host: '2001:db8::1', port: 443 });
    for (const bad of ['192.0.2.1', '192.0.2.1:0', 'h:70000', ':80', 'a:b'])
      expect(() => parseHostPort(bad)).toThrow();
  });

  it('parses PUBKEY=ADDR/32 whose key itself ends in =', () => {
    const key = Buffer.alloc(32, 7).toString('base64');
    expect(parsePeer(`${key}=10.99.0.2/32`)).toEqual([
      { id: '10.99.0.2', publicKey: key, address: '10.99.0.2' },
    ]);
    for (const bad of [
      `${key}=10.99.0.2/24`,
      `${key}=10.99.0.300/32`,
      `${key}`,
      `abc=10.99.0.2/32`,
    ]) {
      expect(() => parsePeer(bad)).toThrow();
    }
  });
});

describe('peers file', () => {
  it('reads PUBKEY=ADDR/32 lines, skipping comments and blanks, and names a bad line', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ferry-cli-'));
    const a = Buffer.alloc(32, 1).toString('base64');
    const b = Buffer.alloc(32, 2).toString('base64');
    writeFileSync(join(dir, 'ok'), `# devices\n${a}=10.99.0.2/32\n\n${b}=10.99.0.3/32 # laptop\n`);
    expect(readPeersFile(join(dir, 'ok'))).toEqual([
      { id: '10.99.0.2', publicKey: a, address: '10.99.0.2' },
      { id: '10.99.0.3', publicKey: b, address: '10.99.0.3' },
    ]);
    writeFileSync(join(dir, 'bad'), `${a}=10.99.0.2/32\nnonsense\n`);
    expect(() => readPeersFile(join(dir, 'bad'))).toThrow(/line 2/);
    // A reload keeps the good lines and names the bad ones (the caller fails closed on those).
    expect(scanPeersFile(join(dir, 'bad'))).toEqual({
      peers: [{ id: '10.99.0.2', publicKey: a, address: '10.99.0.2' }],
      problems: [`${join(dir, 'bad')} line 2: expected PUBKEY=ADDR/32`],
    });
    expect(scanPeersFile(join(dir, 'missing')).problems[0]).toMatch(/cannot read peers file/);
  });
});

describe('main', () => {
  it('keygen prints one base64 key on stdout', async () => {
    const { out } = captureOutput();
    expect(await main(['keygen'], new FakeDataPlane())).toBe(0);
    expect(out.join('')).toMatch(/^[A-Za-z0-9+/]{43}=\n$/);
  });

  it('exits 2 on usage errors and 1 on a bad key file, with a message on stderr', async () => {
    const { err, out } = captureOutput();
    expect(await main(['client', '--interface', 'x'], new FakeDataPlane())).toBe(2);
    expect(err.join('')).toMatch(/required option/);
    const dir = mkdtempSync(join(tmpdir(), 'ferry-cli-'));
    writeFileSync(join(dir, 'k'), 'not a key\n');
    const key = Buffer.alloc(32, 1).toString('base64');
    const code = await main(
      [
        'client',
        '--interface',
        'fc0',
        '--address',
        '10.99.0.2/24',
        '--server',
        '127.0.0.1:51820',
        '--server-public-key',
        key,
        '--private-key',
        join(dir, 'k'),
      ],
      new FakeDataPlane(),
    );
    expect(code).toBe(1);
    expect(err.join('')).toMatch(/does not hold a base64 32-byte private key/);
    expect(out.join('')).toBe('');
  });

  it('exits 1 with the reason when the tunnel fails, instead of running on carrying nothing', async () => {
    const { err } = captureOutput();
    const dir = mkdtempSync(join(tmpdir(), 'ferry-cli-'));
    const plane = new FakeDataPlane();
    writeFileSync(join(dir, 'k'), plane.generatePrivateKey());
    const running = main(
      [
        'client',
        '--interface',
        'fc0',
        '--address',
        '10.99.0.2/24',
        '--server',
        '127.0.0.1:51820',
        '--server-public-key',
        plane.publicKey(plane.generatePrivateKey()),
        '--private-key',
        join(dir, 'k'),
      ],
      plane,
    );
    for (let i = 0; i < 50 && plane.tunnels.length === 0; i++)
      await new Promise((r) => setTimeout(r, 10));
    plane.tunnels[0]!.emit({
      type: 'error',
      message: 'tun thread stopped: reading the TUN device failed',
    });
    plane.tunnels[0]!.emit({ type: 'state', state: 'failed' });
    expect(await running).toBe(1);
    expect(err.join('')).toMatch(
      /the tunnel failed: tun thread stopped: reading the TUN device failed/,
    );
    expect(plane.tunnels[0]!.closed).toBe(true);
  });

  it('passes the TCP transport and listener through to the data plane', async () => {
    captureOutput();
    const dir = mkdtempSync(join(tmpdir(), 'ferry-cli-'));
    const plane = new FakeDataPlane();
    writeFileSync(join(dir, 'k'), plane.generatePrivateKey());
    const peer = plane.publicKey(plane.generatePrivateKey());
    const running = main(
      [
        'server',
        '--interface',
        'fs0',
        '--address',
        '10.99.0.1/24',
        '--listen',
        '127.0.0.1:51820',
        '--tcp-listen',
        '127.0.0.1:443',
        '--private-key',
        join(dir, 'k'),
        '--peer',
        `${peer}=10.99.0.2/32`,
      ],
      plane,
    );
    for (let i = 0; i < 50 && plane.tunnels.length === 0; i++)
      await new Promise((r) => setTimeout(r, 10));
    expect(plane.tunnels[0]?.options).toMatchObject({
      tcpListenHost: '127.0.0.1',
      tcpListenPort: 443,
      tcpAuthTimeoutMs: 10000,
    });
    process.emit('SIGTERM');
    expect(await running).toBe(0);
    expect(plane.tunnels[0]?.closed).toBe(true);
  });

  it('passes the TLS transport and listener through to the data plane, with the Chrome template', async () => {
    captureOutput();
    const dir = mkdtempSync(join(tmpdir(), 'ferry-cli-'));
    const plane = new FakeDataPlane();
    writeFileSync(join(dir, 'k'), plane.generatePrivateKey());
    const server = main(
      [
        'server',
        '--interface',
        'fs1',
        '--address',
        '10.99.0.1/24',
        '--listen',
        '127.0.0.1:51820',
        '--tls-listen',
        '127.0.0.1:8443',
        '--private-key',
        join(dir, 'k'),
        '--peer',
        `${plane.publicKey(plane.generatePrivateKey())}=10.99.0.2/32`,
      ],
      plane,
    );
    const clientArgs = [
      'client',
      '--interface',
      'fc1',
      '--address',
      '10.99.0.2/24',
      '--server',
      '127.0.0.1:8443',
      '--server-public-key',
      plane.publicKey(plane.generatePrivateKey()),
      '--private-key',
      join(dir, 'k'),
      '--transport',
      'tls',
    ];
    expect(await main(clientArgs, plane)).toBe(1); // no --tls-server-name
    const client = main([...clientArgs, '--tls-server-name', 'www.example.com'], plane);
    for (let i = 0; i < 50 && plane.tunnels.length < 2; i++)
      await new Promise((r) => setTimeout(r, 10));
    expect(plane.tunnels[0]?.options).toMatchObject({
      tlsListenHost: '127.0.0.1',
      tlsListenPort: 8443,
    });
    expect(plane.tunnels[1]?.options).toMatchObject({
      transport: 'tls',
      tls: { serverName: 'www.example.com', hello: loadHelloTemplate() },
    });
    process.emit('SIGTERM');
    expect(await server).toBe(0);
    expect(await client).toBe(0);
  });
});

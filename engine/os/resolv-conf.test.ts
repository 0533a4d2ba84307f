import { mkdtemp, readFile, readlink, rm, stat, symlink, writeFile, lstat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { resolvConfText, ResolvConfResolver } from './resolv-conf.js';
import { resolvedSetCommands, ResolvedResolver } from './resolved.js';

let dir: string;
let file: string;
let savedFile: string;
const resolver = () => new ResolvConfResolver({ file, savedFile });
const ORIGINAL = 'nameserver 192.0.2.53\nsearch corp.example\noptions edns0\n';

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'ferry-resolv-'));
  file = path.join(dir, 'resolv.conf');
  savedFile = path.join(dir, 'state', 'resolv.conf.saved');
  await writeFile(file, ORIGINAL);
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('the resolv.conf resolver', () => {
  it('sends every query to the tunnel’s resolver, keeping search domains and options', async () => {
    await resolver().set(['10.64.0.1'], 'fytmain0a1b2c');
    const text = await readFile(file, 'utf8');
    expect(text.match(/^nameserver .*/gm)).toEqual(['nameserver 10.64.0.1']);
    expect(text).toContain('search corp.example');
    expect(text).toContain('options edns0');
    expect((await stat(savedFile)).mode & 0o777).toBe(0o600);
  });

  it('puts the file back as it was, once', async () => {
    const r = resolver();
    await r.set(['10.64.0.1'], 'fytmain0a1b2c');
    await r.set(['10.64.0.9'], 'fytmain0d1e2f'); // a reconnect: the original stays the one kept
    await r.restore();
    expect(await readFile(file, 'utf8')).toBe(ORIGINAL);
    expect(await r.pending()).toBe(false);
    await r.restore(); // nothing to do
    expect(await readFile(file, 'utf8')).toBe(ORIGINAL);
  });

  it('restores after a crash: the next run finds the saved copy', async () => {
    await resolver().set(['10.64.0.1'], 'fytmain0a1b2c');
    const next = resolver();
    expect(await next.pending()).toBe(true);
    await next.restore();
    expect(await readFile(file, 'utf8')).toBe(ORIGINAL);
  });

  it('replaces a symlink (a stub resolver’s file) and links it again afterwards', async () => {
    const stub = path.join(dir, 'stub-resolv.conf');
    await writeFile(stub, 'nameserver 127.0.0.53\n');
    await rm(file);
    await symlink(stub, file);
    const r = resolver();
    await r.set(['10.64.0.1'], 'fytmain0a1b2c');
    expect((await lstat(file)).isSymbolicLink()).toBe(false);
    expect(await readFile(stub, 'utf8')).toBe('nameserver 127.0.0.53\n');
    await r.restore();
    expect(await readlink(file)).toBe(stub);
  });

  it('refuses a resolver that is not an address', () => {
    expect(() => resolvConfText(['resolver.example'], { kind: 'absent' })).toThrow(TypeError);
  });
});

describe('the systemd-resolved resolver', () => {
  it('makes the tunnel’s link the route for every domain, and reverts it', async () => {
    const calls: string[][] = [];
    const r = new ResolvedResolver(async (_tool, args) => {
      calls.push([...args]);
      return { exitCode: 0, stdout: '', stderr: '' };
    });
    await r.set(['10.64.0.1'], 'fytmain0a1b2c');
    await r.restore();
    expect(calls).toEqual([
      ...resolvedSetCommands(['10.64.0.1'], 'fytmain0a1b2c'),
      ['revert', 'fytmain0a1b2c'],
    ]);
    expect(calls[1]).toEqual(['domain', 'fytmain0a1b2c', '~.']);
  });
});

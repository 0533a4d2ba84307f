// Debian's Chromium (/usr/bin/chromium) in the test internet: one headless page load (its DOM, to
// show a connection went through), and the capture of its TLS ClientHello by a plain TCP server
// that keeps the first record, the reference that the tls-fingerprint profile's allowlist and
// other tests' comparisons of JA4 are computed from (never a fingerprint typed in by hand).
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { scanClientRecord } from '../../../native/client-hello.js';
import { ja4 } from '../../../native/ja4.js';

export const CHROMIUM = '/usr/bin/chromium';

/** Headless Chromium's arguments (root needs --no-sandbox), with a profile dir of its own. */
function chromiumArgs(profile: string, resolve: string): string[] {
  return [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-dev-shm-usage',
    '--no-first-run',
    `--user-data-dir=${profile}`,
    `--host-resolver-rules=${resolve}`,
  ];
}

/**
 * Chromium's first TLS record (its ClientHello) for https://<serverName>:<port>/, captured on the
 * loopback of the calling process's namespace.
 */
export async function captureChromeHello(serverName = 'cover.example'): Promise<Buffer> {
  const server = createServer();
  const record = new Promise<Buffer>((resolve, reject) => {
    server.once('connection', (s) => {
      let got = Buffer.alloc(0);
      s.on('error', () => undefined);
      s.on('data', (d: Buffer) => {
        got = Buffer.concat([got, d]);
        const scan = scanClientRecord(got);
        if (scan.kind === 'incomplete') return;
        s.destroy();
        if (scan.kind === 'hello') resolve(got.subarray(0, scan.recordLength));
        else reject(new Error('chromium sent something other than a ClientHello'));
      });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const profile = mkdtempSync(path.join(tmpdir(), 'ferry-chromium-'));
  const child = spawn(
    CHROMIUM,
    [
      ...chromiumArgs(profile, `MAP ${serverName} 127.0.0.1`),
      '--dump-dom',
      `https://${serverName}:${port}/`,
    ],
    { stdio: 'ignore', detached: true },
  );
  const timer = setTimeout(() => server.emit('error', new Error('no hello from chromium')), 30_000);
  try {
    return await Promise.race([
      record,
      new Promise<never>((_, reject) => server.once('error', reject)),
    ]);
  } finally {
    clearTimeout(timer);
    server.close();
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // gone already
    }
    rmSync(profile, { recursive: true, force: true });
  }
}

/**
 * Loads https://<serverName>/ (port 443) in headless Chromium inside namespace `ns`, the name
 * resolved to `address`, certificate errors ignored (the cover site's is self-signed): the
 * page's DOM, or '' when the load failed.
 */
export function chromiumDom(
  ns: string,
  serverName: string,
  address: string,
  urlPath = '/',
): string {
  // Headless Chromium now and then exits at once with nothing dumped on a loaded machine (a CI
  // run met it once): one more try. What it does with the page is the same either time; a page
  // it gets no answer for dumps the same empty document both times.
  return dumpDom(ns, serverName, address, urlPath) || dumpDom(ns, serverName, address, urlPath);
}

function dumpDom(ns: string, serverName: string, address: string, urlPath: string): string {
  const profile = mkdtempSync(path.join(tmpdir(), 'ferry-chromium-'));
  try {
    const r = spawnSync(
      'ip',
      [
        'netns',
        'exec',
        ns,
        'timeout',
        '-s',
        'KILL',
        '30',
        CHROMIUM,
        ...chromiumArgs(profile, `MAP ${serverName} ${address}`),
        '--ignore-certificate-errors',
        '--dump-dom',
        `https://${serverName}${urlPath}`,
      ],
      { encoding: 'utf8' },
    );
    return r.stdout ?? '';
  } finally {
    rmSync(profile, { recursive: true, force: true });
  }
}

/** The JA4 of a hello of Debian's Chromium (captureChromeHello): what tls-fingerprint lets through. */
export async function captureChromeJa4(serverName?: string): Promise<string> {
  const scan = scanClientRecord(await captureChromeHello(serverName));
  if (scan.kind !== 'hello') throw new Error('no ClientHello from chromium');
  return ja4(scan.hello);
}

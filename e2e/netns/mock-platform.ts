// A mock streaming platform on the test internet: an HTTP server on a server host that answers
// by the requester's address, as a real platform answers by GeoIP: a catalogue country, "proxy
// detected" for an address it flags, or "not offered here". It answers the way Netflix's title
// page does (contracts/platforms.json's netflix entry reads it), so a test points that entry at
// it with a --platforms-file and everything else is the shipped table's.
import { renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { SHIPPED_PLATFORMS, type PlatformDef } from '../../contracts/index.js';
import type { ManagedProcess } from './test-network.js';
import type { Testbed } from './testbed.js';

const MOCK_PLATFORM_PORT = 8100;
/** The shipped Netflix entry's title (any id works with the mock). */
const TITLE = '81280792';

/** A country code (the catalogue served), or what a platform says to an address it refuses. */
export type MockAnswer = 'proxy' | 'unavailable' | (string & {});

export interface MockPlatformOptions {
  /** The answer for each requester address (a relay's exit address, as the platform sees it). */
  byAddress: Readonly<Record<string, MockAnswer>>;
  /** The answer for any other address (default US). */
  fallback?: MockAnswer;
}

export interface MockPlatform {
  name: string;
  host: string;
  address: string;
  /** The probe URL: the title page. */
  url: string;
  process: ManagedProcess;
  /** The addresses the platform has seen requests from, in order. */
  requesters(): string[];
  /** The addresses that asked for a path holding `marker` (a test's own request, say). */
  requestersOf(marker: string): string[];
  /**
   * Changes the platform's mind from its next request on (a platform that starts flagging an
   * address, or stops): the answers for each address, and for any other.
   */
  setAnswers(byAddress: Readonly<Record<string, MockAnswer>>, fallback?: MockAnswer): void;
}

/**
 * Netflix's title page, by the requester's address: US answers in place; another country
 * redirects to /<cc>-en/title/<id>, which answers in place; a flagged address gets 404 (the
 * originals-only catalogue: the title is not there); where it is not offered, 403. Each request
 * is written as a line `request <address> <path>` (this is the test internet's platform, not
 * Ferry: it may keep what it likes). The answers are read from the answers file, when there is
 * one, at each request.
 */
const MOCK_PLATFORM_SERVER = `
const config = JSON.parse(process.env.MOCK_PLATFORM);
const fs = require('node:fs');
const answers = () => {
  try {
    return JSON.parse(fs.readFileSync(config.answersFile, 'utf8'));
  } catch {
    return config;
  }
};
require('node:http').createServer((q, s) => {
  const from = q.socket.remoteAddress.replace(/^::ffff:/, '');
  const url = q.url || '/';
  if (url === '/health') return void s.end('ok');
  console.log('request ' + from + ' ' + url);
  const { byAddress, fallback } = answers();
  const a = byAddress[from] ?? fallback;
  const parts = url.split('?')[0].split('/').filter(Boolean);
  if (a === 'proxy') return void s.writeHead(404, { 'content-type': 'text/html' }).end('<html>Page not found</html>');
  if (a === 'unavailable') return void s.writeHead(403, { 'content-type': 'text/html' }).end('<html>Not available</html>');
  if (parts[0] === 'title' && a !== 'US') {
    s.writeHead(302, { location: '/' + a.toLowerCase() + '-en/title/' + (parts[1] || '') });
    return void s.end();
  }
  s.writeHead(200, { 'content-type': 'text/html' }).end('<html data-country="' + a + '">title</html>');
}).listen(config.port, '0.0.0.0');
`;

export async function startMockPlatform(
  bed: Testbed,
  name: string,
  opts: MockPlatformOptions,
): Promise<MockPlatform> {
  const hostName = `platform-${name}`;
  const h = bed.net.addServerHost(hostName);
  const answersFile = path.join(bed.net.dir, `${hostName}-answers.json`);
  const proc = bed.net.spawn(hostName, hostName, [process.execPath, '-e', MOCK_PLATFORM_SERVER], {
    MOCK_PLATFORM: JSON.stringify({
      byAddress: opts.byAddress,
      fallback: opts.fallback ?? 'US',
      port: MOCK_PLATFORM_PORT,
      answersFile,
    }),
  });
  const base = `http://${h.address}:${MOCK_PLATFORM_PORT}`;
  try {
    await bed.net.waitFor(`the mock platform ${name}`, 10_000, () =>
      bed.echoFrom(undefined, 2, `${base}/health`) === 'ok' ? true : undefined,
    );
  } catch (e) {
    throw new Error(`${(e as Error).message}\nmock platform output:\n${proc.output()}`);
  }
  return {
    name,
    host: hostName,
    address: h.address,
    url: `${base}/title/${TITLE}`,
    process: proc,
    requesters: () => [...proc.output().matchAll(/^request (\S+) /gm)].map((m) => m[1]!),
    requestersOf: (marker) =>
      [...proc.output().matchAll(/^request (\S+) (\S*)$/gm)]
        .filter((m) => m[2]!.includes(marker))
        .map((m) => m[1]!),
    setAnswers(byAddress, fallback = opts.fallback ?? 'US') {
      // Written whole and renamed: the platform never reads half a file.
      writeFileSync(`${answersFile}.tmp`, JSON.stringify({ byAddress, fallback }));
      renameSync(`${answersFile}.tmp`, answersFile);
    },
  };
}

/** A shipped entry of the platform table with its probe pointed at a mock platform. */
export function mockPlatformEntry(id: string, url: string): PlatformDef {
  const shipped = SHIPPED_PLATFORMS[id];
  if (!shipped) throw new Error(`no platform ${id} in the shipped table`);
  return { ...shipped, probe: { url } };
}

/** Writes a --platforms-file in the test network's directory; returns its path. */
export function writePlatformsFile(
  bed: Testbed,
  platforms: Readonly<Record<string, PlatformDef>>,
): string {
  const file = path.join(bed.net.dir, 'platforms.json');
  writeFileSync(file, JSON.stringify({ platforms }, null, 2));
  return file;
}

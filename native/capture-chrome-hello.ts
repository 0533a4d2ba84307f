// Captures a real Chrome's ClientHellos and writes the template the TLS transport copies (native/hello/chrome.json).
// Run as root on a machine with Debian's chromium: npm run build && node dist/native/capture-chrome-hello.js [out]
// A new Chrome is a data change: run this again and commit the file it wrote.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { isGrease, parseClientHello, type ParsedClientHello } from './client-hello.js';
import { ja4 } from './ja4.js';
import { helloTemplateSchema, type GreaseSlot, type HelloTemplate } from './hello-template.js';

const CHROMIUM = '/usr/bin/chromium';
const NAME = 'www.example.com';
const RUNS = 6;

/** The first record of every connection to a local listener, while `runs` browsers fetch https://NAME:port/. */
async function capture(runs: number): Promise<Buffer[]> {
  const hellos: Buffer[] = [];
  const server = net.createServer((s) => {
    let buf = Buffer.alloc(0);
    s.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      if (buf.length >= 5 && buf.length >= 5 + buf.readUInt16BE(3)) {
        hellos.push(buf.subarray(0, 5 + buf.readUInt16BE(3)));
        s.destroy();
      }
    });
    s.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  for (let i = 0; i < runs; i++) {
    const profile = mkdtempSync(join(tmpdir(), 'ferry-chrome-'));
    const args = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'];
    args.push(`--user-data-dir=${profile}`, `--host-resolver-rules=MAP ${NAME} 127.0.0.1`);
    args.push('--dump-dom', `https://${NAME}:${port}/`);
    const child = spawn(CHROMIUM, args, { stdio: 'ignore' });
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      child.on('exit', () => {
        clearTimeout(timer);
        resolve();
      });
    });
    rmSync(profile, { recursive: true, force: true });
  }
  server.close();
  return hellos;
}

const hex4 = (v: number): string => v.toString(16).padStart(4, '0');
const ext = (h: ParsedClientHello, type: number): Buffer | undefined =>
  h.extensions.find((e) => e.type === type)?.data;

/** Each GREASE slot's value in one hello, read where Chrome puts them. */
function greaseValues(h: ParsedClientHello): Map<GreaseSlot, number> {
  const m = new Map<GreaseSlot, number>();
  const first = (b: Buffer | undefined, from: number): number | undefined => {
    for (let i = from; b && i + 1 < b.length; i += 2)
      if (isGrease(b.readUInt16BE(i))) return b.readUInt16BE(i);
    return undefined;
  };
  const put = (slot: GreaseSlot, v: number | undefined): void => {
    if (v !== undefined) m.set(slot, v);
  };
  put('cipher', h.cipherSuites.find(isGrease));
  put('group', first(ext(h, 0x000a), 2));
  put('version', first(ext(h, 0x002b)?.subarray(1), 0));
  put('sigalg', first(ext(h, 0x000d), 2));
  put('ext1', h.extensions[0]?.type);
  put('ext2', h.extensions.at(-1)?.type);
  return m;
}

/**
 * The hex of a field that varies only in its GREASE values, with each such pair written as `{slot}`: the
 * pairs are the offsets where the captures differ, and the slot is the one whose value every capture put
 * there (two slots may draw the same value in one hello, never in all). Throws if anything else varies.
 */
function withPlaceholders(
  what: string,
  datas: Buffer[],
  greases: Map<GreaseSlot, number>[],
): string {
  const first = datas[0] as Buffer;
  if (datas.some((d) => d.length !== first.length)) throw new Error(`${what}: its length varies`);
  const varies = (i: number): boolean => datas.some((d) => d[i] !== first[i]);
  let out = '';
  for (let i = 0; i < first.length;) {
    if (i + 1 < first.length && varies(i)) {
      const slot = [...(greases[0] as Map<GreaseSlot, number>).keys()].find((s) =>
        datas.every((d, k) => d.readUInt16BE(i) === greases[k]?.get(s)),
      );
      if (!slot) throw new Error(`${what}: bytes ${i}..${i + 1} vary and are no GREASE slot's`);
      out += `{${slot}}`;
      i += 2;
    } else {
      if (varies(i)) throw new Error(`${what}: byte ${i} varies and is no GREASE slot's`);
      out += (first[i] as number).toString(16).padStart(2, '0');
      i += 1;
    }
  }
  return out;
}

/** The one value all captures agree on, or an error naming what varies unexpectedly. */
function agreed<T>(what: string, values: T[]): T {
  const set = new Set(values.map((v) => JSON.stringify(v)));
  if (set.size !== 1) throw new Error(`${what} differs between captures: ${[...set].join(' / ')}`);
  return values[0] as T;
}

type Share = '{group}' | '11ec' | '001d';
function keyShares(data: Buffer): Share[] {
  const shares: Share[] = [];
  for (let i = 2; i + 4 <= data.length;) {
    const group = data.readUInt16BE(i);
    const len = data.readUInt16BE(i + 2);
    const expected = isGrease(group) ? 1 : group === 0x11ec ? 1216 : group === 0x001d ? 32 : -1;
    if (len !== expected)
      throw new Error(`key share ${hex4(group)} of ${len} bytes: no builder for it`);
    shares.push(isGrease(group) ? '{group}' : group === 0x11ec ? '11ec' : '001d');
    i += 4 + len;
  }
  return shares;
}

/** The template that every capture fits, with the parts that vary per connection named. */
export function deriveTemplate(
  hellos: ParsedClientHello[],
  browser: string,
  version: string,
): HelloTemplate {
  if (hellos.length < 3)
    throw new Error(`only ${hellos.length} hellos captured: too few to see what varies`);
  const greases = hellos.map(greaseValues);
  const order = hellos.map((h) =>
    h.extensions.map((e) => (isGrease(e.type) ? 'grease' : hex4(e.type))),
  );
  agreed(
    'the extension set',
    order.map((o) => [...o].sort()),
  );
  const ref = hellos[0] as ParsedClientHello;
  const extensions: HelloTemplate['extensions'] = ref.extensions.map((e, index) => {
    if (isGrease(e.type)) {
      const slot = index === 0 ? 'ext1' : 'ext2';
      const data = agreed(
        `GREASE extension ${slot}'s data`,
        hellos.map((h) =>
          (index === 0 ? h.extensions[0] : h.extensions.at(-1))?.data.toString('hex'),
        ),
      );
      return { kind: 'fixed', type: `{${slot}}`, data: data ?? '' };
    }
    const all = hellos.map((h) => ext(h, e.type) as Buffer);
    if (e.type === 0x0000) {
      for (const d of all)
        if (!d.toString('latin1').endsWith(NAME))
          throw new Error('server_name is not the name fetched');
      return { kind: 'server_name', type: '0000' };
    }
    if (e.type === 0x0033)
      return {
        kind: 'key_share',
        type: '0033',
        shares: agreed('the key shares', all.map(keyShares)),
      };
    if (e.type === 0xfe0d) {
      // outer(1) kdf(2) aead(2) config_id(1) enc(2+32) payload(2+n)
      const kdf = agreed(
        'the ECH KDF',
        all.map((d) => hex4(d.readUInt16BE(1))),
      );
      const aead = agreed(
        'the ECH AEAD',
        all.map((d) => hex4(d.readUInt16BE(3))),
      );
      agreed(
        'the ECH enc length',
        all.map((d) => d.readUInt16BE(6)),
      );
      const lengths = [...new Set(all.map((d) => d.readUInt16BE(40)))].sort((x, y) => x - y);
      return { kind: 'ech_grease', type: 'fe0d', kdf, aead, payloadLengths: lengths };
    }
    const data = withPlaceholders(`extension ${hex4(e.type)}`, all, greases);
    return { kind: 'fixed', type: hex4(e.type), data };
  });
  const middleOrders = new Set(order.map((o) => o.slice(1, -1).join(',')));
  const greaseEnds = order.every((o) => o[0] === 'grease' && o.at(-1) === 'grease');
  const template: HelloTemplate = {
    browser,
    version,
    capturedFrom: `${CHROMIUM} --headless, ${hellos.length} connections`,
    ja4: agreed(
      'JA4',
      hellos.map((h) => ja4(h)),
    ),
    recordVersion: hex4(
      agreed(
        'the record version',
        hellos.map((h) => h.recordVersion),
      ),
    ),
    legacyVersion: hex4(
      agreed(
        'the legacy version',
        hellos.map((h) => h.legacyVersion),
      ),
    ),
    cipherSuites: withPlaceholders(
      'the cipher suites',
      hellos.map((h) => Buffer.from(h.cipherSuites.flatMap((c) => [c >> 8, c & 0xff]))),
      greases,
    ),
    compression: agreed(
      'the compression methods',
      hellos.map((h) => h.compression.toString('hex')),
    ),
    extensions,
    permutation: middleOrders.size > 1 && greaseEnds ? 'shuffle-all-but-grease' : 'fixed',
  };
  agreed(
    'the session id length',
    hellos.map((h) => h.sessionId.length),
  );
  return helloTemplateSchema.parse(template);
}

async function main(): Promise<void> {
  const out =
    process.argv[2] ??
    join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'native', 'hello', 'chrome.json');
  const v = spawnSync(CHROMIUM, ['--version'], { encoding: 'utf8' });
  const m = /^(\S+)\s+(\d+\.\d+\.\d+\.\d+)/m.exec(v.stdout ?? '');
  if (!m) throw new Error(`cannot run ${CHROMIUM} --version`);
  const records = await capture(RUNS);
  const template = deriveTemplate(records.map(parseClientHello), m[1] as string, m[2] as string);
  writeFileSync(out, JSON.stringify(template, null, 2) + '\n');
  // The hellos themselves, as evidence (hello-template.test.ts derives the template from them again).
  const captures = out.replace(/\.json$/, '-captures.txt');
  writeFileSync(
    captures,
    records
      .slice(0, 12)
      .map((r) => r.toString('hex'))
      .join('\n') + '\n',
  );
  process.stderr.write(
    `capture: ${records.length} hellos of ${m[1]} ${m[2]}, JA4 ${template.ja4}; wrote ${out} and ${captures}\n`,
  );
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((err: unknown) => {
    process.stderr.write(`capture: ${(err as Error).message}\n`);
    process.exit(1);
  });
}

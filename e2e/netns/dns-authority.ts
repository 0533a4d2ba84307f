// The test internet's DNS: an authoritative server for one test zone on a server host (UDP and
// TCP 53) that records which address asked for each name, and a one-shot client that queries any
// server from inside a host. DNS leak tests ask it whether a query reached it from the relay or
// from somewhere else.
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { ManagedProcess } from './test-network.js';
import type { Testbed } from './testbed.js';

/** The zone the authority serves; names outside it are REFUSED. */
export const TEST_ZONE = 'ferry-test';

/** The spawned scripts are plain JS: they load dns-packet from where this module finds it. */
const DNS_PACKET = createRequire(import.meta.url).resolve('dns-packet');

export interface DnsAuthorityOptions {
  /** The A record of every name under the zone without one of its own. */
  wildcard: string;
  /** Names with their own A record: relative to the zone (`fixed`) or absolute. */
  records?: Readonly<Record<string, string>>;
  /**
   * A "whoami" zone inside the zone (relative, e.g. `whoami`, or absolute): every name
   * `<label>.<whoamiZone>` is answered with the IPv4 address that asked (a DNS leak test's zone,
   * as ferry-server --dns-leak-zone names it to clients).
   */
  whoamiZone?: string;
  /** The TTL of its A records (0 by default: a resolver asks again every time). */
  ttl?: number;
}

/** The whoami zone tests publish: `<label>.whoami.ferry-test` answers with the asker's address. */
export const WHOAMI_ZONE = `whoami.${TEST_ZONE}`;

export interface DnsAuthority {
  name: string;
  host: string;
  address: string;
  zone: string;
  /** The whoami zone (absolute), null without one. */
  whoamiZone: string | null;
  /** The source address of each query for `name` (any letter case, with or without the dot). */
  whoAsked(name: string): string[];
  /** The source address of each query for a name under `suffix`, in order (one per query). */
  askersUnder(suffix: string): string[];
  /** Each query for `name` as it came: when (epoch ms), from where, with a Client Subnet or not. */
  queriesFor(
    name: string,
  ): { at: number; from: string; type: string; ecs: boolean; transport: string }[];
  /** Answers `name` (relative or absolute) with `address` from the next query on. */
  setRecord(name: string, address: string): void;
  /**
   * whoAsked once `count` queries for `name` have been seen: the server's output reaches the
   * test a moment after its answer.
   */
  waitAsked(name: string, count?: number, timeoutMs?: number): Promise<string[]>;
  process: ManagedProcess;
}

/**
 * Answers A queries in the zone (a record of its own, else the wildcard; the apex has none),
 * NOERROR without answers for other types in the zone, REFUSED outside it. A name whose first
 * label starts with `tc-` gets a truncated answer over UDP (TC set, no records) and the full one
 * over TCP: the fallback a large answer causes. A name one label under the whoami zone is
 * answered with the asker's IPv4 address (none for an IPv6 asker). Each query is written as a JSON line
 * `{"event":"query",...}` (this is the test internet's server, not Ferry: it may keep what it
 * likes).
 */
const AUTHORITY_SERVER = `
const { zone, wildcard, recordsFile, whoami, ttl, dnsPacket: dnsPacketPath } = JSON.parse(process.env.DNS_AUTHORITY);
const dnsPacket = require(dnsPacketPath);
const fs = require('node:fs');
const dgram = require('node:dgram');
const net = require('node:net');
const say = (o) => console.log(JSON.stringify(o));
const norm = (n) => n.toLowerCase().replace(/\\.$/, '');

function answer(message, from, transport) {
  let q;
  try { q = dnsPacket.decode(message); } catch { return undefined; }
  if (q.type !== 'query' || !q.questions || q.questions.length !== 1) return undefined;
  const question = q.questions[0];
  const name = norm(question.name);
  const records = JSON.parse(fs.readFileSync(recordsFile, 'utf8'));
  const ecs = (q.additionals || []).some((a) => a.type === 'OPT' && (a.options || []).some((o) => o.code === 8));
  say({ event: 'query', at: Date.now(), from: from.replace(/^::ffff:/, ''), name, type: question.type, transport, ecs });
  const inZone = name === zone || name.endsWith('.' + zone);
  const asker = from.replace(/^::ffff:/, '');
  const whoamiName = whoami !== null && name.endsWith('.' + whoami) &&
    !name.slice(0, -whoami.length - 1).includes('.');
  const a = whoamiName ? (asker.includes(':') ? undefined : asker)
    : records[name] !== undefined ? records[name] : name === zone ? undefined : wildcard;
  const truncate = transport === 'udp' && name.split('.')[0].startsWith('tc-');
  const refuse = !inZone;
  return dnsPacket.encode({
    type: 'response',
    id: q.id,
    flags: (refuse ? 5 : dnsPacket.AUTHORITATIVE_ANSWER) | (q.flags & dnsPacket.RECURSION_DESIRED) |
      (truncate ? dnsPacket.TRUNCATED_RESPONSE : 0),
    questions: [question],
    answers: !refuse && !truncate && question.type === 'A' && a !== undefined
      ? [{ type: 'A', name: question.name, ttl, data: a }]
      : [],
  });
}

const udp = dgram.createSocket('udp4');
udp.on('message', (m, r) => {
  const out = answer(m, r.address, 'udp');
  if (out) udp.send(out, r.port, r.address);
});
const tcp = net.createServer((c) => {
  let buf = Buffer.alloc(0);
  c.on('data', (d) => {
    buf = Buffer.concat([buf, d]);
    while (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) {
      const out = answer(buf.subarray(2, 2 + buf.readUInt16BE(0)), c.remoteAddress, 'tcp');
      buf = buf.subarray(2 + buf.readUInt16BE(0));
      if (!out) return void c.destroy();
      const len = Buffer.alloc(2);
      len.writeUInt16BE(out.length);
      c.write(Buffer.concat([len, out]));
    }
  });
  c.on('error', () => {});
});
udp.bind(53, '0.0.0.0', () => tcp.listen(53, '0.0.0.0', () => say({ event: 'listening' })));
`;

function normalise(name: string): string {
  return name.toLowerCase().replace(/\.$/, '');
}

/** Starts the authority on a new server host named `name`. */
export async function startDnsAuthority(
  bed: Testbed,
  name: string,
  opts: DnsAuthorityOptions,
): Promise<DnsAuthority> {
  const h = bed.net.addServerHost(name);
  const absolute = (n: string) => {
    const full = normalise(n);
    return full === TEST_ZONE || full.endsWith(`.${TEST_ZONE}`) ? full : `${full}.${TEST_ZONE}`;
  };
  const records: Record<string, string> = {};
  for (const [n, a] of Object.entries(opts.records ?? {})) records[absolute(n)] = a;
  // Read again for every query: a test changes a name's address while the server runs.
  const recordsFile = path.join(bed.net.dir, `dns-${name}-records.json`);
  const writeRecords = () => writeFileSync(recordsFile, JSON.stringify(records));
  writeRecords();
  const whoami = opts.whoamiZone === undefined ? null : normalise(opts.whoamiZone);
  const whoamiZone =
    whoami === null || whoami.endsWith(`.${TEST_ZONE}`) ? whoami : `${whoami}.${TEST_ZONE}`;
  const proc = bed.net.spawn(name, `dns-${name}`, [process.execPath, '-e', AUTHORITY_SERVER], {
    DNS_AUTHORITY: JSON.stringify({
      zone: TEST_ZONE,
      wildcard: opts.wildcard,
      recordsFile,
      whoami: whoamiZone,
      ttl: opts.ttl ?? 0,
      dnsPacket: DNS_PACKET,
    }),
  });
  const events = () =>
    proc
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map(
        (l) =>
          JSON.parse(l) as {
            event: string;
            at?: number;
            from?: string;
            name?: string;
            ecs?: boolean;
            transport?: string;
            type?: string;
          },
      );
  try {
    await bed.net.waitFor(`the DNS authority ${name}`, 10_000, () => {
      if (proc.child.exitCode !== null) throw new Error('it exited');
      return events().some((e) => e.event === 'listening') ? true : undefined;
    });
  } catch (e) {
    throw new Error(`${(e as Error).message}\nDNS authority output:\n${proc.output()}`);
  }
  const whoAsked = (asked: string) =>
    events()
      .filter((e) => e.event === 'query' && e.name === normalise(asked))
      .map((e) => e.from!);
  return {
    name,
    host: name,
    address: h.address,
    zone: TEST_ZONE,
    whoamiZone,
    whoAsked,
    askersUnder: (suffix) =>
      events()
        .filter(
          (e) =>
            e.event === 'query' &&
            (e.name === normalise(suffix) || e.name?.endsWith(`.${normalise(suffix)}`)),
        )
        .map((e) => e.from!),
    queriesFor: (asked) =>
      events()
        .filter((e) => e.event === 'query' && e.name === normalise(asked))
        .map((e) => ({
          at: e.at!,
          from: e.from!,
          type: e.type!,
          ecs: e.ecs!,
          transport: e.transport!,
        })),
    setRecord: (n, address) => {
      records[absolute(n)] = address;
      writeRecords();
    },
    waitAsked: (asked, count = 1, timeoutMs = 5_000) =>
      bed.net.waitFor(`${count} queries for ${asked} at ${name}`, timeoutMs, () => {
        const from = whoAsked(asked);
        return from.length >= count ? from : undefined;
      }),
    process: proc,
  };
}

export interface DnsAnswer {
  id: number;
  rcode: string;
  truncated: boolean;
  /** The A records' addresses. */
  addresses: string[];
  /** The answer carried a Client Subnet option. */
  ecs: boolean;
}

/**
 * One query from inside `host` to `server`:53 over UDP or TCP; the answer, or undefined when
 * none came within `timeoutMs`. Blocks the caller (it runs as a child process in the namespace).
 */
const CLIENT = `
const { server, name, transport, timeoutMs, subnet, dnsPacket: dnsPacketPath } = JSON.parse(process.argv[1]);
const dnsPacket = require(dnsPacketPath);
const id = Math.floor(Math.random() * 65536);
const [ip, prefix] = subnet ? subnet.split('/') : [];
const query = dnsPacket.encode({ type: 'query', id, flags: dnsPacket.RECURSION_DESIRED,
  questions: [{ type: 'A', name }],
  additionals: subnet ? [{ type: 'OPT', name: '.', udpPayloadSize: 1232, flags: 0, options: [
    { code: 8, family: 1, sourcePrefixLength: Number(prefix), scopePrefixLength: 0, ip }] }] : [] });
const done = (m) => {
  const p = dnsPacket.decode(m);
  if (p.id !== id) return;
  const opt = (p.additionals || []).find((a) => a.type === 'OPT');
  console.log(JSON.stringify({ id: p.id, rcode: p.rcode, truncated: p.flag_tc,
    addresses: p.answers.filter((a) => a.type === 'A').map((a) => a.data),
    ecs: !!opt && (opt.options || []).some((o) => o.code === 8) }));
  process.exit(0);
};
setTimeout(() => { console.log('null'); process.exit(0); }, timeoutMs);
if (transport === 'udp') {
  const s = require('node:dgram').createSocket(server.includes(':') ? 'udp6' : 'udp4');
  s.on('message', done);
  s.on('error', () => {});
  s.send(query, 53, server);
} else {
  const c = require('node:net').connect(53, server);
  let buf = Buffer.alloc(0);
  c.on('connect', () => {
    const len = Buffer.alloc(2);
    len.writeUInt16BE(query.length);
    c.write(Buffer.concat([len, query]));
  });
  c.on('data', (d) => {
    buf = Buffer.concat([buf, d]);
    if (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) done(buf.subarray(2, 2 + buf.readUInt16BE(0)));
  });
  c.on('error', () => {});
}
`;

export function queryFrom(
  bed: Testbed,
  host: string,
  server: string,
  name: string,
  opts: {
    transport?: 'udp' | 'tcp';
    timeoutMs?: number;
    /** A Client Subnet option in the query (`a.b.c.0/24`), as some resolvers add. */
    subnet?: string;
  } = {},
): DnsAnswer | undefined {
  const out = bed.net.exec(host, [
    process.execPath,
    '-e',
    CLIENT,
    JSON.stringify({
      server,
      name,
      transport: opts.transport ?? 'udp',
      timeoutMs: opts.timeoutMs ?? 2_000,
      subnet: opts.subnet,
      dnsPacket: DNS_PACKET,
    }),
  ]);
  return (JSON.parse(out.trim()) as DnsAnswer | null) ?? undefined;
}

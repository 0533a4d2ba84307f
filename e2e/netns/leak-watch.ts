// The kit of the leak tests: continuous traffic of every kind from a host while its eth0 is
// captured (startLeakWatch), the far end of that traffic (startProbeTargets), the host's own
// resolv.conf (setNamespaceResolver), and the check of a capture against the allowed peers (leaksOf).
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ipaddr from 'ipaddr.js';
import { readPcapIp, type IpPacket } from './pcap.js';
import { requireTools, type ManagedProcess, type TestNetwork } from './test-network.js';

/** The ports startProbeTargets serves. */
export const PROBE_HTTP_PORT = 80;
export const PROBE_UDP_PORT = 7;
export const PROBE_DNS_PORT = 53;

/** The domain of the names the DNS probes ask for (.test is reserved: it is nobody's). */
export const PROBE_DOMAIN = 'leak-probe.test';

/**
 * Traffic that never leaves the link: IPv6 link-local addresses and link-scope multicast
 * (neighbour discovery, MLD, router solicitation), IPv4 link-local addresses, the local network
 * control block (IGMP reports, such as the router's own, mDNS) and the limited broadcast. A host
 * receives some of it from its neighbours whatever it does: add these to AllowedPeers.cidrs
 * unless a test means to count them.
 */
export const LINK_SCOPE_CIDRS: readonly string[] = [
  'fe80::/10',
  'ff02::/16',
  '169.254.0.0/16',
  '224.0.0.0/24',
  '255.255.255.255/32',
];

export type ProbeKind = 'icmp' | 'tcp' | 'udp' | 'dnsDirect' | 'dnsSystem' | 'icmp6' | 'tcp6';

export interface ProbeTally {
  /** Probes completed (answered, failed or timed out). */
  attempts: number;
  /** Probes answered end to end: an echo reply, an HTTP response, the UDP echo, a DNS answer. */
  successes: number;
}

/** The tally of each kind of probe that ran. */
export type ProbeTallies = Partial<Record<ProbeKind, ProbeTally>>;

/** Where the watched host's traffic goes: every one of them is "foreign" to a protected host. */
export interface LeakTargets {
  /** An IPv4 address pinged (ICMP echo, one at a time, 1 s timeout). */
  ping: string;
  /** A URL fetched with curl (an HTTP GET over TCP). */
  url: string;
  /** Where UDP datagrams go; a probe succeeds when the same datagram comes back. */
  udp: { address: string; port: number };
  /** A resolver asked directly on port 53, a fresh name each time. */
  resolver: string;
  /**
   * IPv6 targets (ping -6 and a URL with an IPv6 address), required when the host has IPv6; a
   * host without IPv6 runs no IPv6 probes.
   */
  ipv6?: { ping: string; url: string } | undefined;
}

export interface LeakWatchOptions extends LeakTargets {
  /**
   * Also resolve a fresh name each round through the system resolver (getent hosts:
   * getaddrinfo and the namespace's /etc/resolv.conf, see setNamespaceResolver). Default true.
   */
  systemDns?: boolean;
  /** The traffic and the capture end on their own after this long, even unstopped. Default 120. */
  maxSeconds?: number;
  /** Time from the start of one probe to the start of the next of its kind. Default 200. */
  intervalMs?: number;
  /** The interface captured. Default eth0. */
  dev?: string;
  /** The domain under which the DNS probes ask fresh names. Default PROBE_DOMAIN. */
  domain?: string;
}

export interface LeakWatchResult {
  /** Every IP packet that crossed the interface, in capture order (ARP is not an IP packet). */
  packets: IpPacket[];
  probes: ProbeTallies;
  /** The host's own addresses on the interface (at start and at stop), for AllowedPeers.self. */
  self: string[];
  /** The pcap file (in the network's directory, removed by destroy). */
  file: string;
}

export interface LeakWatch {
  /** The tallies so far (refreshed by the traffic every half second). */
  tallies(): ProbeTallies;
  /** Resolves when the traffic has ended, by stop() or on its own after maxSeconds. */
  trafficDone: Promise<void>;
  /** Ends the traffic and the capture; resolves with what was captured (again: the same). */
  stop(): Promise<LeakWatchResult>;
}

/**
 * The traffic, run inside the host's namespace as one node process: a bounded loop per kind of
 * probe (at most one probe of each kind in flight), tallies written to a file. It ends on
 * SIGTERM, or by itself when maxSeconds are up or its rounds are spent.
 */
const TRAFFIC = String.raw`
const { spawn } = require('node:child_process');
const dgram = require('node:dgram');
const { randomBytes, randomInt } = require('node:crypto');
const fs = require('node:fs');
const cfg = JSON.parse(process.argv[1]);
const deadline = Date.now() + cfg.maxSeconds * 1000;
const rounds = Math.ceil((cfg.maxSeconds * 1000) / cfg.intervalMs) + 1;
const tallies = {};
const children = new Set();
let finished = false;
let seq = 0;

function save() {
  fs.writeFileSync(cfg.talliesFile + '.tmp', JSON.stringify(tallies));
  fs.renameSync(cfg.talliesFile + '.tmp', cfg.talliesFile);
}
const saver = setInterval(save, 500);
function finish() {
  if (finished) return;
  finished = true;
  clearInterval(saver);
  for (const c of children) c.kill('SIGKILL');
  save();
  process.exit(0);
}
process.on('SIGTERM', finish);
process.on('SIGINT', finish);

function run(argv, ms) {
  return new Promise((resolve) => {
    let done = false;
    const c = spawn(argv[0], argv.slice(1), { stdio: 'ignore' });
    children.add(c);
    const settle = (ok) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      children.delete(c);
      resolve(ok);
    };
    const timer = setTimeout(() => { c.kill('SIGKILL'); settle(false); }, ms);
    c.on('error', () => settle(false));
    c.on('exit', (code) => settle(code === 0));
  });
}

function ask(address, port, payload, accept, ms) {
  return new Promise((resolve) => {
    const s = dgram.createSocket(address.includes(':') ? 'udp6' : 'udp4');
    let done = false;
    const settle = (ok) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      s.close();
      resolve(ok);
    };
    const timer = setTimeout(() => settle(false), ms);
    s.on('error', () => settle(false));
    s.on('message', (m) => { if (accept(m)) settle(true); });
    s.send(payload, port, address, (err) => { if (err) settle(false); });
  });
}

function dnsQuery(name, id) {
  const head = Buffer.alloc(12);
  head.writeUInt16BE(id, 0);
  head.writeUInt16BE(0x0100, 2);
  head.writeUInt16BE(1, 4);
  const labels = name.split('.').map((l) => Buffer.concat([Buffer.from([l.length]), Buffer.from(l)]));
  return Buffer.concat([head, ...labels, Buffer.from([0, 0, 1, 0, 1])]);
}

const fresh = (tag) => tag + '-' + ++seq + '-' + randomBytes(4).toString('hex') + '.' + cfg.domain;

const probes = {
  icmp: () => run(['ping', '-n', '-c1', '-W1', cfg.ping], 2000),
  tcp: () => run(['curl', '-g', '-s', '-o', '/dev/null', '--max-time', '2', cfg.url], 3000),
  udp: () => {
    const p = Buffer.from('leak-probe ' + ++seq + ' ' + randomBytes(4).toString('hex'));
    return ask(cfg.udp.address, cfg.udp.port, p, (m) => m.equals(p), 1000);
  },
  dnsDirect: () => {
    const id = randomInt(65536);
    return ask(cfg.resolver, 53, dnsQuery(fresh('d'), id), (m) => m.length >= 12 && m.readUInt16BE(0) === id, 1000);
  },
  dnsSystem: () => run(['getent', 'hosts', fresh('s')], 3000),
  icmp6: () => run(['ping', '-6', '-n', '-c1', '-W1', cfg.ipv6.ping], 2000),
  tcp6: () => run(['curl', '-g', '-s', '-o', '/dev/null', '--max-time', '2', cfg.ipv6.url], 3000),
};

async function loop(kind) {
  const t = (tallies[kind] = { attempts: 0, successes: 0 });
  for (let i = 0; i < rounds && !finished && Date.now() < deadline; i++) {
    const started = Date.now();
    const ok = await probes[kind]();
    if (finished) return;
    t.attempts++;
    if (ok) t.successes++;
    await new Promise((r) => setTimeout(r, Math.max(0, cfg.intervalMs - (Date.now() - started))));
  }
}

Promise.all(cfg.kinds.map(loop)).then(finish);
`;

/**
 * The far end of the probes on a host: an HTTP server, a UDP echo and a DNS server that answers
 * every A query with 192.0.2.1 (and every other query with no records), on IPv4 and, when the
 * host has it, IPv6.
 */
const TARGETS = String.raw`
const http = require('node:http');
const dgram = require('node:dgram');
let pending = 3;
const up = () => { if (--pending === 0) console.log('ready'); };
function answer(q) {
  if (q.length < 12) return undefined;
  let o = 12;
  while (o < q.length && q[o] !== 0) o += q[o] + 1;
  o += 5;
  if (o > q.length) return undefined;
  const qtype = q.readUInt16BE(o - 4);
  const head = Buffer.from(q.subarray(0, o));
  head.writeUInt16BE(0x8180 | (q.readUInt16BE(2) & 0x0100), 2);
  head.writeUInt16BE(qtype === 1 ? 1 : 0, 6);
  head.writeUInt32BE(0, 8);
  if (qtype !== 1) return head;
  return Buffer.concat([head, Buffer.from([0xc0, 12, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 192, 0, 2, 1])]);
}
http.createServer((q, s) => s.end('ok\n')).listen(${PROBE_HTTP_PORT}, '::', up);
const echo = dgram.createSocket('udp6');
echo.on('message', (m, r) => echo.send(m, r.port, r.address));
echo.bind(${PROBE_UDP_PORT}, '::', up);
const dns = dgram.createSocket('udp6');
dns.on('message', (m, r) => { const a = answer(m); if (a) dns.send(a, r.port, r.address); });
dns.bind(${PROBE_DNS_PORT}, '::', up);
`;

export interface ProbeTargets {
  host: string;
  process: ManagedProcess;
  /** The targets of a LeakWatch, all on this host (ipv6 when the host has IPv6). */
  targets: LeakTargets;
}

/** Starts the far end of the probes (HTTP, UDP echo, DNS) on a host and waits until it serves. */
export async function startProbeTargets(net: TestNetwork, host: string): Promise<ProbeTargets> {
  const h = net.host(host);
  const proc = net.spawn(host, `probe-targets-${host}`, [process.execPath, '-e', TARGETS]);
  await net.waitFor(`the probe targets on ${host}`, 10_000, () => {
    if (proc.output().includes('ready')) return true;
    if (proc.child.exitCode !== null) throw new Error(proc.output());
    return undefined;
  });
  const targets: LeakTargets = {
    ping: h.address,
    url: `http://${h.address}:${PROBE_HTTP_PORT}/`,
    udp: { address: h.address, port: PROBE_UDP_PORT },
    resolver: h.address,
  };
  if (h.address6 !== undefined)
    targets.ipv6 = { ping: h.address6, url: `http://[${h.address6}]:${PROBE_HTTP_PORT}/` };
  return { host, process: proc, targets };
}

/**
 * Makes the host's processes resolve through `nameservers`: writes /etc/netns/<ns>/resolv.conf,
 * which `ip netns exec` mounts over /etc/resolv.conf (the machine's own file is not touched).
 * Short timeouts keep a query that nobody answers from holding a probe for long. Write it before
 * starting the processes that should read it.
 */
export function setNamespaceResolver(
  net: TestNetwork,
  host: string,
  nameservers: readonly string[],
): string {
  const lines = nameservers.map((n) => `nameserver ${n}`);
  return net.setEtcFile(
    host,
    'resolv.conf',
    [...lines, 'options timeout:1 attempts:1', ''].join('\n'),
  );
}

/** The addresses on a host's interface (IPv6 link-local included). */
function addressesOn(net: TestNetwork, host: string, dev: string): string[] {
  const info = JSON.parse(net.exec(host, ['ip', '-j', 'address', 'show', 'dev', dev])) as {
    addr_info?: { local?: string }[];
  }[];
  return info.flatMap((l) => (l.addr_info ?? []).flatMap((a) => (a.local ? [a.local] : [])));
}

function readTallies(file: string): ProbeTallies {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as ProbeTallies;
  } catch {
    return {};
  }
}

let watches = 0;

/**
 * Starts a capture of every IP packet on the host's interface and then continuous traffic of
 * every kind from the host (see LeakTargets), each bounded by maxSeconds. The test changes what
 * it wants meanwhile (connects, drops the relay, ...) and then calls stop().
 */
export async function startLeakWatch(
  net: TestNetwork,
  host: string,
  opts: LeakWatchOptions,
): Promise<LeakWatch> {
  requireTools(['tcpdump', 'timeout', 'ping', 'curl', 'getent']);
  const h = net.host(host);
  if (h.address6 !== undefined && !opts.ipv6)
    throw new Error(`host ${host} has IPv6: a leak watch needs IPv6 targets (opts.ipv6)`);
  const maxSeconds = opts.maxSeconds ?? 120;
  const intervalMs = opts.intervalMs ?? 200;
  const dev = opts.dev ?? 'eth0';
  const kinds: ProbeKind[] = ['icmp', 'tcp', 'udp', 'dnsDirect'];
  if (opts.systemDns ?? true) kinds.push('dnsSystem');
  if (h.address6 !== undefined) kinds.push('icmp6', 'tcp6');

  const k = watches++;
  const file = path.join(net.dir, `leak-${host}-${k}.pcap`);
  const talliesFile = path.join(net.dir, `leak-${host}-${k}.json`);
  const self = new Set(addressesOn(net, host, dev));
  // The capture outlives the traffic's own end, so that stop() still finds it running.
  const stopCapture = await net.capture(host, dev, 'ip or ip6', file, {
    maxSeconds: maxSeconds + 60,
  });
  const config = {
    maxSeconds,
    intervalMs,
    kinds,
    talliesFile,
    domain: opts.domain ?? PROBE_DOMAIN,
    ping: opts.ping,
    url: opts.url,
    udp: opts.udp,
    resolver: opts.resolver,
    ipv6: opts.ipv6,
  };
  const traffic = net.spawn(host, `leak-traffic-${host}`, [
    process.execPath,
    '-e',
    TRAFFIC,
    JSON.stringify(config),
  ]);
  const trafficDone = traffic.exited.then(() => undefined);
  let stopped: Promise<LeakWatchResult> | undefined;
  return {
    tallies: () => readTallies(talliesFile),
    trafficDone,
    stop() {
      stopped ??= (async () => {
        const code = await traffic.stop();
        // Let the answers to the last probes arrive, as they would have.
        await new Promise((r) => setTimeout(r, 300));
        await stopCapture();
        if (code !== 0 && code !== null)
          throw new Error(`the leak traffic on ${host} exited ${code}: ${traffic.output()}`);
        for (const a of addressesOn(net, host, dev)) self.add(a);
        return {
          packets: existsSync(file) ? readPcapIp(file) : [],
          probes: readTallies(talliesFile),
          self: [...self],
          file,
        };
      })();
      return stopped;
    },
  };
}

/** Who a host may exchange packets with while it is protected. */
export interface AllowedPeers {
  /** Transport endpoints (a relay's address, port and protocol). */
  endpoints?: readonly { address: string; port: number; protocol: 'tcp' | 'udp' }[];
  /** Whole addresses (the control plane's). */
  addresses?: readonly string[];
  /** Address ranges (the domestic set; LINK_SCOPE_CIDRS). */
  cidrs?: readonly string[];
  /**
   * The watched host's own addresses (LeakWatchResult.self): never taken for the peer, so that a
   * range that holds the host itself does not allow everything it sends.
   */
  self?: readonly string[];
}

export interface Leak {
  /** "proto src>dst:port", e.g. "udp 198.18.7.10>198.19.7.11:53". */
  line: string;
  packet: IpPacket;
}

const norm = (a: string) => ipaddr.parse(a).toString();
const withPort = (a: string, port: number | undefined) =>
  port === undefined ? a : a.includes(':') ? `[${a}]:${port}` : `${a}:${port}`;

/** A packet as one short line: "proto src>dst:port". */
export function describePacket(p: IpPacket): string {
  return `${p.protocol} ${p.src}>${withPort(p.dst, p.dport)}`;
}

/**
 * The packets that are neither to nor from an allowed peer: each one is traffic that left (or
 * reached) the host outside the tunnel's endpoint, the control plane and the allowed ranges.
 * ICMP to or from an endpoint's address is a leak unless the address itself is allowed.
 * With the host's own addresses known (`self`), only what it sends is judged: a packet that
 * comes in says nothing of what the host lets out (the capture sees it before any filter), and a
 * reply to something the host sent is judged by that packet, which the capture holds too. So a
 * far end's retry of a flow begun before the capture (TCP retries for minutes) is not a leak.
 */
export function leaksOf(packets: readonly IpPacket[], allowed: AllowedPeers): Leak[] {
  const self = new Set((allowed.self ?? []).map(norm));
  const addresses = new Set((allowed.addresses ?? []).map(norm));
  const endpoints = (allowed.endpoints ?? []).map((e) => ({ ...e, address: norm(e.address) }));
  const cidrs = (allowed.cidrs ?? []).map((c) => ipaddr.parseCIDR(c));
  const isAllowed = (address: string, port: number | undefined, protocol: string): boolean => {
    const a = norm(address);
    if (self.has(a)) return false;
    if (addresses.has(a)) return true;
    if (endpoints.some((e) => e.address === a && e.port === port && e.protocol === protocol))
      return true;
    const parsed = ipaddr.parse(a);
    return cidrs.some(
      ([range, bits]) => parsed.kind() === range.kind() && parsed.match(range, bits),
    );
  };
  return packets
    .filter((p) => !self.has(norm(p.dst)))
    .filter((p) => !isAllowed(p.dst, p.dport, p.protocol) && !isAllowed(p.src, p.sport, p.protocol))
    .map((packet) => ({ line: describePacket(packet), packet }));
}

/**
 * The packets of a capture from `since` (epoch ms) on, less those that come in to the watched
 * host on a flow it began before `since`: the far end retries on its own (a SYN-ACK, a FIN,
 * retransmitted for seconds), which says nothing of what this host lets out from then on.
 */
export function packetsSince(result: LeakWatchResult, since: number): IpPacket[] {
  const self = new Set(result.self.map(norm));
  const flow = (p: IpPacket) =>
    `${p.protocol} ${[`${norm(p.src)} ${p.sport}`, `${norm(p.dst)} ${p.dport}`].sort().join(' ')}`;
  const begun = new Set(
    result.packets.filter((p) => p.time * 1000 < since && self.has(norm(p.src))).map(flow),
  );
  return result.packets.filter(
    (p) => p.time * 1000 >= since && !(self.has(norm(p.dst)) && begun.has(flow(p))),
  );
}

/** The distinct lines of some leaks with how often each occurred, most frequent first. */
export function leakSummary(leaks: readonly Leak[]): string[] {
  const counts = new Map<string, number>();
  for (const l of leaks) counts.set(l.line, (counts.get(l.line) ?? 0) + 1);
  return [...counts].sort((x, y) => y[1] - x[1]).map(([line, n]) => `${line} x${n}`);
}

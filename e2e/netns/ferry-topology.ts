// Two-namespace topology (server and client joined by a veth pair) for the Ferry tunnel tests, with cleanup.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const FERRY_TUN = join(REPO, 'bin', 'ferry-tun');

// Addresses exist only inside the namespaces this module creates.
export const SERVER_UNDERLAY = '192.168.240.1';
export const CLIENT_UNDERLAY = '192.168.240.2';
export const SERVER_TUNNEL = '10.99.0.1';
export const CLIENT_TUNNEL = '10.99.0.2';
export const FERRY_PORT = 51820;

/** Fails (never skips) when something the namespace tests need is missing. */
export function requirePrerequisites(tools: string[]): void {
  if (process.getuid?.() !== 0) throw new Error('namespace tests must run as root');
  for (const t of tools) {
    if (spawnSync('sh', ['-c', `command -v ${t}`]).status !== 0)
      throw new Error(`required tool missing: ${t}`);
  }
  const built = [
    join(REPO, 'dist', 'native', 'ferry-tun-cli.js'),
    join(REPO, 'native', 'build', 'Release', 'ferry_native.node'),
  ];
  for (const f of built)
    if (!existsSync(f)) throw new Error(`${f} missing: run npm run build && npm run build:native`);
}

export function run(cmd: string, args: string[], input?: string): string {
  const r = spawnSync(cmd, args, { encoding: 'utf8', input, timeout: 30_000 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  return r.stdout;
}

export interface JsonEvent {
  type: string;
  state?: string;
  rttMs?: number;
  cipher?: string;
  counters?: Record<string, number>;
  /** Arrival time (s since the epoch) of the event at the test. */
  at?: number;
}

/** A ferry-tun process whose --json events are collected as they arrive. */
export class FerryProcess {
  readonly events: JsonEvent[] = [];
  stderr = '';
  private exited: Promise<number | null>;

  constructor(readonly child: ChildProcess) {
    let buf = '';
    child.stdout?.on('data', (d: Buffer) => {
      buf += d.toString();
      let nl;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (line.trim())
          this.events.push({ ...(JSON.parse(line) as JsonEvent), at: Date.now() / 1000 });
      }
    });
    child.stderr?.on('data', (d: Buffer) => (this.stderr += d.toString()));
    this.exited = new Promise((resolve) => child.once('close', (code) => resolve(code)));
  }

  lastCounters(): Record<string, number> {
    for (let i = this.events.length - 1; i >= 0; i--) {
      const c = this.events[i]?.counters;
      if (c) return c;
    }
    return {};
  }

  async waitFor(
    pred: (e: JsonEvent) => boolean,
    timeoutMs: number,
    what: string,
  ): Promise<JsonEvent> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const e = this.events.find(pred);
      if (e) return e;
      await sleep(50);
    }
    throw new Error(`timed out waiting for ${what}; stderr: ${this.stderr}`);
  }

  /** Waits until a counters event satisfying pred arrives (counters are reported about once a second). */
  async waitCounters(
    pred: (c: Record<string, number>) => boolean,
    timeoutMs: number,
    what: string,
  ) {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const c = this.lastCounters();
      if (pred(c)) return c;
      await sleep(100);
    }
    throw new Error(
      `timed out waiting for ${what}; last counters ${JSON.stringify(this.lastCounters())}`,
    );
  }

  /** SIGTERM, then SIGKILL if it does not exit in time; returns the exit code. */
  async stop(): Promise<number | null> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return this.child.exitCode;
    this.child.kill('SIGTERM');
    const t = setTimeout(() => this.child.kill('SIGKILL'), 5000);
    const code = await this.exited;
    clearTimeout(t);
    return code;
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

export class Topology {
  readonly id = randomBytes(3).toString('hex');
  readonly serverNs = `fts-${this.id}`;
  readonly clientNs = `ftc-${this.id}`;
  readonly serverVeth = `fvs-${this.id}`;
  readonly clientVeth = `fvc-${this.id}`;
  readonly serverTun = `fts${this.id}`;
  readonly clientTun = `ftc${this.id}`;
  readonly dir = mkdtempSync(join(tmpdir(), 'ferry-netns-'));
  private readonly children: ChildProcess[] = [];
  serverPublic = '';
  clientPublic = '';

  create(): void {
    run('ip', ['netns', 'add', this.serverNs]);
    run('ip', ['netns', 'add', this.clientNs]);
    run('ip', [
      'link',
      'add',
      this.serverVeth,
      'netns',
      this.serverNs,
      'type',
      'veth',
      'peer',
      'name',
      this.clientVeth,
      'netns',
      this.clientNs,
    ]);
    for (const [ns, dev, addr] of [
      [this.serverNs, this.serverVeth, SERVER_UNDERLAY],
      [this.clientNs, this.clientVeth, CLIENT_UNDERLAY],
    ] as const) {
      run('ip', ['-n', ns, 'addr', 'add', `${addr}/24`, 'dev', dev]);
      run('ip', ['-n', ns, 'link', 'set', dev, 'up']);
      run('ip', ['-n', ns, 'link', 'set', 'lo', 'up']);
    }
    const sk = run(FERRY_TUN, ['keygen']).trim();
    const ck = run(FERRY_TUN, ['keygen']).trim();
    writeFileSync(join(this.dir, 'server.key'), `${sk}\n`, { mode: 0o600 });
    writeFileSync(join(this.dir, 'client.key'), `${ck}\n`, { mode: 0o600 });
    this.serverPublic = run(FERRY_TUN, ['pubkey'], sk).trim();
    this.clientPublic = run(FERRY_TUN, ['pubkey'], ck).trim();
  }

  /** Spawns argv inside a namespace and remembers it for cleanup. */
  spawnIn(ns: string, argv: string[]): ChildProcess {
    const c = spawn('ip', ['netns', 'exec', ns, ...argv], { stdio: ['ignore', 'pipe', 'pipe'] });
    this.children.push(c);
    return c;
  }

  /** Starts tcpdump in a namespace, resolves once it is capturing; the result stops it. */
  async capture(
    ns: string,
    dev: string,
    filter: string,
    file: string,
  ): Promise<() => Promise<void>> {
    const child = this.spawnIn(ns, [
      'tcpdump',
      '-i',
      dev,
      '--immediate-mode',
      '-U',
      '-n',
      '-w',
      file,
      filter,
    ]);
    let err = '';
    child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
    for (let i = 0; i < 100 && !err.includes('listening on'); i++) await sleep(50);
    if (!err.includes('listening on')) throw new Error(`tcpdump did not start: ${err}`);
    return async () => {
      child.kill('SIGINT');
      for (let i = 0; i < 100 && child.exitCode === null; i++) await sleep(50);
    };
  }

  exec(ns: string, argv: string[], input?: string): string {
    return run('ip', ['netns', 'exec', ns, ...argv], input);
  }

  /** Starts ferry-tun server; with peersFile instead of the default --peer for the client. */
  startServer(extra: string[] = [], peersFile?: string): FerryProcess {
    const peers = peersFile
      ? ['--peers-file', peersFile]
      : ['--peer', `${this.clientPublic}=${CLIENT_TUNNEL}/32`];
    return new FerryProcess(
      this.spawnIn(this.serverNs, [
        process.execPath,
        FERRY_TUN,
        'server',
        '--interface',
        this.serverTun,
        '--address',
        `${SERVER_TUNNEL}/24`,
        '--listen',
        `${SERVER_UNDERLAY}:${FERRY_PORT}`,
        '--private-key',
        join(this.dir, 'server.key'),
        ...peers,
        '--json',
        ...extra,
      ]),
    );
  }

  startClient(extra: string[] = [], server = `${SERVER_UNDERLAY}:${FERRY_PORT}`): FerryProcess {
    return new FerryProcess(
      this.spawnIn(this.clientNs, [
        process.execPath,
        FERRY_TUN,
        'client',
        '--interface',
        this.clientTun,
        '--address',
        `${CLIENT_TUNNEL}/24`,
        '--server',
        server,
        '--server-public-key',
        this.serverPublic,
        '--private-key',
        join(this.dir, 'client.key'),
        '--json',
        ...extra,
      ]),
    );
  }

  /** Stops every process we started, anything else left in our namespaces, then deletes them. */
  async destroy(): Promise<void> {
    for (const c of this.children) {
      if (c.exitCode === null && c.signalCode === null) c.kill('SIGTERM');
    }
    const deadline = Date.now() + 5000;
    while (
      Date.now() < deadline &&
      this.children.some((c) => c.exitCode === null && c.signalCode === null)
    )
      await sleep(50);
    for (const c of this.children)
      if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    for (const ns of [this.serverNs, this.clientNs]) {
      const pids = spawnSync('ip', ['netns', 'pids', ns], { encoding: 'utf8' })
        .stdout.split(/\s+/)
        .filter(Boolean);
      for (const pid of pids) {
        try {
          process.kill(Number(pid), 'SIGKILL');
        } catch {
          // already gone
        }
      }
      spawnSync('ip', ['netns', 'del', ns]);
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

// --- packet capture -------------------------------------------------------------------------------

export interface UdpPacket {
  src: string;
  dst: string;
  sport: number;
  dport: number;
  payload: Buffer;
}

/** Parses a classic pcap file of Ethernet frames and returns the IPv4 UDP packets in it. */
export function readPcapUdp(file: string): UdpPacket[] {
  const b = readFileSync(file);
  if (b.length < 24) return [];
  const le = b.readUInt32LE(0) === 0xa1b2c3d4 || b.readUInt32LE(0) === 0xa1b23c4d;
  const u32 = (o: number) => (le ? b.readUInt32LE(o) : b.readUInt32BE(o));
  const linktype = u32(20);
  const out: UdpPacket[] = [];
  let off = 24;
  while (off + 16 <= b.length) {
    const incl = u32(off + 8);
    const frame = b.subarray(off + 16, off + 16 + incl);
    off += 16 + incl;
    const ipOff = linktype === 1 ? 14 : linktype === 113 ? 16 : 0;
    if (linktype === 1 && frame.readUInt16BE(12) !== 0x0800) continue;
    const ip = frame.subarray(ipOff);
    if (ip.length < 28 || ip[0]! >> 4 !== 4 || ip[9] !== 17) continue;
    const ihl = (ip[0]! & 15) * 4;
    const total = ip.readUInt16BE(2);
    const udp = ip.subarray(ihl, total);
    out.push({
      src: `${ip[12]}.${ip[13]}.${ip[14]}.${ip[15]}`,
      dst: `${ip[16]}.${ip[17]}.${ip[18]}.${ip[19]}`,
      sport: udp.readUInt16BE(0),
      dport: udp.readUInt16BE(2),
      payload: Buffer.from(udp.subarray(8)),
    });
  }
  return out;
}

export interface TcpSegment {
  src: string;
  dst: string;
  sport: number;
  dport: number;
  flags: number;
  payload: Buffer;
}

/** Parses a classic pcap file of Ethernet frames and returns the IPv4 TCP segments in it. */
export function readPcapTcp(file: string): TcpSegment[] {
  const b = readFileSync(file);
  if (b.length < 24) return [];
  const out: TcpSegment[] = [];
  let off = 24;
  while (off + 16 <= b.length) {
    const incl = b.readUInt32LE(off + 8);
    const frame = b.subarray(off + 16, off + 16 + incl);
    off += 16 + incl;
    if (frame.length < 14 + 40 || frame.readUInt16BE(12) !== 0x0800) continue;
    const ip = frame.subarray(14);
    if (ip[0]! >> 4 !== 4 || ip[9] !== 6) continue;
    const ihl = (ip[0]! & 15) * 4;
    const total = ip.readUInt16BE(2);
    const tcp = ip.subarray(ihl, total);
    const thl = (tcp[12]! >> 4) * 4;
    out.push({
      src: `${ip[12]}.${ip[13]}.${ip[14]}.${ip[15]}`,
      dst: `${ip[16]}.${ip[17]}.${ip[18]}.${ip[19]}`,
      sport: tcp.readUInt16BE(0),
      dport: tcp.readUInt16BE(2),
      flags: tcp[13]!,
      payload: Buffer.from(tcp.subarray(thl)),
    });
  }
  return out;
}

/**
 * Sends datagrams from inside a namespace (a small node script) and reports how many replies arrived
 * within waitMs. Payloads travel as hex on stdin.
 */
export function sendDatagrams(
  topo: Topology,
  ns: string,
  host: string,
  port: number,
  payloads: Buffer[],
  waitMs: number,
  bindPort = 0,
) {
  const script = `
    const dgram = require('node:dgram');
    const lines = require('node:fs').readFileSync(0, 'utf8').split('\\n').filter((l) => l.length > 0 || false);
    const s = dgram.createSocket('udp4');
    let replies = 0;
    s.on('message', () => replies++);
    s.bind(${bindPort}, async () => {
      for (const l of lines) {
        const b = Buffer.from(l === '-' ? '' : l, 'hex');
        await new Promise((r) => s.send(b, ${port}, '${host}', r));
      }
      setTimeout(() => { process.stdout.write(JSON.stringify({ replies, sent: lines.length })); s.close(); }, ${waitMs});
    });`;
  const input = payloads.map((p) => (p.length ? p.toString('hex') : '-')).join('\n') + '\n';
  const out = topo.exec(ns, [process.execPath, '-e', script], input);
  return JSON.parse(out) as { replies: number; sent: number };
}

export function writeFile(path: string, text: string): void {
  writeFileSync(path, text);
}

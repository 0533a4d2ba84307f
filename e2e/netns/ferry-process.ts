// ferry-tun (the Ferry data plane's command line) on two hosts of a TestNetwork: its keys, a
// server and a client, and the --json events they report.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { sh, type ManagedProcess, type TestNetwork } from './test-network.js';

/** The repository root, from e2e/netns/ (sources) or dist/e2e/netns/ (built). */
function repoRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'package.json'))) dir = path.dirname(dir);
  return dir;
}

export const REPO = repoRoot();
export const SERVER_TUNNEL = '10.99.0.1';
export const CLIENT_TUNNEL = '10.99.0.2';
export const FERRY_PORT = 51820;
/** The port the tests and benchmarks give a server's --tcp-listen (Ferry over TCP). */
export const FERRY_TCP_PORT = 8443;

/** Fails (never skips) when a checkout's ferry-tun is not built: dist/ and the native addon. */
export function requireFerryBuilt(repo = REPO): void {
  const built = [
    path.join(repo, 'dist', 'native', 'ferry-tun-cli.js'),
    path.join(repo, 'native', 'build', 'Release', 'ferry_native.node'),
  ];
  for (const f of built)
    if (!existsSync(f)) throw new Error(`${f} missing: run npm run build && npm run build:native`);
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

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A ferry-tun process of a TestNetwork whose --json events are collected as they arrive. */
export class FerryProcess {
  readonly events: JsonEvent[] = [];

  constructor(readonly proc: ManagedProcess) {
    let buf = '';
    proc.child.stdout!.on('data', (d: Buffer) => {
      buf += d.toString();
      let nl;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (line.trim())
          this.events.push({ ...(JSON.parse(line) as JsonEvent), at: Date.now() / 1000 });
      }
    });
  }

  get child() {
    return this.proc.child;
  }

  /** Its stdout (the events) and stderr (what it says in words) as they came. */
  output(): string {
    return this.proc.output();
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
    throw new Error(`timed out waiting for ${what}; output: ${this.output()}`);
  }

  /** Waits until a counters event satisfying pred arrives (counters are reported about once a second). */
  async waitCounters(
    pred: (c: Record<string, number>) => boolean,
    timeoutMs: number,
    what: string,
  ): Promise<Record<string, number>> {
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
  stop(): Promise<number | null> {
    return this.proc.stop();
  }
}

/** The hosts the Ferry tests and benchmarks run the server and the client on. */
export const SERVER = 'server';
export const CLIENT = 'client';

export interface FerryPairOptions {
  /** The host that runs the server, and the one that runs the client. */
  server: string;
  client: string;
  /** The address the server listens on: its host's own unless given (e.g. a link's). */
  serverAddress?: string;
  /** bin/ferry-tun of the checkout to run (another one for an A/B comparison). */
  ferryTun?: string;
}

/**
 * A ferry-tun server on one host and its client on another, with a key pair each (in the
 * network's directory). Their tunnel addresses are SERVER_TUNNEL and CLIENT_TUNNEL; the processes
 * belong to the network, whose destroy stops them.
 */
export class FerryPair {
  readonly serverTun: string;
  readonly clientTun: string;
  readonly serverAddress: string;
  readonly serverPublic: string;
  readonly clientPublic: string;
  readonly dir: string;
  private readonly ferryTun: string;

  private constructor(
    private readonly net: TestNetwork,
    private readonly opts: FerryPairOptions,
  ) {
    this.ferryTun = opts.ferryTun ?? path.join(REPO, 'bin', 'ferry-tun');
    this.serverAddress = opts.serverAddress ?? net.host(opts.server).address;
    this.serverTun = `ft${net.id}s`;
    this.clientTun = `ft${net.id}c`;
    this.dir = path.join(net.dir, `ferry-${opts.server}-${opts.client}`);
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const key = (who: string) => {
      const k = sh(process.execPath, [this.ferryTun, 'keygen']).trim();
      writeFileSync(path.join(this.dir, `${who}.key`), `${k}\n`, { mode: 0o600 });
      return sh(process.execPath, [this.ferryTun, 'pubkey'], k).trim();
    };
    this.serverPublic = key('server');
    this.clientPublic = key('client');
  }

  /** Makes the keys; nothing runs yet. */
  static create(net: TestNetwork, opts: FerryPairOptions): FerryPair {
    return new FerryPair(net, opts);
  }

  /** Starts the server; with peersFile instead of the default --peer for the client. */
  startServer(extra: readonly string[] = [], peersFile?: string): FerryProcess {
    const peers = peersFile
      ? ['--peers-file', peersFile]
      : ['--peer', `${this.clientPublic}=${CLIENT_TUNNEL}/32`];
    return new FerryProcess(
      this.net.spawn(this.opts.server, 'ferry-tun server', [
        process.execPath,
        this.ferryTun,
        'server',
        '--interface',
        this.serverTun,
        '--address',
        `${SERVER_TUNNEL}/24`,
        '--listen',
        `${this.serverAddress}:${FERRY_PORT}`,
        '--private-key',
        path.join(this.dir, 'server.key'),
        ...peers,
        '--json',
        ...extra,
      ]),
    );
  }

  startClient(
    extra: readonly string[] = [],
    server = `${this.serverAddress}:${FERRY_PORT}`,
  ): FerryProcess {
    return new FerryProcess(
      this.net.spawn(this.opts.client, 'ferry-tun client', [
        process.execPath,
        this.ferryTun,
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
        path.join(this.dir, 'client.key'),
        '--json',
        ...extra,
      ]),
    );
  }
}

// A client machine of the test internet that runs `netcli daemon` in its namespace, and the
// netcli commands a user types there: the test kit of every netcli namespace test (and the demo
// and benchmarks that drive netcli).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ManagedProcess } from './test-network.js';
import type { Testbed } from './testbed.js';

/** The repository root, from e2e/netns (sources) or dist/e2e/netns (built). */
function repoRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'package.json'))) dir = path.dirname(dir);
  return dir;
}

export const NETCLI = path.join(repoRoot(), 'bin/netcli');

export interface NetcliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export class NetcliHost {
  readonly socket: string;
  readonly stateDir: string;
  daemon: ManagedProcess | undefined;
  /** More options of `netcli daemon` (e.g. --platforms-file), kept for restarts. */
  daemonArgs: readonly string[] = [];

  private constructor(
    private readonly bed: Testbed,
    readonly host: string,
  ) {
    const dir = path.join(bed.net.dir, `netcli-${host}`);
    mkdirSync(dir, { recursive: true });
    this.socket = path.join(dir, 'engine.sock');
    this.stateDir = path.join(dir, 'state');
  }

  /** A new access host `host` with its engine running. */
  static async start(
    bed: Testbed,
    host: string,
    opts: {
      daemonArgs?: readonly string[];
      ipv6?: boolean;
      /** Runs once the host exists, before its engine starts (files the daemon reads, say). */
      prepare?: (address: string) => void;
    } = {},
  ): Promise<NetcliHost> {
    const { address } = bed.net.addAccessHost(host, { ipv6: opts.ipv6 ?? false });
    // The engine points the system resolver at the tunnel's while connected: in a namespace it
    // must find a resolv.conf of the namespace's own, never the machine's.
    bed.net.setEtcFile(host, 'resolv.conf', `nameserver ${bed.net.accessGateway}\n`);
    opts.prepare?.(address);
    const h = new NetcliHost(bed, host);
    h.daemonArgs = opts.daemonArgs ?? [];
    await h.startDaemon();
    return h;
  }

  get address(): string {
    return this.bed.net.host(this.host).address;
  }

  /** Starts (or restarts) `netcli daemon` and waits until it answers. */
  async startDaemon(): Promise<void> {
    this.daemon = this.bed.net.spawn(this.host, `netcli-daemon-${this.host}`, [
      process.execPath,
      NETCLI,
      'daemon',
      '--socket',
      this.socket,
      '--state-dir',
      this.stateDir,
      ...this.daemonArgs,
    ]);
    const daemon = this.daemon;
    try {
      await this.bed.net.waitFor(`the engine on ${this.host}`, 15_000, () =>
        existsSync(this.socket) && this.run('status', '--json').code === 0 ? true : undefined,
      );
    } catch (e) {
      throw new Error(`${(e as Error).message}\ndaemon output:\n${daemon.output()}`);
    }
  }

  /** Runs one netcli command in the host's namespace against its engine. */
  run(...args: string[]): NetcliRun {
    const r = spawnSync(
      'ip',
      [
        'netns',
        'exec',
        this.bed.net.host(this.host).ns,
        process.execPath,
        NETCLI,
        ...args,
        '--socket',
        this.socket,
      ],
      { encoding: 'utf8', timeout: 60_000 },
    );
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  }

  /**
   * `netcli exec --via <via> -- <argv>` on the host: the program on that way, its exit status and
   * output (the socket goes before `--`, where run() would put it after the program's words).
   */
  execVia(via: string, ...argv: string[]): NetcliRun {
    const r = this.bed.net.execResult(this.host, [
      process.execPath,
      NETCLI,
      'exec',
      '--socket',
      this.socket,
      '--via',
      via,
      '--',
      ...argv,
    ]);
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  }

  /** run(), without blocking the test meanwhile (it may watch the engine while this runs). */
  runAsync(...args: string[]): Promise<NetcliRun> {
    const proc = this.bed.net.spawn(this.host, `netcli-${args[0] ?? 'run'}`, [
      process.execPath,
      NETCLI,
      ...args,
      '--socket',
      this.socket,
    ]);
    return proc.exited.then((code) => {
      const out = proc.output();
      return { code, stdout: out, stderr: out };
    });
  }

  private check(args: string[], r: NetcliRun): NetcliRun {
    if (r.code !== 0)
      throw new Error(
        `netcli ${args.join(' ')} exited ${r.code}: ${r.stderr}\n${this.daemon?.output() ?? ''}`,
      );
    return r;
  }

  /** A command that must succeed, its --json output parsed. */
  json(...args: string[]): any {
    return JSON.parse(this.check(args, this.run(...args, '--json')).stdout);
  }

  /** A command that must succeed, its human output. */
  human(...args: string[]): string {
    return this.check(args, this.run(...args)).stdout;
  }

  /** One request to the local API with curl over the unix socket. */
  curl(method: string, route: string, body?: unknown): { status: number; body: any } {
    const args = ['-s', '--unix-socket', this.socket, '-X', method, '-w', '\n%{http_code}'];
    if (body !== undefined)
      args.push('-H', 'content-type: application/json', '-d', JSON.stringify(body));
    const out = this.bed.net.exec(this.host, [
      'curl',
      ...args,
      `http://ferry.local/api/v1${route}`,
    ]);
    const cut = out.lastIndexOf('\n');
    return { status: Number(out.slice(cut + 1)), body: JSON.parse(out.slice(0, cut) || 'null') };
  }

  /** The address the echo service sees from this host. */
  exitIp(): string | undefined {
    return this.bed.echoFrom(this.host, 3);
  }

  /** Links, policy rules, routes and firewall tables on the host that are not the test network's own. */
  leftovers(): string[] {
    const ex = (argv: string[]) => this.bed.net.exec(this.host, argv);
    const out: string[] = [];
    const links = JSON.parse(ex(['ip', '-j', 'link', 'show'])) as { ifname: string }[];
    out.push(...links.map((l) => l.ifname).filter((n) => n !== 'lo' && n !== 'eth0'));
    const rules = ex(['ip', 'rule', 'show']).trim().split('\n');
    out.push(...rules.filter((r) => !/lookup (local|main|default)\s*$/.test(r)));
    const routes = ex(['ip', 'route', 'show', 'table', 'all']).trim().split('\n');
    out.push(...routes.filter((r) => !/(table local|dev eth0|^default via|dev lo)/.test(r)));
    const tables = JSON.parse(ex(['nft', '-j', 'list', 'tables'])) as {
      nftables: { table?: { family: string; name: string } }[];
    };
    for (const { table } of tables.nftables)
      if (table) out.push(`nft table ${table.family} ${table.name}`);
    return out;
  }

  async stop(): Promise<void> {
    await this.daemon?.stop();
  }
}

// A small internet of network namespaces for end-to-end tests, the demo and the benchmarks: an
// "internet" router, hosts on its access bridge, server subnets behind it (one of them inside the
// tunnel block, as a cloud VPC may be), a veth from the host so that test code can reach every
// host, and on request a direct veth between two hosts (link). Names and subnets are unique per
// run; destroy() removes every namespace, process and interface it made.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const WIREGUARD_RUN = '/var/run/wireguard';

function readdirSafe(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

export interface Host {
  name: string;
  ns: string;
  /** Address on its subnet. */
  address: string;
}

/** One end of a point-to-point link (see TestNetwork.link). */
export interface LinkEnd {
  host: string;
  /** The link's interface in the host's namespace. */
  dev: string;
  address: string;
}

export interface Link {
  a: LinkEnd;
  b: LinkEnd;
  /** A /24 that exists only on this link; addresses other than .1 and .2 are free to use. */
  subnet: string;
}

export interface ManagedProcess {
  child: ChildProcess;
  name: string;
  output(): string;
  /** SIGTERM (SIGKILL after 5 s); resolves to the exit code. */
  stop(): Promise<number | null>;
  exited: Promise<number | null>;
}

/** Runs a command with an argv array and returns stdout; throws with stderr on failure. */
export function sh(cmd: string, args: readonly string[], input?: string): string {
  const r = spawnSync(cmd, args, { encoding: 'utf8', input, timeout: 60_000 });
  if (r.status !== 0)
    throw new Error(
      `${cmd} ${args.join(' ')} failed (${r.status}): ${r.stderr || r.error?.message}`,
    );
  return r.stdout;
}

/** Fails (never skips) when a prerequisite of the namespace tests is missing. */
export function requireTools(tools: readonly string[]): void {
  if (process.getuid?.() !== 0) throw new Error('network namespace tests must run as root');
  const missing = tools.filter(
    (t) => spawnSync('sh', ['-c', `command -v "$1"`, 'sh', t]).status !== 0,
  );
  if (missing.length)
    throw new Error(
      `missing tools: ${missing.join(', ')} (scripts/setup/system-packages.sh installs them)`,
    );
}

export class TestNetwork {
  readonly id = randomBytes(3).toString('hex');
  /** Third octet of this run's subnets: 198.18.N.0/24 (access) and 198.19.N.0/24 (servers). */
  readonly n = randomInt(1, 255);
  readonly dir = mkdtempSync(path.join(tmpdir(), `ferry-net-${this.id}-`));
  readonly inet = `fy${this.id}-inet`;
  readonly hosts = new Map<string, Host>();
  private readonly processes: ManagedProcess[] = [];
  private readonly namespaces: string[] = [];
  private readonly hostLink = `fy${this.id}h`;
  private nextAccess = 10;
  private nextServer = 10;
  private nextVpc = 10;
  private links = 0;
  /** Each host's default gateway, which says which subnet it is on (see renumber). */
  private readonly gateways = new Map<string, string>();

  get accessGateway(): string {
    return `198.18.${this.n}.1`;
  }

  get serverSubnet(): string {
    return `198.19.${this.n}.0/24`;
  }

  /**
   * A server subnet inside the tunnel block 10.64.0.0/10, in a block of addresses no test
   * device is given (devices are numbered from 10.64.0.2 up): a relay whose cloud network uses
   * the same private range must still reach it.
   */
  get vpcSubnet(): string {
    return `10.120.${this.n}.0/24`;
  }

  /** The internet router, its two bridges, and a link from the host namespace. */
  static create(): TestNetwork {
    const net = new TestNetwork();
    try {
      net.addNamespace(net.inet);
      const ex = (...a: string[]) => sh('ip', ['-n', net.inet, ...a]);
      // A bridge without a MAC of its own takes its lowest port's, so adding a host could
      // change the router's address under the hosts' ARP caches: fixed ones keep it put.
      ex('link', 'add', 'access', 'address', '02:00:00:00:00:01', 'type', 'bridge');
      ex('link', 'add', 'servers', 'address', '02:00:00:00:00:02', 'type', 'bridge');
      ex('address', 'add', `${net.accessGateway}/24`, 'dev', 'access');
      ex('address', 'add', `198.19.${net.n}.1/24`, 'dev', 'servers');
      ex('address', 'add', `10.120.${net.n}.1/24`, 'dev', 'servers');
      ex('link', 'set', 'access', 'up');
      ex('link', 'set', 'servers', 'up');
      sh('ip', ['netns', 'exec', net.inet, 'sysctl', '-qw', 'net.ipv4.ip_forward=1']);
      // The host reaches the access subnet directly, and the server subnet through the router.
      sh('ip', [
        'link',
        'add',
        net.hostLink,
        'type',
        'veth',
        'peer',
        'name',
        'host',
        'netns',
        net.inet,
      ]);
      ex('link', 'set', 'host', 'master', 'access', 'up');
      sh('ip', ['address', 'add', `198.18.${net.n}.254/24`, 'dev', net.hostLink]);
      sh('ip', ['link', 'set', net.hostLink, 'up']);
      for (const subnet of [net.serverSubnet, net.vpcSubnet])
        sh('ip', ['route', 'add', subnet, 'via', net.accessGateway, 'dev', net.hostLink]);
    } catch (e) {
      net.destroy();
      throw e;
    }
    return net;
  }

  /** A host on the access bridge (clients, relays, the control plane). */
  addAccessHost(name: string): Host {
    return this.addHost(
      name,
      'access',
      `198.18.${this.n}.${this.nextAccess++}`,
      this.accessGateway,
    );
  }

  /** A host on the server subnet behind the router (echo and other services). */
  addServerHost(name: string): Host {
    return this.addHost(
      name,
      'servers',
      `198.19.${this.n}.${this.nextServer++}`,
      `198.19.${this.n}.1`,
    );
  }

  /** A host on the subnet inside the tunnel block (see vpcSubnet). */
  addVpcHost(name: string): Host {
    return this.addHost(
      name,
      'servers',
      `10.120.${this.n}.${this.nextVpc++}`,
      `10.120.${this.n}.1`,
    );
  }

  /**
   * A host with loopback only, joined to nothing: for checking what a program does to a
   * machine's own links, routes and firewall with nothing else in the namespace.
   */
  addIsolatedHost(name: string): Host {
    if (this.hosts.has(name)) throw new Error(`host ${name} exists`);
    const host = { name, ns: `fy${this.id}-${name}`, address: '127.0.0.1' };
    this.addNamespace(host.ns);
    this.hosts.set(name, host);
    return host;
  }

  host(name: string): Host {
    const h = this.hosts.get(name);
    if (!h) throw new Error(`no host ${name}`);
    return h;
  }

  /**
   * A veth straight from one host to another, beside their eth0: nothing in between (no bridge,
   * no router), on a /24 of its own (172.31.K.0/24, the K-th link) that exists only in the two
   * namespaces. For measuring a path with nothing but the link under it, or shaping one link.
   */
  link(a: string, b: string): Link {
    const ends = [this.host(a), this.host(b)];
    const k = this.links++;
    const dev = `p2p${k}`;
    sh('ip', [
      'link',
      'add',
      dev,
      'netns',
      ends[0]!.ns,
      'type',
      'veth',
      'peer',
      'name',
      dev,
      'netns',
      ends[1]!.ns,
    ]);
    const [endA, endB] = ends.map((h, i) => {
      const address = `172.31.${k}.${i + 1}`;
      sh('ip', ['-n', h.ns, 'address', 'add', `${address}/24`, 'dev', dev]);
      sh('ip', ['-n', h.ns, 'link', 'set', dev, 'up']);
      return { host: h.name, dev, address };
    });
    return { a: endA!, b: endB!, subnet: `172.31.${k}.0/24` };
  }

  /**
   * Gives a host a new address on its subnet in place of its old one, as when a laptop moves
   * to another network (between the two it has none), keeps its default route, and returns the
   * new address (also in its Host).
   */
  renumber(name: string): string {
    const host = this.host(name);
    const gateway = this.gateways.get(name)!;
    const address =
      gateway === this.accessGateway
        ? `198.18.${this.n}.${this.nextAccess++}`
        : gateway === `198.19.${this.n}.1`
          ? `198.19.${this.n}.${this.nextServer++}`
          : `10.120.${this.n}.${this.nextVpc++}`;
    sh('ip', ['-n', host.ns, 'address', 'flush', 'dev', 'eth0']);
    sh('ip', ['-n', host.ns, 'address', 'add', `${address}/24`, 'dev', 'eth0']);
    sh('ip', ['-n', host.ns, 'route', 'replace', 'default', 'via', gateway]);
    host.address = address;
    return address;
  }

  /**
   * Starts tcpdump on one of a host's interfaces, writing every packet that matches `filter` to
   * `file` (pcap) as it passes, and resolves once it is capturing. The function it resolves to
   * stops the capture and resolves once the file is complete.
   */
  async capture(
    host: string,
    dev: string,
    filter: string,
    file: string,
  ): Promise<() => Promise<void>> {
    const tcpdump = this.spawn(host, `tcpdump-${dev}`, [
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
    await this.waitFor(`tcpdump on ${host} ${dev}`, 5000, () => {
      if (tcpdump.output().includes('listening on')) return true;
      if (tcpdump.child.exitCode !== null) throw new Error(tcpdump.output());
      return undefined;
    });
    return async () => {
      // SIGINT: tcpdump writes out what it holds and exits.
      tcpdump.child.kill('SIGINT');
      await Promise.race([tcpdump.exited, new Promise((r) => setTimeout(r, 5000))]);
      await tcpdump.stop();
    };
  }

  /** Runs a command inside a host's namespace and returns its stdout. */
  exec(host: string, argv: readonly string[], input?: string): string {
    return sh('ip', ['netns', 'exec', this.host(host).ns, ...argv], input);
  }

  /** Starts a long-running process inside a host's namespace, stopped by destroy(). */
  spawn(
    host: string,
    name: string,
    argv: readonly string[],
    env: Record<string, string> = {},
  ): ManagedProcess {
    const child = spawn('ip', ['netns', 'exec', this.host(host).ns, ...argv], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    });
    let out = '';
    const keep = (d: Buffer) => {
      out = (out + d.toString()).slice(-200_000);
    };
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    // 'close', not 'exit': it comes after the output streams are drained, so output() is complete.
    const exited = new Promise<number | null>((resolve) =>
      child.once('close', (code) => resolve(code)),
    );
    const proc: ManagedProcess = {
      child,
      name,
      exited,
      output: () => out,
      async stop() {
        if (child.exitCode === null && child.signalCode === null) {
          child.kill('SIGTERM');
          const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
          const code = await exited;
          clearTimeout(killer);
          return code;
        }
        return child.exitCode;
      },
    };
    this.processes.push(proc);
    return proc;
  }

  /** Polls `probe` until it returns a value, or fails with `what` after `timeoutMs`. */
  async waitFor<T>(
    what: string,
    timeoutMs: number,
    probe: () => T | undefined | Promise<T | undefined>,
  ): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    let last: unknown;
    while (Date.now() < deadline) {
      try {
        const v = await probe();
        if (v !== undefined) return v;
      } catch (e) {
        last = e;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(
      `timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`,
    );
  }

  /** Stops every process, then removes namespaces, the host link and the temp dir. */
  async destroyAsync(): Promise<void> {
    await Promise.all(this.processes.map((p) => p.stop()));
    this.destroy();
  }

  destroy(): void {
    for (const p of this.processes) if (p.child.exitCode === null) p.child.kill('SIGKILL');
    for (const ns of [...this.namespaces].reverse()) {
      // Processes left in a namespace keep it alive: end them first.
      const pids = spawnSync('ip', ['netns', 'pids', ns], { encoding: 'utf8' })
        .stdout.split(/\s+/)
        .filter(Boolean);
      for (const pid of pids) spawnSync('kill', ['-9', pid]);
      spawnSync('ip', ['netns', 'del', ns]);
    }
    spawnSync('ip', ['link', 'del', this.hostLink]);
    // A wireguard-go killed with its namespace leaves its UAPI socket in the shared /run.
    for (const f of readdirSafe(WIREGUARD_RUN)) {
      if (f.startsWith(`fy${this.id}`)) rmSync(path.join(WIREGUARD_RUN, f), { force: true });
    }
    rmSync(this.dir, { recursive: true, force: true });
  }

  private addNamespace(ns: string): void {
    sh('ip', ['netns', 'add', ns]);
    this.namespaces.push(ns);
    sh('ip', ['-n', ns, 'link', 'set', 'lo', 'up']);
  }

  private addHost(
    name: string,
    bridge: 'access' | 'servers',
    address: string,
    gateway: string,
  ): Host {
    if (this.hosts.has(name)) throw new Error(`host ${name} exists`);
    const ns = `fy${this.id}-${name}`;
    this.addNamespace(ns);
    const outside = `v${this.id}${this.hosts.size}`;
    sh('ip', [
      'link',
      'add',
      outside,
      'netns',
      this.inet,
      'type',
      'veth',
      'peer',
      'name',
      'eth0',
      'netns',
      ns,
    ]);
    sh('ip', ['-n', this.inet, 'link', 'set', outside, 'master', bridge, 'up']);
    sh('ip', ['-n', ns, 'address', 'add', `${address}/24`, 'dev', 'eth0']);
    sh('ip', ['-n', ns, 'link', 'set', 'eth0', 'up']);
    sh('ip', ['-n', ns, 'route', 'add', 'default', 'via', gateway]);
    const host = { name, ns, address };
    this.hosts.set(name, host);
    this.gateways.set(name, gateway);
    return host;
  }
}

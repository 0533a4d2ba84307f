// A small internet of network namespaces for end-to-end tests, the demo and the benchmarks: an
// "internet" router, hosts on its access bridge, server subnets behind it (one of them inside the
// tunnel block, as a cloud VPC may be), a veth from the host so that test code can reach every
// host, on request a direct veth between two hosts (link), IPv6 for the hosts that ask for it, and
// path faults on the router (blackhole, blockUdp, mtuBlackHole). Names and subnets are unique per
// run; destroy() removes every namespace, process, interface and file it made.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { UAPI_DIR as WIREGUARD_RUN } from '../../platform/os/wireguard-go.js';
/** Where `ip netns exec NS` finds the files it bind-mounts over /etc (see TestNetwork.setEtcFile). */
const NETNS_ETC = '/etc/netns';
/** The router's nftables tables of path faults (one per family; see TestNetwork.blackhole). */
const FAULTS_TABLE = 'ferry_faults';

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
  /** IPv6 address on its subnet, for a host added with { ipv6: true }. */
  address6?: string | undefined;
}

export interface HostOptions {
  /**
   * A static IPv6 address on the host's subnet and an IPv6 default route through the router.
   * Without it a host has IPv6 link-local addresses only, as before IPv6 came to the network.
   */
  ipv6?: boolean;
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

/** The subnet numbers in use on this machine, one directory each (owner's pid inside). */
const SUBNET_CLAIMS = '/run/ferry-testnet';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * A subnet number no other network of this machine uses: claimed by creating its directory
 * (atomic); a claim whose process is gone (a run that was killed) is taken over.
 */
function claimSubnet(): number {
  mkdirSync(SUBNET_CLAIMS, { recursive: true });
  for (let attempt = 0; attempt < 1_000; attempt++) {
    const n = randomInt(1, 255);
    const dir = path.join(SUBNET_CLAIMS, String(n));
    try {
      mkdirSync(dir);
      writeFileSync(path.join(dir, 'pid'), String(process.pid));
      return n;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      let owner = NaN;
      try {
        owner = Number(readFileSync(path.join(dir, 'pid'), 'utf8'));
      } catch {
        // Being written right now: someone else's.
        continue;
      }
      if (Number.isInteger(owner) && !alive(owner)) rmSync(dir, { recursive: true, force: true });
    }
  }
  throw new Error(`no free test subnet in ${SUBNET_CLAIMS}`);
}

function releaseSubnet(n: number): void {
  rmSync(path.join(SUBNET_CLAIMS, String(n)), { recursive: true, force: true });
}

export class TestNetwork {
  readonly id = randomBytes(3).toString('hex');
  /**
   * Third octet of this run's subnets: 198.18.N.0/24 (access) and 198.19.N.0/24 (servers), held
   * exclusively while the network lives (test files run in parallel).
   */
  readonly n = claimSubnet();
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
  /** Each host's veth end in the router namespace, by host (see moveHome). */
  private readonly uplinks = new Map<string, string>();
  private nextHome = 10;
  private homeBridge = false;
  /** The path faults in force, by id: nftables rules without their family (see applyFaults). */
  private readonly faults = new Map<number, string[]>();
  private nextFault = 0;
  private faultTables = false;
  /** /etc/netns/<ns> directories this network made (see setEtcFile), removed by destroy(). */
  private readonly etcDirs: string[] = [];
  private madeNetnsEtc = false;

  get accessGateway(): string {
    return `198.18.${this.n}.1`;
  }

  get serverSubnet(): string {
    return `198.19.${this.n}.0/24`;
  }

  /** The router's IPv6 address on the access bridge (2001:db8:N::/64, a documentation prefix). */
  get accessGateway6(): string {
    return `2001:db8:${this.n}::1`;
  }

  get accessSubnet6(): string {
    return `2001:db8:${this.n}::/64`;
  }

  /** The router's IPv6 address on the servers bridge. */
  get serverGateway6(): string {
    return `2001:db8:${this.n}:1::1`;
  }

  get serverSubnet6(): string {
    return `2001:db8:${this.n}:1::/64`;
  }

  /**
   * The home network (TEST-NET-3, 203.0.113.0/24): a third bridge on the router, made by the first
   * addHomeHost/moveHome, for the users behind a border. Traffic between it and the rest of the
   * test internet is routed, so a censor on the router (e2e/netns/censor/) sees all of it. The
   * same prefix in every run: it exists only inside this network's namespaces (the host machine
   * has no route to it), and its hosts have no IPv6 beyond link-local.
   */
  get homeSubnet(): string {
    return '203.0.113.0/24';
  }

  get homeGateway(): string {
    return '203.0.113.1';
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
      const sysctl = (...kv: string[]) =>
        sh('ip', ['netns', 'exec', net.inet, 'sysctl', '-qw', ...kv]);
      // Without duplicate address detection the router's link-local addresses, which are the
      // source of its neighbour solicitations, are usable at once: with it, the first IPv6
      // packet forwarded to a new host waits a second for them.
      sysctl('net.ipv6.conf.all.accept_dad=0', 'net.ipv6.conf.default.accept_dad=0');
      // A bridge without a MAC of its own takes its lowest port's, so adding a host could
      // change the router's address under the hosts' ARP caches: fixed ones keep it put.
      ex('link', 'add', 'access', 'address', '02:00:00:00:00:01', 'type', 'bridge');
      ex('link', 'add', 'servers', 'address', '02:00:00:00:00:02', 'type', 'bridge');
      ex('address', 'add', `${net.accessGateway}/24`, 'dev', 'access');
      ex('address', 'add', `198.19.${net.n}.1/24`, 'dev', 'servers');
      ex('address', 'add', `10.120.${net.n}.1/24`, 'dev', 'servers');
      // nodad: the addresses are usable at once, not after a second of duplicate detection.
      ex('address', 'add', `${net.accessGateway6}/64`, 'dev', 'access', 'nodad');
      ex('address', 'add', `${net.serverGateway6}/64`, 'dev', 'servers', 'nodad');
      ex('link', 'set', 'access', 'up');
      ex('link', 'set', 'servers', 'up');
      sysctl('net.ipv4.ip_forward=1', 'net.ipv6.conf.all.forwarding=1');
      // Where br_netfilter is loaded, bridged IP would also pass the router's inet hooks; off,
      // the access bridge behaves the same on every machine (see applyFaults). Best effort: an
      // old kernel has these settings in the first namespace only.
      spawnSync('ip', [
        'netns',
        'exec',
        net.inet,
        'sysctl',
        '-qw',
        'net.bridge.bridge-nf-call-iptables=0',
        'net.bridge.bridge-nf-call-ip6tables=0',
      ]);
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
  addAccessHost(name: string, opts: HostOptions = {}): Host {
    const k = this.nextAccess++;
    return this.addHost(
      name,
      'access',
      `198.18.${this.n}.${k}`,
      this.accessGateway,
      opts.ipv6 ? `2001:db8:${this.n}::${k}` : undefined,
    );
  }

  /** A host on the server subnet behind the router (echo and other services). */
  addServerHost(name: string, opts: HostOptions = {}): Host {
    const k = this.nextServer++;
    return this.addHost(
      name,
      'servers',
      `198.19.${this.n}.${k}`,
      `198.19.${this.n}.1`,
      opts.ipv6 ? `2001:db8:${this.n}:1::${k}` : undefined,
    );
  }

  /** A host on the home network behind the router (see homeSubnet). */
  addHomeHost(name: string): Host {
    this.ensureHomeBridge();
    return this.addHost(name, 'home', `203.0.113.${this.nextHome++}`, this.homeGateway);
  }

  /**
   * Moves a host to the home network (see homeSubnet), as a laptop taken home: its link goes to
   * the home bridge, it gets a home address in place of its old ones (IPv6 too) and the home
   * gateway as its default route. Returns the new address (also in its Host). For kits that make
   * their hosts on the access subnet (NetcliHost.start's prepare, FerryPair's client).
   */
  moveHome(name: string): string {
    const host = this.host(name);
    this.ensureHomeBridge();
    sh('ip', ['-n', this.inet, 'link', 'set', this.uplinks.get(name)!, 'master', 'home']);
    const address = `203.0.113.${this.nextHome++}`;
    sh('ip', ['-n', host.ns, 'address', 'flush', 'dev', 'eth0', 'scope', 'global']);
    sh('ip', ['-n', host.ns, 'address', 'add', `${address}/24`, 'dev', 'eth0']);
    sh('ip', [
      '-n',
      host.ns,
      'route',
      'replace',
      'default',
      'via',
      this.homeGateway,
      'dev',
      'eth0',
    ]);
    host.address = address;
    host.address6 = undefined;
    this.gateways.set(name, this.homeGateway);
    return address;
  }

  private ensureHomeBridge(): void {
    if (this.homeBridge) return;
    const ex = (...a: string[]) => sh('ip', ['-n', this.inet, ...a]);
    ex('link', 'add', 'home', 'address', '02:00:00:00:00:03', 'type', 'bridge');
    ex('address', 'add', `${this.homeGateway}/24`, 'dev', 'home');
    ex('link', 'set', 'home', 'up');
    this.homeBridge = true;
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
    if (gateway === this.homeGateway) {
      const home = `203.0.113.${this.nextHome++}`;
      sh('ip', ['-n', host.ns, 'address', 'flush', 'dev', 'eth0', 'scope', 'global']);
      sh('ip', ['-n', host.ns, 'address', 'add', `${home}/24`, 'dev', 'eth0']);
      sh('ip', ['-n', host.ns, 'route', 'replace', 'default', 'via', gateway, 'dev', 'eth0']);
      host.address = home;
      return home;
    }
    const onAccess = gateway === this.accessGateway;
    const k = onAccess
      ? this.nextAccess++
      : gateway === `198.19.${this.n}.1`
        ? this.nextServer++
        : this.nextVpc++;
    const address = onAccess
      ? `198.18.${this.n}.${k}`
      : gateway === `198.19.${this.n}.1`
        ? `198.19.${this.n}.${k}`
        : `10.120.${this.n}.${k}`;
    sh('ip', ['-n', host.ns, 'address', 'flush', 'dev', 'eth0']);
    sh('ip', ['-n', host.ns, 'address', 'add', `${address}/24`, 'dev', 'eth0']);
    // On eth0, as a DHCP client puts it: without a device the kernel finds the gateway by the
    // policy rules in force, and a full tunnel's would find it through the tunnel.
    sh('ip', ['-n', host.ns, 'route', 'replace', 'default', 'via', gateway, 'dev', 'eth0']);
    host.address = address;
    if (host.address6 !== undefined) {
      // The flush took the IPv6 address (and with it the IPv6 default route) too.
      host.address6 = onAccess ? `2001:db8:${this.n}::${k}` : `2001:db8:${this.n}:1::${k}`;
      this.addAddress6(
        host.ns,
        host.address6,
        onAccess ? this.accessGateway6 : this.serverGateway6,
      );
    }
    return address;
  }

  /**
   * Gives a host's eth0 address a wider prefix (`prefixLength`, e.g. 15), as a rogue DHCP
   * server's lease would (TunnelCrack's LocalNet), keeping its address and default route, and
   * has the router answer ARP for every address of that prefix it routes elsewhere (proxy ARP),
   * as the rogue network's gateway would: the host then reaches them "on the link". Returns the
   * prefix.
   */
  widenLease(name: string, prefixLength: number): string {
    const host = this.host(name);
    const gateway = this.gateways.get(name)!;
    const bridge = gateway === this.accessGateway ? 'access' : 'servers';
    sh('ip', ['-n', host.ns, '-4', 'address', 'flush', 'dev', 'eth0']);
    sh('ip', ['-n', host.ns, 'address', 'add', `${host.address}/${prefixLength}`, 'dev', 'eth0']);
    sh('ip', ['-n', host.ns, 'route', 'replace', 'default', 'via', gateway, 'dev', 'eth0']);
    sh('ip', ['netns', 'exec', this.inet, 'sysctl', '-qw', `net.ipv4.conf.${bridge}.proxy_arp=1`]);
    const route = JSON.parse(
      sh('ip', ['-n', host.ns, '-j', '-4', 'route', 'show', 'dev', 'eth0', 'scope', 'link']),
    ) as { dst: string }[];
    return route[0]!.dst;
  }

  /**
   * Drops every frame and packet to or from a host on the router, on the access bridge and on
   * the routed path alike: a machine that dies silently (no ICMP, no RST). The host's addresses
   * are taken as they are now (a later renumber is not followed). Returns the undo.
   */
  blackhole(host: string): () => void {
    const h = this.host(host);
    const rules: string[] = [];
    for (const [ip, a] of this.addressesOf(h))
      rules.push(
        `${ip} saddr ${a} drop comment "blackhole ${host}"`,
        `${ip} daddr ${a} drop comment "blackhole ${host}"`,
      );
    return this.addFault(rules);
  }

  /** Drops UDP between two hosts, both ways (TCP and ICMP still pass). Returns the undo. */
  blockUdp(a: string, b: string): () => void {
    return this.addFault(
      this.pairRules(a, b, `meta l4proto udp drop comment "udp ${a}-${b}"`, true),
    );
  }

  /**
   * An MTU black hole between two hosts: IPv4 packets longer than `maxIpLength` bytes (IP header
   * included) are dropped silently, with no ICMP "fragmentation needed" to tell the sender, as
   * on a path whose MTU discovery is broken. Smaller packets pass. Returns the undo.
   */
  mtuBlackHole(a: string, b: string, maxIpLength: number): () => void {
    if (!Number.isInteger(maxIpLength) || maxIpLength < 20 || maxIpLength > 65535)
      throw new Error(`mtuBlackHole: ${maxIpLength} is not an IPv4 packet length`);
    return this.addFault(
      this.pairRules(a, b, `ip length > ${maxIpLength} drop comment "mtu ${a}-${b}"`, false),
    );
  }

  /** Lifts every path fault. */
  restore(): void {
    this.faults.clear();
    this.applyFaults();
  }

  /**
   * Writes a file that a host's processes see at /etc/<name> (`ip netns exec` bind-mounts
   * /etc/netns/<ns>/<name> over it, e.g. resolv.conf); the host machine's own /etc/<name> is not
   * touched. destroy() removes the directory.
   */
  setEtcFile(host: string, name: string, content: string): string {
    if (name.includes('/') || name.startsWith('.')) throw new Error(`bad /etc file name ${name}`);
    const dir = path.join(NETNS_ETC, this.host(host).ns);
    if (!existsSync(NETNS_ETC)) this.madeNetnsEtc = true;
    mkdirSync(dir, { recursive: true });
    if (!this.etcDirs.includes(dir)) this.etcDirs.push(dir);
    const file = path.join(dir, name);
    writeFileSync(file, content);
    return file;
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
    opts: { maxSeconds?: number } = {},
  ): Promise<() => Promise<void>> {
    // With maxSeconds the capture ends on its own even if this process dies (timeout passes
    // the SIGINT of the stop function on to tcpdump).
    const bound = opts.maxSeconds ? ['timeout', '-s', 'INT', String(opts.maxSeconds)] : [];
    const tcpdump = this.spawn(host, `tcpdump-${dev}`, [
      ...bound,
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

  /** Runs a command inside a host's namespace, whatever its exit status: the status and output. */
  execResult(
    host: string,
    argv: readonly string[],
  ): { status: number | null; stdout: string; stderr: string } {
    const r = spawnSync('ip', ['netns', 'exec', this.host(host).ns, ...argv], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    return { status: r.status, stdout: r.stdout, stderr: r.stderr };
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
    if (this.faultTables)
      for (const family of ['bridge', 'inet'])
        spawnSync('ip', [
          'netns',
          'exec',
          this.inet,
          'nft',
          'delete',
          'table',
          family,
          FAULTS_TABLE,
        ]);
    for (const ns of [...this.namespaces].reverse()) {
      // Processes left in a namespace keep it alive: end them first.
      const pids = spawnSync('ip', ['netns', 'pids', ns], { encoding: 'utf8' })
        .stdout.split(/\s+/)
        .filter(Boolean);
      for (const pid of pids) spawnSync('kill', ['-9', pid]);
      spawnSync('ip', ['netns', 'del', ns]);
    }
    spawnSync('ip', ['link', 'del', this.hostLink]);
    for (const dir of this.etcDirs) rmSync(dir, { recursive: true, force: true });
    if (this.madeNetnsEtc) {
      try {
        // Only when empty: another run may be using it.
        rmdirSync(NETNS_ETC);
      } catch {
        // in use
      }
    }
    // A wireguard-go killed with its namespace leaves its UAPI socket in the shared /run.
    for (const f of readdirSafe(WIREGUARD_RUN)) {
      if (f.startsWith(`fy${this.id}`)) rmSync(path.join(WIREGUARD_RUN, f), { force: true });
    }
    rmSync(this.dir, { recursive: true, force: true });
    releaseSubnet(this.n);
  }

  private addNamespace(ns: string): void {
    sh('ip', ['netns', 'add', ns]);
    this.namespaces.push(ns);
    sh('ip', ['-n', ns, 'link', 'set', 'lo', 'up']);
  }

  /** The host's addresses with their nftables protocol (ip, ip6). */
  private addressesOf(h: Host): ['ip' | 'ip6', string][] {
    const out: ['ip' | 'ip6', string][] = [['ip', h.address]];
    if (h.address6 !== undefined) out.push(['ip6', h.address6]);
    return out;
  }

  /** Rules matching traffic between two hosts both ways, each ending in `tail`. */
  private pairRules(a: string, b: string, tail: string, withIpv6: boolean): string[] {
    const [ha, hb] = [this.host(a), this.host(b)];
    const pairs: ['ip' | 'ip6', string, string][] = [['ip', ha.address, hb.address]];
    if (withIpv6 && ha.address6 !== undefined && hb.address6 !== undefined)
      pairs.push(['ip6', ha.address6, hb.address6]);
    const rules: string[] = [];
    for (const [ip, x, y] of pairs)
      rules.push(
        `${ip} saddr ${x} ${ip} daddr ${y} ${tail}`,
        `${ip} saddr ${y} ${ip} daddr ${x} ${tail}`,
      );
    return rules;
  }

  private addFault(rules: string[]): () => void {
    const id = this.nextFault++;
    this.faults.set(id, rules);
    this.applyFaults();
    return () => {
      if (this.faults.delete(id)) this.applyFaults();
    };
  }

  /**
   * Rewrites the router's fault tables to the faults in force, in one nft transaction. Hosts on
   * the access bridge reach each other bridged, which only a `bridge` table sees; traffic between
   * the access and the servers side is routed, which only an `inet` forward chain sees. Each rule
   * goes into both.
   */
  private applyFaults(): void {
    const script: string[] = [];
    for (const family of ['bridge', 'inet']) {
      const chain = `${family} ${FAULTS_TABLE} forward`;
      script.push(
        `add table ${family} ${FAULTS_TABLE}`,
        `add chain ${chain} { type filter hook forward priority 0; policy accept; }`,
        `flush chain ${chain}`,
      );
      for (const rules of this.faults.values())
        for (const rule of rules) script.push(`add rule ${chain} ${rule}`);
    }
    sh('ip', ['netns', 'exec', this.inet, 'nft', '-f', '-'], script.join('\n') + '\n');
    this.faultTables = true;
  }

  /** A static IPv6 address (usable at once: nodad) and the IPv6 default route. */
  private addAddress6(ns: string, address6: string, gateway6: string): void {
    sh('ip', ['-n', ns, '-6', 'address', 'add', `${address6}/64`, 'dev', 'eth0', 'nodad']);
    sh('ip', ['-n', ns, '-6', 'route', 'replace', 'default', 'via', gateway6, 'dev', 'eth0']);
  }

  private addHost(
    name: string,
    bridge: 'access' | 'servers' | 'home',
    address: string,
    gateway: string,
    address6?: string,
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
    this.uplinks.set(name, outside);
    sh('ip', ['-n', ns, 'address', 'add', `${address}/24`, 'dev', 'eth0']);
    sh('ip', ['-n', ns, 'link', 'set', 'eth0', 'up']);
    sh('ip', ['-n', ns, 'route', 'add', 'default', 'via', gateway]);
    const host: Host = { name, ns, address };
    if (address6 !== undefined) {
      this.addAddress6(
        ns,
        address6,
        bridge === 'access' ? this.accessGateway6 : this.serverGateway6,
      );
      host.address6 = address6;
    }
    this.hosts.set(name, host);
    this.gateways.set(name, gateway);
    return host;
  }
}

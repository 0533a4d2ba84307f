// The Ferry service on a TestNetwork: a control plane, relays by region, an IP-echo service
// and WireGuard clients configured from nothing but the API's connect answer.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createSecureContext, rootCertificates } from 'node:tls';
import { fileURLToPath } from 'node:url';
import { Agent, fetch as undiciFetch, type RequestInit as UndiciRequestInit } from 'undici';
import type { z } from 'zod';
import {
  ApiError,
  GATEWAY_IPV4,
  createControlClient,
  type ConnectRequest,
  type ConnectResponse,
  type ControlClient,
  type FetchLike,
} from '../../contracts/index.js';
import { generateKeyPair } from '../../relay/keys.js';
import { TestNetwork, requireTools, sh, type ManagedProcess } from './test-network.js';
import { startMockPlatform, type MockPlatform, type MockPlatformOptions } from './mock-platform.js';

/** The repository root, from e2e/netns (tests) or dist/e2e/netns (the built demo and benchmarks). */
function repoRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'package.json'))) {
    const up = path.dirname(dir);
    if (up === dir) throw new Error('repository root not found');
    dir = up;
  }
  return dir;
}

const ROOT = repoRoot();
const ADMIN_TOKEN = 'testbed-admin-token-0123456789';
const CONTROL_PORT = 8080;
const ECHO_PORT = 8000;
const WG_PORT = 51820;
const FERRY_PORT = 51900;

/** Answers every request with the address it came from: the "what is my IP" of the test internet. */
const ECHO_SERVER = `require('node:http').createServer((q, s) => s.end(q.socket.remoteAddress.replace(/^::ffff:/, ''))).listen(${ECHO_PORT}, '0.0.0.0')`;

/** A relay's TLS transport: its port, and the cover site strangers get (e.g. censor/cover-site.ts's). */
export interface RelayTls {
  port: number;
  cover: { address: string; port: number; serverName: string };
}

export interface RelayHandle {
  host: string;
  region: string;
  nodeId: string;
  nodeToken: string;
  address: string;
  interfaceName: string;
  ferry: boolean;
  /** The relay's probe port when the test chose one (otherwise the relay's default). */
  probePort?: number | undefined;
  /** Its resolver's upstream (`--dns-upstream`) when the test chose one. */
  dnsUpstream?: string | undefined;
  /** More options of ferry-relay (e.g. --platforms-file), at each start. */
  extraArgs?: readonly string[] | undefined;
  /** Its TLS transport's port and cover site (`--tls-port`, `--cover-site`), when asked. */
  tls?: RelayTls | undefined;
  /** The networks its devices may reach on purpose (`--allow-network`, see addRelay). */
  allowNetworks: readonly string[];
  process: ManagedProcess;
}

export interface Device {
  token: string;
  id: string;
  privateKey: string;
  publicKey: string;
  ferryPrivateKey: string;
  ipv4: string;
}

export interface Client {
  host: string;
  interfaceName: string;
  device: Device;
  process: ManagedProcess;
  /** The node the client's single WireGuard peer points at. */
  nodeKey: string | undefined;
}

export interface TestbedOptions {
  /** How long a node counts as healthy after a heartbeat (the control plane's default is 30). */
  nodeHealthySeconds: number;
  /** The relays' heartbeat interval (the control plane suggests 10). */
  relayHeartbeatSeconds: number;
  /** How long a tunnel without traffic still counts as up. */
  relayPeerIdleSeconds: number;
  /**
   * Where the control plane runs: on the access subnet beside the clients (reached directly), or
   * behind the internet router with the servers, as a real one is: a client's full tunnel then
   * carries its calls, and its exit-address check sees the relay.
   */
  controlPlaneOn: 'access' | 'servers';
  /** Seconds between the relays' own latency rounds through the tunnels (the relay's default: 5). */
  relayTunnelLatencySeconds?: number;
  /**
   * The control plane serves https with a certificate of the test's own CA (`caFile`), as a real
   * one does; false: plain http, for the tests of what clients do with it.
   */
  controlPlaneTls: boolean;
}

/** A connect request as a client writes it (any letter case). */
export type ConnectBody = z.input<typeof ConnectRequest>;

/** The ApiError a call is refused with; throws when the call succeeds or fails otherwise. */
export async function refusal(call: Promise<unknown>): Promise<ApiError> {
  const outcome = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (outcome instanceof ApiError && outcome.status !== undefined) return outcome;
  if (outcome === undefined) throw new Error('the call was expected to be refused, and succeeded');
  throw outcome;
}

/**
 * fetch with a connection per call, trusting the test CA (`ca`, PEM) beside the system's roots.
 * Tests block the event loop in spawnSync for seconds at a time: a kept-alive socket that the
 * server closed meanwhile would still look usable, take the next request and fail it with
 * "other side closed".
 */
function freshConnectionFetch(ca: string | undefined): FetchLike {
  const oneShot = new Agent({
    pipelining: 0,
    ...(ca === undefined
      ? {}
      : { connect: { secureContext: createSecureContext({ ca: [...rootCertificates, ca] }) } }),
  });
  return (url, init) =>
    undiciFetch(url, {
      ...(init as UndiciRequestInit),
      dispatcher: oneShot,
    }) as unknown as Promise<Response>;
}

/** Fast defaults: status and health follow events within seconds in tests. */
const TEST_DEFAULTS: TestbedOptions = {
  nodeHealthySeconds: 5,
  relayHeartbeatSeconds: 1,
  relayPeerIdleSeconds: 3,
  controlPlaneOn: 'access',
  controlPlaneTls: true,
};

export class Testbed {
  readonly net: TestNetwork;
  readonly relays = new Map<string, RelayHandle>();
  private controlProcess?: ManagedProcess;
  /** The test CA's certificate and the control plane's certificate and key (with TLS). */
  private tls: { caFile: string; cert: string; key: string } | undefined;
  /** fetch for the control plane (the test CA trusted), a connection per call. */
  controlFetch: FetchLike = freshConnectionFetch(undefined);
  /** More options of ferry-server, taken at its next start (e.g. --dns-leak-zone). */
  controlPlaneArgs: readonly string[] = [];
  private nextIf = 0;

  private constructor(
    net: TestNetwork,
    readonly options: TestbedOptions,
  ) {
    this.net = net;
  }

  static async start(options: Partial<TestbedOptions> = {}): Promise<Testbed> {
    requireTools(['ip', 'nft', 'wireguard-go', 'wg', 'curl', 'sysctl']);
    const bed = new Testbed(TestNetwork.create(), { ...TEST_DEFAULTS, ...options });
    try {
      const ctrl =
        bed.options.controlPlaneOn === 'servers'
          ? bed.net.addServerHost('ctrl')
          : bed.net.addAccessHost('ctrl');
      if (bed.options.controlPlaneTls) bed.makeCertificates(ctrl.address);
      bed.net.addServerHost('echo');
      bed.net.spawn('echo', 'echo', [process.execPath, '-e', ECHO_SERVER]);
      await bed.startControlPlane();
      await bed.net.waitFor('the echo service', 10_000, () => bed.echoFrom(undefined));
    } catch (e) {
      await bed.stop();
      throw e;
    }
    return bed;
  }

  get controlUrl(): string {
    const scheme = this.tls ? 'https' : 'http';
    return `${scheme}://${this.net.host('ctrl').address}:${CONTROL_PORT}`;
  }

  /**
   * The test CA's certificate (PEM file) that signs the control plane's: what `netcli init
   * --ca-file` and `ferry-relay --ca-file` take. Undefined without TLS.
   */
  get caFile(): string | undefined {
    return this.tls?.caFile;
  }

  /** `--ca-file <the test CA>` where the control plane has TLS: for netcli init and relays. */
  get caArgs(): string[] {
    return this.tls ? ['--ca-file', this.tls.caFile] : [];
  }

  /** What `netcli init` takes to reach this control plane: `--endpoint <url><path>` and its CA. */
  endpointArgs(path = ''): string[] {
    return ['--endpoint', `${this.controlUrl}${path}`, ...this.caArgs];
  }

  /** A CA of the test's own and a certificate for the control plane's address (OpenSSL). */
  private makeCertificates(address: string): void {
    const dir = path.join(this.net.dir, 'tls');
    sh('bash', [path.join(ROOT, 'scripts/setup/tls-cert.sh'), dir, address]);
    this.tls = {
      caFile: path.join(dir, 'ca.pem'),
      cert: path.join(dir, 'server.pem'),
      key: path.join(dir, 'server.key'),
    };
    this.controlFetch = freshConnectionFetch(readFileSync(this.tls.caFile, 'utf8'));
  }

  get echoUrl(): string {
    return `http://${this.net.host('echo').address}:${ECHO_PORT}/`;
  }

  /**
   * An echo service on the subnet inside the tunnel block (TestNetwork.vpcSubnet), reachable
   * from the relays' uplink; returns its URL.
   */
  async startVpcEcho(): Promise<string> {
    return (await this.startEcho('vpc-echo', 'vpc')).url;
  }

  /**
   * One more echo service on a host of its own (`servers`: behind the internet router, as an
   * office's server is; `vpc`: inside the tunnel block), answering with the requester's address.
   */
  async startEcho(
    name: string,
    where: 'servers' | 'vpc' = 'servers',
  ): Promise<{ address: string; url: string }> {
    const h = where === 'vpc' ? this.net.addVpcHost(name) : this.net.addServerHost(name);
    this.net.spawn(name, name, [process.execPath, '-e', ECHO_SERVER]);
    const url = `http://${h.address}:${ECHO_PORT}/`;
    await this.net.waitFor(`the ${name} echo service`, 10_000, () =>
      this.echoFrom(undefined, 3, url),
    );
    return { address: h.address, url };
  }

  /** The server subnets, which a client routes through its tunnel (its "cross-border" traffic). */
  private get tunneledSubnets(): string[] {
    return [this.net.serverSubnet, this.net.vpcSubnet];
  }

  async startControlPlane(): Promise<void> {
    this.controlProcess = this.net.spawn(
      'ctrl',
      'control-plane',
      [
        process.execPath,
        path.join(ROOT, 'bin/ferry-server'),
        '--host',
        this.net.host('ctrl').address,
        '--port',
        String(CONTROL_PORT),
        '--data-dir',
        path.join(this.net.dir, 'control'),
        // Every test device signs up from the host's one address.
        '--rate-limit-signup',
        '10000',
        '--node-healthy-seconds',
        String(this.options.nodeHealthySeconds),
        ...(this.tls ? ['--tls-cert', this.tls.cert, '--tls-key', this.tls.key] : []),
        ...this.controlPlaneArgs,
      ],
      { FERRY_ADMIN_TOKEN: ADMIN_TOKEN },
    );
    const control = this.controlProcess;
    try {
      await this.net.waitFor('the control plane', 15_000, async () =>
        (await this.control().health({ timeoutMs: 2_000 })) ? true : undefined,
      );
    } catch (e) {
      throw new Error(`${(e as Error).message}\ncontrol plane output:\n${control.output()}`);
    }
    // After an outage the relays count as healthy again only with their next heartbeat.
    await this.relaysHealthy();
  }

  /**
   * Waits until every running relay counts as healthy with the control plane: after an outage
   * (a blackholed relay, a control plane restart) a node is a candidate again only with its
   * next heartbeat.
   */
  async relaysHealthy(): Promise<void> {
    for (const r of this.relays.values())
      if (r.process.child.exitCode === null && r.process.child.signalCode === null)
        await this.waitHealthy(r);
  }

  async stopControlPlane(): Promise<void> {
    await this.controlProcess?.stop();
    this.controlProcess = undefined;
  }

  /** The control plane as the holder of `token` (none: the public routes only). */
  control(token?: string): ControlClient {
    return createControlClient({
      baseUrl: this.controlUrl,
      fetch: this.controlFetch,
      ...(token === undefined ? {} : { token: () => token }),
    });
  }

  /** The control plane as its admin. */
  get admin(): ControlClient {
    return this.control(ADMIN_TOKEN);
  }

  /** Adds a node in `region` and runs a relay for it on a new host (with a Ferry server if asked). */
  async addRelay(
    host: string,
    region: string,
    opts: {
      ferry?: boolean;
      probePort?: number;
      dnsUpstream?: string;
      extraArgs?: readonly string[];
      /** A TLS transport port with its cover site (needs ferry). */
      tls?: RelayTls;
      /**
       * Private networks the relay's devices may reach (`--allow-network`). By default the
       * test network's VPC (vpcSubnet), as its cloud's operator would allow it; [] for none.
       */
      allowNetworks?: readonly string[];
    } = {},
  ): Promise<RelayHandle> {
    const h = this.net.addAccessHost(host);
    const node = await this.admin.adminCreateNode({
      body: {
        region,
        endpoint_host: h.address,
        wireguard_port: WG_PORT,
        ...(opts.ferry ? { ferry_port: FERRY_PORT } : {}),
        capacity_mbps: 10_000,
      },
    });
    const relay: RelayHandle = {
      host,
      region,
      nodeId: node.id,
      nodeToken: node.token,
      address: h.address,
      interfaceName: `fy${this.net.id}r${this.relays.size}`,
      ferry: opts.ferry ?? false,
      probePort: opts.probePort,
      dnsUpstream: opts.dnsUpstream,
      extraArgs: opts.extraArgs,
      tls: opts.tls,
      allowNetworks: opts.allowNetworks ?? [this.net.vpcSubnet],
      process: undefined as unknown as ManagedProcess,
    };
    this.relays.set(host, relay);
    await this.startRelay(host);
    return relay;
  }

  async startRelay(host: string): Promise<void> {
    const r = this.relays.get(host)!;
    r.process = this.net.spawn(
      host,
      `relay-${host}`,
      [
        process.execPath,
        path.join(ROOT, 'bin/ferry-relay'),
        '--control-url',
        this.controlUrl,
        ...(this.tls ? this.caArgs : ['--insecure']),
        '--wireguard-port',
        String(WG_PORT),
        '--uplink',
        'eth0',
        '--state-dir',
        path.join(this.net.dir, `relay-${host}`),
        '--interface',
        r.interfaceName,
        '--heartbeat-seconds',
        String(this.options.relayHeartbeatSeconds),
        '--peer-idle-seconds',
        String(this.options.relayPeerIdleSeconds),
        ...(r.ferry ? ['--ferry-port', String(FERRY_PORT)] : []),
        ...(r.probePort === undefined ? [] : ['--probe-port', String(r.probePort)]),
        ...(r.dnsUpstream === undefined ? [] : ['--dns-upstream', r.dnsUpstream]),
        ...(r.tls === undefined
          ? []
          : [
              '--tls-port',
              String(r.tls.port),
              '--cover-site',
              `${r.tls.cover.address}:${r.tls.cover.port}`,
              '--tls-server-name',
              r.tls.cover.serverName,
            ]),
        ...r.allowNetworks.flatMap((cidr) => ['--allow-network', cidr]),
        ...(this.options.relayTunnelLatencySeconds === undefined
          ? []
          : ['--tunnel-latency-seconds', String(this.options.relayTunnelLatencySeconds)]),
        ...(r.extraArgs ?? []),
      ],
      { FERRY_NODE_TOKEN: r.nodeToken },
    );
    await this.waitHealthy(r);
  }

  private async waitHealthy(r: RelayHandle): Promise<void> {
    try {
      await this.net.waitFor(`relay ${r.host} to be healthy`, 15_000, async () => {
        const nodes = await this.adminNodes(r.region);
        return nodes.find((n) => n.id === r.nodeId && n.healthy) ? true : undefined;
      });
    } catch (e) {
      throw new Error(`${(e as Error).message}\nrelay output:\n${r.process.output()}`);
    }
  }

  private async adminNodes(region: string) {
    // Any device token may list nodes; the testbed keeps one for that.
    this.observer ??= await this.newDevice(await this.newAccount('premium'));
    return (await this.control(this.observer.token).listNodes({ query: { region } })).nodes;
  }

  private observer?: Device;
  private ledgerNode?: { token: string };

  /**
   * Reports `bytes` carried for a device by another node, through the node API, as a node in a
   * region the free plan does not reach would: this month's usage without hours of traffic. The
   * node reports itself fully loaded, so it is never offered for a session.
   */
  async reportUsageElsewhere(deviceId: string, bytes: number): Promise<void> {
    if (!this.ledgerNode) {
      const node = await this.admin.adminCreateNode({
        body: {
          region: 'eu-west',
          endpoint_host: `198.18.${this.net.n}.250`,
          wireguard_port: WG_PORT,
          capacity_mbps: 1,
        },
      });
      await this.control(node.token).nodeRegister({
        body: { wireguard_public_key: generateKeyPair().publicKey },
      });
      this.ledgerNode = { token: node.token };
    }
    await this.control(this.ledgerNode.token).nodeHeartbeat({
      body: { load: 10, rx_bps: 0, tx_bps: 0, usage: [{ device_id: deviceId, bytes }] },
    });
  }

  async newAccount(plan: 'basic' | 'premium' = 'basic'): Promise<string> {
    const { account_number } = await this.control().createAccount({ body: {} });
    if (plan !== 'basic')
      await this.admin.adminSetPlan({ params: { number: account_number }, body: { plan } });
    return account_number;
  }

  async newDevice(account: string, name = 'device'): Promise<Device> {
    const wg = generateKeyPair();
    const ferry = generateKeyPair();
    const r = await this.control().createSession({
      body: {
        account_number: account,
        device: {
          name,
          kind: 'laptop',
          wireguard_public_key: wg.publicKey,
          ferry_public_key: ferry.publicKey,
        },
      },
    });
    return {
      token: r.token,
      id: r.device.id,
      privateKey: wg.privateKey,
      publicKey: wg.publicKey,
      ferryPrivateKey: ferry.privateKey,
      ipv4: r.device.tunnel_ipv4,
    };
  }

  /**
   * A client host with a wireguard-go interface and no peer yet; `home`: on the home network
   * behind the router (TestNetwork.homeSubnet), where a censor can watch it.
   */
  async addClient(host: string, device: Device, opts: { home?: boolean } = {}): Promise<Client> {
    if (opts.home) this.net.addHomeHost(host);
    else this.net.addAccessHost(host);
    const interfaceName = `fy${this.net.id}c${this.nextIf++}`;
    const process_ = this.net.spawn(host, `wireguard-${host}`, [
      'wireguard-go',
      '-f',
      interfaceName,
    ]);
    try {
      await this.net.waitFor(`${interfaceName} to come up`, 20_000, () => {
        if (process_.child.exitCode !== null) throw new Error('wireguard-go exited');
        try {
          this.net.exec(host, ['wg', 'show', interfaceName]);
          return true;
        } catch {
          return undefined;
        }
      });
    } catch (e) {
      throw new Error(`${(e as Error).message}
wireguard-go output:
${process_.output()}`);
    }
    const keyFile = path.join(this.net.dir, `${interfaceName}.key`);
    writeFileSync(keyFile, `${device.privateKey}\n`, { mode: 0o600 });
    this.net.exec(host, ['wg', 'set', interfaceName, 'private-key', keyFile]);
    return { host, interfaceName, device, process: process_, nodeKey: undefined };
  }

  /** Gives the client's interface another private key (after a key rotation). */
  setPrivateKey(client: Client, privateKey: string): void {
    const keyFile = path.join(this.net.dir, `${client.interfaceName}.key`);
    writeFileSync(keyFile, `${privateKey}\n`, { mode: 0o600 });
    this.net.exec(client.host, ['wg', 'set', client.interfaceName, 'private-key', keyFile]);
    client.device.privateKey = privateKey;
  }

  /**
   * A client host running `ferry-tun client` configured from nothing but a `POST /connect`
   * answer for protocol ferry (and the device's own Ferry key).
   */
  async addFerryClient(
    host: string,
    device: Device,
    body: ConnectBody,
    /** tls: the node's TLS port, with the name it registered in the hello. */
    transport: 'udp' | 'tcp' | 'tls' = 'udp',
    /**
     * fwmark: a mark on the tunnel's own packets (`ferry-tun --fwmark`), for a policy rule; home:
     * the host is on the home network (see addClient).
     */
    opts: { fwmark?: number; home?: boolean } = {},
  ): Promise<{ answer: ConnectResponse; process: ManagedProcess; interfaceName: string }> {
    if (opts.home) this.net.addHomeHost(host);
    else this.net.addAccessHost(host);
    const answer = await this.control(device.token).connect({
      body: { ...body, protocol: 'ferry' },
    });
    const { ferry_port: ferryPort, ferry_public_key: serverKey } = answer.node;
    if (ferryPort === null || serverKey === null)
      throw new Error(`node ${answer.node.id} answered for Ferry without a Ferry port and key`);
    const { tls_port: tlsPort, tls_server_name: tlsName } = answer.node;
    if (transport === 'tls' && (tlsPort == null || tlsName == null))
      throw new Error(`node ${answer.node.id} answered without a TLS port`);
    const interfaceName = `fy${this.net.id}c${this.nextIf++}`;
    const keyFile = path.join(this.net.dir, `${interfaceName}.ferry.key`);
    writeFileSync(keyFile, `${device.ferryPrivateKey}\n`, { mode: 0o600 });
    const proc = this.net.spawn(host, `ferry-${host}`, [
      process.execPath,
      path.join(ROOT, 'bin/ferry-tun'),
      'client',
      '--interface',
      interfaceName,
      '--address',
      `${answer.tunnel.ipv4}/32`,
      '--server',
      `${answer.node.endpoint_host}:${transport === 'tls' ? tlsPort : ferryPort}`,
      '--server-public-key',
      serverKey,
      '--private-key',
      keyFile,
      '--cipher',
      answer.cipher.toLowerCase(),
      '--transport',
      transport,
      ...(transport === 'tls' ? ['--tls-server-name', tlsName!] : []),
      ...(opts.fwmark === undefined ? [] : ['--fwmark', String(opts.fwmark)]),
    ]);
    // ferry-tun creates the interface first and sets it up a moment later: routes need it up.
    await this.net.waitFor(`${interfaceName} to come up`, 10_000, () => {
      try {
        const flags = /<([^>]*)>/.exec(
          this.net.exec(host, ['ip', '-o', 'link', 'show', interfaceName]),
        );
        return flags?.[1]!.split(',').includes('UP') ? true : undefined;
      } catch {
        return undefined;
      }
    });
    for (const subnet of this.tunneledSubnets)
      this.net.exec(host, ['ip', 'route', 'replace', subnet, 'dev', interfaceName]);
    return { answer, process: proc, interfaceName };
  }

  /**
   * POST /connect as the client's device. A relay's heartbeat that comes late on a loaded machine
   * (the test window is 5 s) can leave a region without a node for a moment: then the call waits
   * until every running relay reports healthy again and tries once more. When it is still refused,
   * the error shows what the control plane and the relays say.
   */
  private async connectCall(client: Client, body: ConnectBody): Promise<ConnectResponse> {
    const call = () => this.control(client.device.token).connect({ body });
    try {
      return await call();
    } catch (e) {
      if (!(e instanceof ApiError) || e.code !== 'no-node-available') throw e;
    }
    await this.relaysHealthy();
    try {
      return await call();
    } catch (e) {
      if (!(e instanceof ApiError) || e.code !== 'no-node-available') throw e;
      const nodes = await Promise.all(
        [...new Set([...this.relays.values()].map((r) => r.region))].map((region) =>
          this.adminNodes(region),
        ),
      );
      throw new Error(
        `${e.message} (again, with every relay healthy)\nnodes: ${JSON.stringify(nodes.flat())}\n${this.diagnostics(client)}`,
      );
    }
  }

  /** POST /connect, then configure the client from the answer only. */
  async connect(client: Client, body: ConnectBody = {}): Promise<ConnectResponse> {
    const answer = await this.connectCall(client, body);
    const ex = (...argv: string[]) => this.net.exec(client.host, argv);
    const peerArgs = client.nodeKey ? ['peer', client.nodeKey, 'remove'] : [];
    ex(
      'wg',
      'set',
      client.interfaceName,
      ...peerArgs,
      'peer',
      answer.node.wireguard_public_key,
      'endpoint',
      `${answer.node.endpoint_host}:${answer.node.wireguard_port}`,
      'allowed-ips',
      answer.tunnel.allowed_ips.join(','),
      // Short keepalives let the status follow the tunnel within seconds in tests.
      'persistent-keepalive',
      '1',
    );
    client.nodeKey = answer.node.wireguard_public_key;
    const addresses = ex('ip', '-4', '-o', 'address', 'show', 'dev', client.interfaceName);
    if (!addresses.includes(`${answer.tunnel.ipv4}/32`))
      ex('ip', 'address', 'add', `${answer.tunnel.ipv4}/32`, 'dev', client.interfaceName);
    ex('ip', 'link', 'set', client.interfaceName, 'mtu', String(answer.tunnel.mtu), 'up');
    // Cross-border traffic (here: the server subnets) goes through the tunnel.
    for (const subnet of this.tunneledSubnets)
      ex('ip', 'route', 'replace', subnet, 'dev', client.interfaceName);
    return answer;
  }

  /**
   * Routes the node's gateway (its resolver, its latency echoes) through the client's tunnel, as
   * a full tunnel would: the testbed's clients route only the test subnets through it.
   */
  routeGateway(client: Client): void {
    this.net.exec(client.host, [
      'ip',
      'route',
      'replace',
      `${GATEWAY_IPV4}/32`,
      'dev',
      client.interfaceName,
    ]);
  }

  /**
   * Configures a client the way wg-quick would from a config file: `wg setconf` with the
   * wg-quick-only keys stripped, then its addresses and MTU.
   */
  applyWgQuick(client: Client, config: string): void {
    const wgQuickOnly =
      /^(Address|DNS|MTU|Table|PreUp|PostUp|PreDown|PostDown|SaveConfig)\s*=\s*(.*)$/i;
    const values = (key: string) =>
      config
        .split('\n')
        .map((l) => wgQuickOnly.exec(l.trim()))
        .filter((m): m is RegExpExecArray => m !== null && m[1]!.toLowerCase() === key)
        .flatMap((m) => m[2]!.split(',').map((v) => v.trim()));
    const stripped = config
      .split('\n')
      .filter((l) => !wgQuickOnly.test(l.trim()))
      .join('\n');
    const file = path.join(this.net.dir, `${client.interfaceName}.conf`);
    writeFileSync(file, stripped, { mode: 0o600 });
    const ex = (...argv: string[]) => this.net.exec(client.host, argv);
    ex('wg', 'setconf', client.interfaceName, file);
    for (const address of values('address'))
      if (!address.includes(':')) ex('ip', 'address', 'add', address, 'dev', client.interfaceName);
    ex('ip', 'link', 'set', client.interfaceName, 'mtu', values('mtu')[0] ?? '1420', 'up');
    for (const subnet of this.tunneledSubnets)
      ex('ip', 'route', 'replace', subnet, 'dev', client.interfaceName);
  }

  /** What the relays said and what both ends of a client's tunnel hold: for failure messages. */
  diagnostics(client?: Client): string {
    const parts: string[] = [];
    for (const r of this.relays.values()) {
      parts.push(
        `--- relay ${r.host} (exit ${r.process.child.exitCode ?? 'running'}):\n${r.process.output().slice(-3000)}`,
      );
      try {
        parts.push(
          `--- wg on ${r.host}:\n${this.net.exec(r.host, ['wg', 'show', r.interfaceName])}`,
        );
        parts.push(`--- nft on ${r.host}:\n${this.net.exec(r.host, ['nft', 'list', 'ruleset'])}`);
      } catch (e) {
        parts.push(`--- wg on ${r.host}: ${(e as Error).message}`);
      }
    }
    if (client) {
      try {
        parts.push(
          `--- wg on ${client.host}:\n${this.net.exec(client.host, ['wg', 'show', client.interfaceName])}`,
        );
      } catch (e) {
        parts.push(`--- wg on ${client.host}: ${(e as Error).message}`);
      }
    }
    return parts.join('\n');
  }

  /** Starts an iperf3 server in the echo host (one per concurrent transfer). */
  startIperfServer(port: number): void {
    this.net.spawn('echo', `iperf3-${port}`, ['iperf3', '-s', '-p', String(port)]);
  }

  /**
   * Runs iperf3 from `host` to the echo host and returns the received bits per second in steady
   * state: the first second (slow start, and a rate limiter's burst, which would dominate a
   * short run) is left out.
   */
  async iperf(host: string, port: number, seconds: number): Promise<number> {
    await this.iperfServerListening(port);
    const proc = this.net.spawn(host, `iperf3-client-${host}-${port}`, [
      'iperf3',
      '-c',
      this.net.host('echo').address,
      '-p',
      String(port),
      '-t',
      String(seconds),
      '-O',
      '1',
      '-J',
      '--connect-timeout',
      '3000',
    ]);
    const code = await proc.exited;
    const out = proc.output();
    if (code !== 0) throw new Error(`iperf3 from ${host} failed (${code}): ${out.slice(-500)}`);
    const report = JSON.parse(out.slice(out.indexOf('{'))) as {
      error?: string;
      end?: { sum_received?: { bits_per_second: number } };
    };
    const rate = report.end?.sum_received?.bits_per_second;
    if (rate === undefined)
      throw new Error(`iperf3 from ${host} measured nothing: ${report.error ?? out.slice(-500)}`);
    return rate;
  }

  /** Waits until the echo host's iperf3 server on `port` accepts connections (it was just spawned). */
  private async iperfServerListening(port: number): Promise<void> {
    await this.net.waitFor(`the iperf3 server on port ${port}`, 10_000, () =>
      this.net.exec('echo', ['ss', '-Hltn', `sport = :${port}`]).trim() ? true : undefined,
    );
  }

  /**
   * Sends iperf3 traffic from `host` to the echo host for about `seconds`, however the transfer
   * ends (the device may be cut on the way): the process is stopped a few seconds after.
   */
  async pushTraffic(host: string, port: number, seconds: number): Promise<void> {
    await this.iperfServerListening(port);
    const proc = this.net.spawn(host, `iperf3-push-${host}-${port}`, [
      'iperf3',
      '-c',
      this.net.host('echo').address,
      '-p',
      String(port),
      '-t',
      String(seconds),
      '--connect-timeout',
      '3000',
    ]);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      proc.exited,
      new Promise((r) => (timer = setTimeout(r, (seconds + 5) * 1000))),
    ]);
    clearTimeout(timer);
    await proc.stop();
  }

  /**
   * The address an echo service (by default the server subnet's) sees for a request from `host`
   * (undefined: from the host namespace).
   */
  echoFrom(host: string | undefined, timeoutSeconds = 3, url = this.echoUrl): string | undefined {
    try {
      const ca = this.tls && url.startsWith('https:') ? ['--cacert', this.tls.caFile] : [];
      const argv = ['curl', '-s', '--max-time', String(timeoutSeconds), ...ca, url];
      return (
        (host === undefined ? sh(argv[0]!, argv.slice(1)) : this.net.exec(host, argv)).trim() ||
        undefined
      );
    } catch {
      return undefined;
    }
  }

  /**
   * A mock streaming platform on a server host that answers by the requester's address (a
   * relay's exit address: a catalogue country, 'proxy' or 'unavailable'); see mock-platform.ts.
   */
  startMockPlatform(name: string, opts: MockPlatformOptions): Promise<MockPlatform> {
    return startMockPlatform(this, name, opts);
  }

  async stop(): Promise<void> {
    await this.net.destroyAsync();
  }
}

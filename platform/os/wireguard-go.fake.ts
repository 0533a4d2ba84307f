// An in-memory wireguard-go for unit tests (the engine's tunnel manager, the relay's shards):
// processes that make their link in the fake OS, UAPI sockets that keep what each `set=1` said
// as wireguard-go does (key, port, mark, peers) and answer `get=1` from it, a node that answers
// handshakes and pings or not, and crashes on demand (a SIGKILL leaves the socket).
// seams.contract.ts's wireguardContract holds it and wireguard-go to the same behaviour.
import { UapiError, uapiKeyToHex } from './uapi-text.js';
import type { CommandRunner } from './command.js';
import type { FakeLinks } from './links.fake.js';
import type { WireguardProcess, WireguardProcessInfo, WireguardSystem } from './wireguard-go.js';

/** A peer as the device holds it (keys in UAPI's hex). */
export interface FakeWireguardPeer {
  endpoint: string | null;
  allowedIps: string[];
  persistentKeepaliveSeconds: number;
}

export interface FakeWireguardDevice {
  pid: number;
  interfaceName: string;
  /** Every `set=1` request it was sent, in order. */
  sets: string[];
  /** The device's own settings as the sets left them (the private key in hex; null: none). */
  privateKey: string | null;
  listenPort: number;
  fwmark: number;
  /** Its peers by public key (hex), in the order they came. */
  peers: Map<string, FakeWireguardPeer>;
  /** Wall-clock ms of the last handshake with the node; null before one. */
  handshakeMs: number | null;
  running: boolean;
  exit: (code: number | null) => void;
}

/** wireguard-go's answer to a line it cannot take: -EINVAL. */
const invalid = (why: string) => new UapiError(-22, `wireguard-go refused the request: ${why}`);
const HEX_KEY = /^[0-9a-f]{64}$/;

function number(v: string, max: number, key: string): number {
  const n = Number(v);
  if (!/^\d+$/.test(v) || n > max) throw invalid(`${key} is not a number`);
  return n;
}

/**
 * Applies a `set=1` request to the device line by line, as wireguard-go does: a line it cannot
 * take stops the request there (what came before it stays made) with -EINVAL.
 */
function applySet(d: FakeWireguardDevice, request: string): void {
  let peer: FakeWireguardPeer | undefined;
  let peerKey = '';
  for (const line of request.split('\n').slice(1)) {
    if (line === '') continue;
    const eq = line.indexOf('=');
    const key = line.slice(0, eq);
    const v = line.slice(eq + 1);
    if (eq <= 0) throw invalid('not a key=value line');
    if (key === 'public_key') {
      if (!HEX_KEY.test(v)) throw invalid('public_key is not a key');
      peerKey = v;
      peer = d.peers.get(v) ?? { endpoint: null, allowedIps: [], persistentKeepaliveSeconds: 0 };
      d.peers.set(v, peer);
    } else if (!peer) {
      if (key === 'private_key' && HEX_KEY.test(v)) d.privateKey = v;
      else if (key === 'listen_port') d.listenPort = number(v, 65535, key);
      else if (key === 'fwmark') d.fwmark = number(v, 0xffffffff, key);
      else if (key === 'replace_peers' && v === 'true') d.peers.clear();
      else throw invalid(`no device key ${key}`);
    } else if (key === 'remove' && v === 'true') {
      d.peers.delete(peerKey);
      peer = undefined;
    } else if (key === 'endpoint') peer.endpoint = v;
    else if (key === 'persistent_keepalive_interval')
      peer.persistentKeepaliveSeconds = number(v, 65535, key);
    else if (key === 'replace_allowed_ips' && v === 'true') peer.allowedIps = [];
    else if (key === 'allowed_ip') {
      if (!peer.allowedIps.includes(v)) peer.allowedIps.push(v);
    } else throw invalid(`no peer key ${key}`);
  }
}

/** The body of a `get=1` answer, as wireguard-go writes it. */
function getAnswer(d: FakeWireguardDevice): string {
  const lines: string[] = [];
  if (d.privateKey !== null) lines.push(`private_key=${d.privateKey}`);
  lines.push(`listen_port=${d.listenPort}`);
  if (d.fwmark !== 0) lines.push(`fwmark=${d.fwmark}`);
  const ms = d.handshakeMs ?? 0;
  for (const [key, p] of d.peers) {
    lines.push(`public_key=${key}`);
    if (p.endpoint !== null) lines.push(`endpoint=${p.endpoint}`);
    lines.push(
      `last_handshake_time_sec=${Math.floor(ms / 1000)}`,
      `last_handshake_time_nsec=${(ms % 1000) * 1e6}`,
      'rx_bytes=0',
      'tx_bytes=0',
      `persistent_keepalive_interval=${p.persistentKeepaliveSeconds}`,
      ...p.allowedIps.map((ip) => `allowed_ip=${ip}`),
    );
  }
  return `${lines.join('\n')}\n`;
}

export class FakeWireguardSystem implements WireguardSystem {
  /** Devices by name, running or ended. */
  readonly devices = new Map<string, FakeWireguardDevice>();
  readonly socketFiles = new Set<string>();
  /** Whether the node completes handshakes and answers pings through the tunnel. */
  nodeAnswers = true;
  /** The round trip pings report. */
  rttMs = 1.5;
  /** When set, the next start() ends at once with this output (a missing binary, a bad name). */
  failNextStart: string | null = null;
  /** Every ping's argv, in order. */
  readonly pings: string[][] = [];
  private nextPid = 4000;

  constructor(
    private readonly links: FakeLinks,
    private readonly now: () => number = Date.now,
  ) {}

  start(interfaceName: string): WireguardProcess {
    let exit!: (code: number | null) => void;
    const exited = new Promise<number | null>((r) => (exit = r));
    const failure = this.failNextStart;
    this.failNextStart = null;
    const device: FakeWireguardDevice = {
      pid: this.nextPid++,
      interfaceName,
      sets: [],
      privateKey: null,
      listenPort: 0,
      fwmark: 0,
      peers: new Map(),
      handshakeMs: null,
      running: failure === null,
      exit: (code) => {
        device.running = false;
        exit(code);
      },
    };
    this.devices.set(interfaceName, device);
    if (failure === null) {
      this.links.addExisting(interfaceName, 'tun', 1420);
      this.socketFiles.add(interfaceName);
    } else {
      queueMicrotask(() => device.exit(1));
    }
    return {
      exited,
      hasExited: () => !device.running,
      output: () => failure ?? '',
      stop: async () => {
        if (device.running) this.end(device, true);
        await exited;
      },
    };
  }

  /** Ends a device as a SIGKILL would: its link goes with the process, its socket file stays. */
  crash(interfaceName: string): void {
    const d = this.devices.get(interfaceName);
    if (d?.running) this.end(d, false);
  }

  private end(d: FakeWireguardDevice, graceful: boolean): void {
    this.links.vanish(d.interfaceName);
    if (graceful) this.socketFiles.delete(d.interfaceName);
    d.exit(graceful ? 0 : null);
  }

  /** A running device of this name (the test's view); throws when there is none. */
  device(name: string): FakeWireguardDevice {
    const d = this.devices.get(name);
    if (!d?.running) throw new Error(`no running fake wireguard-go for ${name}`);
    return d;
  }

  async exchange(interfaceName: string, request: string): Promise<string> {
    if (!this.socketFiles.has(interfaceName)) throw new UapiError('ENOENT', 'no socket');
    const d = this.devices.get(interfaceName);
    if (!d?.running) throw new UapiError('ECONNREFUSED', 'nobody serves the socket');
    if (request.startsWith('set=1\n')) {
      d.sets.push(request);
      applySet(d, request);
      if (this.nodeAnswers) d.handshakeMs = this.now();
      return '';
    }
    if (request !== 'get=1\n\n') throw invalid('neither set=1 nor get=1');
    return getAnswer(d);
  }

  async sockets(): Promise<string[]> {
    return [...this.socketFiles];
  }

  async removeSocket(interfaceName: string): Promise<void> {
    this.socketFiles.delete(interfaceName);
  }

  async processes(): Promise<WireguardProcessInfo[]> {
    return [...this.devices.values()]
      .filter((d) => d.running)
      .map((d) => ({ pid: d.pid, interfaceName: d.interfaceName }));
  }

  async kill(pid: number): Promise<void> {
    const d = [...this.devices.values()].find((x) => x.pid === pid && x.running);
    if (d) this.end(d, true);
  }

  /** A CommandRunner for ping: an echo comes back through a running, configured device. */
  readonly run: CommandRunner = async (tool, args) => {
    if (tool !== 'ping') throw new Error(`the fake runs ping only, not ${tool}`);
    this.pings.push([...args]);
    const name = args[args.indexOf('-I') + 1] ?? '';
    const d = this.devices.get(name);
    const up = this.links.links.get(name)?.up ?? false;
    if (d?.running && up && d.sets.length > 0 && this.nodeAnswers) {
      d.handshakeMs ??= this.now();
      return {
        exitCode: 0,
        stdout: `64 bytes from ${args[args.length - 1]}: icmp_seq=1 ttl=64 time=${this.rttMs} ms\n`,
        stderr: '',
      };
    }
    return { exitCode: 1, stdout: '', stderr: '' };
  };
}

/** The hex form the fake and wireguard-go use for a base64 key (for assertions). */
export const hex = uapiKeyToHex;

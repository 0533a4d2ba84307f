// An in-memory wireguard-go for the tunnel manager's unit tests: processes that make their link
// in the fake OS, UAPI sockets that keep what a `set=1` said and answer `get=1`, a node that
// answers handshakes and pings or not, and crashes on demand (a SIGKILL leaves the socket).
import { UapiError, uapiKeyToHex } from '../../contracts/index.js';
import type { FakeLinks } from '../../platform/os/links.fake.js';
import type { CommandRunner } from '../../platform/os/command.js';
import type {
  WireguardProcess,
  WireguardProcessInfo,
  WireguardSystem,
} from './wireguard-system.js';

export interface FakeWireguardDevice {
  pid: number;
  interfaceName: string;
  /** Every `set=1` request it was sent, in order. */
  sets: string[];
  /** Wall-clock ms of the last handshake with the node; null before one. */
  handshakeMs: number | null;
  running: boolean;
  exit: (code: number | null) => void;
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
    if (this.links.links.delete(d.interfaceName))
      for (const f of this.links.onDown) f(d.interfaceName);
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
      if (this.nodeAnswers) d.handshakeMs = this.now();
      return '';
    }
    const set = d.sets[d.sets.length - 1];
    const peer = set ? /^public_key=([0-9a-f]{64})$/m.exec(set)?.[1] : undefined;
    if (!peer) return 'listen_port=0\n';
    const ms = d.handshakeMs ?? 0;
    return [
      `public_key=${peer}`,
      `last_handshake_time_sec=${Math.floor(ms / 1000)}`,
      `last_handshake_time_nsec=${(ms % 1000) * 1e6}`,
      'rx_bytes=0',
      'tx_bytes=0',
      '',
    ].join('\n');
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

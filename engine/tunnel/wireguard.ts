// A WireGuard tunnel through Debian's userspace wireguard-go: started in the foreground, configured
// over its UAPI socket (never through files), proven by a handshake seen over UAPI and a ping
// through the tunnel, then watched by a periodic probe for latency, loss and recovery.
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';

import { UapiError, type UapiPeer as PeerStatus } from '../../platform/os/uapi-text.js';
import type { CommandRunner } from '../../platform/os/command.js';
import { UapiClient, uapiEndpoint } from '../../platform/os/uapi.js';
import type { WireguardProcess, WireguardSystem } from '../../platform/os/wireguard-go.js';
import { FerryError } from '../errors.js';
import { gatewayOf, probeRoundTrip } from './probe.js';
import { delay, unlessAborted, type ProtocolSession, type TunnelHealth } from './session.js';
import type { TunnelEvent, TunnelPlan } from './tunnel.js';

export interface WireguardTiming {
  /** Between probes once the tunnel is up (latency readout and loss detection). */
  probeIntervalMs: number;
  /** Probes in a row without an answer before the tunnel counts as lost. */
  missesForLoss: number;
  /**
   * A handshake older than this means the session is gone (WireGuard rekeys every 120 s while
   * traffic flows, and rejects a session after 180 s).
   */
  handshakeStaleMs: number;
  /** Between attempts while waiting for the UAPI socket and the first round trip. */
  pollMs: number;
}

export const DEFAULT_WIREGUARD_TIMING: WireguardTiming = {
  // Every second: two unanswered in a row start failover within about three seconds.
  probeIntervalMs: 1_000,
  missesForLoss: 2,
  handshakeStaleMs: 190_000,
  pollMs: 20,
};

export interface WireguardDeps {
  system: WireguardSystem;
  /** Runs ping. */
  run: CommandRunner;
  /** The node's address when the answer names it by host name (UAPI takes addresses only). */
  resolveHost?: (host: string) => Promise<string>;
  /** Wall-clock ms, for the age of a handshake (UAPI reports wall-clock times). */
  now?: () => number;
  timing?: Partial<WireguardTiming>;
}

const UAPI_TIMEOUT_MS = 2_000;

async function defaultResolve(host: string): Promise<string> {
  return (await lookup(host, { family: 4 })).address;
}

function socketMissing(e: unknown): boolean {
  return e instanceof UapiError && (e.errno === 'ENOENT' || e.errno === 'ECONNREFUSED');
}

/**
 * Starts wireguard-go for the plan's interface and gives it the device's key, the socket mark
 * and the node as its one peer. Its TUN link exists (down, unaddressed) when this resolves.
 * Rejects with a FerryError (tunnel-failed, node-unreachable) after stopping what it started,
 * or with `signal.reason` when aborted.
 */
export async function startWireguard(
  deps: WireguardDeps,
  plan: TunnelPlan,
  fwmark: number,
  signal: AbortSignal,
): Promise<ProtocolSession> {
  const timing = { ...DEFAULT_WIREGUARD_TIMING, ...deps.timing };
  const { system } = deps;
  const name = plan.interfaceName;
  const { node, tunnel } = plan.answer;
  const gateway = gatewayOf(plan.answer);
  const uapi = new UapiClient(system, name, UAPI_TIMEOUT_MS);

  // Another wireguard-go serving this name (in any namespace: /run is shared) would answer our
  // configuration in its stead.
  const inUse = await uapi.get().then(
    () => true,
    (e: unknown) => (socketMissing(e) ? false : true),
  );
  if (inUse)
    throw new FerryError('tunnel-failed', `a WireGuard interface named ${name} is already running`);

  let host = node.endpoint_host;
  if (isIP(host) === 0) {
    try {
      host = await unlessAborted((deps.resolveHost ?? defaultResolve)(host), signal);
    } catch (e) {
      if (e === signal.reason) throw e;
      throw new FerryError('node-unreachable', `cannot resolve the address of node ${node.id}`, {
        cause: e,
      });
    }
  }
  // Exactly this: our key and mark, the node as the one peer (any other is removed).
  const device = { privateKey: plan.privateKey, fwmark, replacePeers: true };
  const peers = [
    {
      kind: 'upsert' as const,
      peer: {
        publicKey: node.wireguard_public_key,
        endpoint: uapiEndpoint(host, node.wireguard_port),
        allowedIps: tunnel.allowed_ips,
        persistentKeepaliveSeconds: tunnel.keepalive,
      },
    },
  ];

  const proc = system.start(name);
  const session = new WireguardSession(uapi, gateway, proc, deps, timing);
  try {
    await waitForSocket(uapi, proc, timing.pollMs, signal);
    await uapi.set(device, peers);
  } catch (e) {
    await session.close();
    if (e instanceof FerryError || e === signal.reason) throw e;
    throw new FerryError('tunnel-failed', 'wireguard-go refused its configuration', { cause: e });
  }
  return session;
}

function exitedError(proc: WireguardProcess): FerryError {
  const out = proc.output();
  return new FerryError('tunnel-failed', `wireguard-go stopped${out ? `: ${out}` : ''}`);
}

async function waitForSocket(
  uapi: UapiClient,
  proc: WireguardProcess,
  pollMs: number,
  signal: AbortSignal,
): Promise<void> {
  for (;;) {
    if (proc.hasExited()) throw exitedError(proc);
    try {
      await uapi.get();
      return;
    } catch (e) {
      if (!socketMissing(e)) throw e;
    }
    await delay(pollMs, signal);
  }
}

class WireguardSession implements ProtocolSession {
  private seen = false;
  private closed = false;
  private lost = false;
  private misses = 0;
  private timer: NodeJS.Timeout | null = null;
  private probing = false;
  private emit: ((e: TunnelEvent) => void) | null = null;

  readonly interfaceName: string;

  constructor(
    private readonly uapi: UapiClient,
    private readonly gateway: string,
    private readonly proc: WireguardProcess,
    private readonly deps: WireguardDeps,
    private readonly timing: WireguardTiming,
  ) {
    this.interfaceName = uapi.interfaceName;
    void proc.exited.then(() => {
      if (!this.closed) this.loseTraffic(exitedError(proc).message);
    });
  }

  handshakeSeen(): boolean {
    return this.seen;
  }

  /** The node's peer as wireguard-go reports it, null when it cannot be read. */
  private async peer(): Promise<PeerStatus | null> {
    try {
      return (await this.uapi.get()).peers[0] ?? null;
    } catch {
      return null;
    }
  }

  async health(): Promise<TunnelHealth | null> {
    if (this.closed) return null;
    const peer = await this.peer();
    if (!peer) return null;
    return { bytes: peer.rxBytes + peer.txBytes };
  }

  async waitForTraffic(signal: AbortSignal): Promise<number> {
    for (;;) {
      if (this.proc.hasExited()) throw exitedError(this.proc);
      if (signal.aborted) throw signal.reason;
      const peer = await this.peer();
      if (peer?.lastHandshakeMs != null) this.seen = true;
      // The ping also starts a handshake when the keepalive has not yet.
      // Not raced with the signal: ping ends within its one second, and up() rejects only once
      // nothing it started still runs.
      const rtt = await probeRoundTrip(this.deps.run, this.interfaceName, this.gateway);
      if (rtt !== null && (this.seen || (await this.peer())?.lastHandshakeMs != null)) {
        this.seen = true;
        return rtt;
      }
      await delay(this.timing.pollMs, signal);
    }
  }

  monitor(emit: (e: TunnelEvent) => void): void {
    if (this.closed) return;
    this.emit = emit;
    if (this.proc.hasExited()) {
      this.loseTraffic(exitedError(this.proc).message);
      return;
    }
    this.timer = setInterval(() => void this.probe(), this.timing.probeIntervalMs);
    this.timer.unref();
  }

  private async probe(): Promise<void> {
    if (this.probing || this.closed || this.proc.hasExited()) return;
    this.probing = true;
    try {
      const rtt = await probeRoundTrip(this.deps.run, this.interfaceName, this.gateway).catch(
        () => null,
      );
      if (this.closed || this.proc.hasExited()) return;
      const peer = await this.peer();
      const now = (this.deps.now ?? Date.now)();
      const stale =
        peer === null ||
        peer.lastHandshakeMs === null ||
        now - peer.lastHandshakeMs > this.timing.handshakeStaleMs;
      if (rtt !== null && !stale) {
        this.misses = 0;
        if (this.lost) {
          this.lost = false;
          this.emit?.({ type: 'restored' });
        }
        this.emit?.({ type: 'latency', ms: rtt });
        return;
      }
      this.misses += 1;
      if (stale && peer !== null) this.loseTraffic('the handshake with the node went stale');
      else if (this.misses >= this.timing.missesForLoss)
        this.loseTraffic('the node stopped answering through the tunnel');
    } finally {
      this.probing = false;
    }
  }

  private loseTraffic(reason: string): void {
    if (this.lost || !this.emit) return;
    this.lost = true;
    this.emit({ type: 'lost', reason });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.emit = null;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    // wireguard-go removes its link and socket on SIGTERM; a socket left by a SIGKILL goes too.
    await this.proc.stop();
    await this.deps.system.removeSocket(this.interfaceName).catch(() => {});
  }
}

// Tells the control plane the node is alive: load from measured throughput, which devices'
// tunnels are up (a recent handshake and traffic) with the relay's latency to each where it
// measured one, bytes per device for plan quotas, which data planes are degraded, and the
// node's latest streaming-platform checks. Every data plane (WireGuard, Ferry) is a traffic source, counted
// the same way. Totals only: nothing about a session is kept beyond what the next heartbeat needs.
import type { Logger } from 'pino';
import {
  sleepUnlessAborted,
  type ControlClient,
  type HeartbeatResponse,
  type PlatformCheckReport,
  type Protocol,
} from '../../contracts/index.js';
import type { z } from 'zod';
import { reasonOf } from '../health.js';

/** WireGuard rejects a session 180 s after its handshake (REJECT_AFTER_TIME); Ferry rekeys within 120 s. */
const HANDSHAKE_VALID_MS = 180_000;

export interface HeartbeatOptions {
  intervalMs: number;
  /** A tunnel without received bytes for this long counts as gone. */
  peerIdleMs: number;
  capacityMbps: number;
}

/** One peer of a data plane as it counts it: bytes since the peer was added, and its last handshake. */
export interface PeerTraffic {
  /** The peer's name in its data plane (WireGuard: its public key; Ferry: the device id). */
  key: string;
  deviceId: string | undefined;
  rxBytes: number;
  txBytes: number;
  /** Epoch ms of the last completed handshake; null if none. */
  lastHandshakeMs: number | null;
}

export interface TrafficSource {
  name: Protocol;
  read(): Promise<PeerTraffic[]>;
  /**
   * The shortest idle time after which this plane's tunnels count as gone, when its clients
   * only prove they are there every few seconds (Ferry's keepalive).
   */
  minIdleMs?: number;
}

export interface HeartbeatHooks {
  /** The relay's latest round trip to a device through its tunnel, in ms, if measured. */
  latencyOf?: (deviceId: string) => number | undefined;
  /** Each answer of the control plane (it carries the current probe key). */
  onAnswer?: (answer: z.output<typeof HeartbeatResponse>) => void;
  /** The node's latest check of each streaming platform; absent: the node checks none. */
  platforms?: () => PlatformCheckReport[];
  /**
   * The devices whose tunnel on `plane` is up now and was not at the last heartbeat (a new
   * handshake): the moment to measure them, rather than at their next turn.
   */
  onNewTunnels?: (plane: Protocol, deviceIds: readonly string[]) => void;
}

interface PeerCounters {
  rx: number;
  tx: number;
  rxChangedAt: number;
}

export class HeartbeatReporter {
  /** Last counters by source and peer key. */
  private readonly counters = new Map<Protocol, Map<string, PeerCounters>>();
  /** Bytes not yet reported (a heartbeat failed): sent with the next one. */
  private readonly unsentUsage = new Map<string, number>();
  /** Sources whose last read failed (logged once per failure streak). */
  private readonly unreadable = new Set<Protocol>();
  private lastAt = Date.now();
  /** Devices whose tunnel was up at the last heartbeat, per data plane. */
  private readonly freshByPlane = new Map<Protocol, readonly string[]>();
  /** Cuts the wait before the next heartbeat short (beatSoon). */
  private wake = new AbortController();

  constructor(
    private readonly client: Pick<ControlClient, 'nodeHeartbeat'>,
    private readonly sources: readonly TrafficSource[],
    private readonly opts: HeartbeatOptions,
    private readonly log: Logger,
    /** Data planes whose peer set is known not to match the feed. */
    private readonly degraded: () => Protocol[] = () => [],
    private readonly hooks: HeartbeatHooks = {},
  ) {}

  /** The devices whose tunnel on `plane` counted as up at the last heartbeat. */
  freshDevices(plane: Protocol): readonly string[] {
    return this.freshByPlane.get(plane) ?? [];
  }

  /**
   * Sends the next heartbeat now rather than an interval after the last (a new tunnel was just
   * measured: its status waits for that); right after the current one when one is under way.
   */
  beatSoon(): void {
    this.wake.abort();
  }

  async beat(signal?: AbortSignal): Promise<void> {
    const now = Date.now();
    const seconds = Math.max(0.001, (now - this.lastAt) / 1000);
    this.lastAt = now;
    let rxTotal = 0;
    let txTotal = 0;
    const fresh = new Set<string>();
    for (const source of this.sources) {
      let peers: PeerTraffic[];
      try {
        peers = await source.read();
        if (this.unreadable.delete(source.name))
          this.log.info({ plane: source.name }, 'traffic counters readable again');
      } catch (e) {
        // Its counters stay as they were: the next read counts what happened meanwhile.
        if (!this.unreadable.has(source.name))
          this.log.warn({ plane: source.name, err: reasonOf(e) }, 'traffic counters unreadable');
        this.unreadable.add(source.name);
        continue;
      }
      const last = this.counters.get(source.name) ?? new Map<string, PeerCounters>();
      const freshHere: string[] = [];
      const next = new Map<string, PeerCounters>();
      const idleMs = Math.max(this.opts.peerIdleMs, source.minIdleMs ?? 0);
      for (const peer of peers) {
        const prev = last.get(peer.key);
        // Counters restart when a peer is re-added: count from zero then.
        const rxDelta = prev && peer.rxBytes >= prev.rx ? peer.rxBytes - prev.rx : peer.rxBytes;
        const txDelta = prev && peer.txBytes >= prev.tx ? peer.txBytes - prev.tx : peer.txBytes;
        const rxChangedAt = rxDelta > 0 ? now : (prev?.rxChangedAt ?? 0);
        next.set(peer.key, { rx: peer.rxBytes, tx: peer.txBytes, rxChangedAt });
        rxTotal += rxDelta;
        txTotal += txDelta;
        const device = peer.deviceId;
        if (!device) continue;
        if (rxDelta + txDelta > 0)
          this.unsentUsage.set(device, (this.unsentUsage.get(device) ?? 0) + rxDelta + txDelta);
        const handshakeFresh =
          peer.lastHandshakeMs !== null && now - peer.lastHandshakeMs < HANDSHAKE_VALID_MS;
        if (handshakeFresh && now - rxChangedAt <= idleMs) {
          fresh.add(device);
          freshHere.push(device);
        }
      }
      this.counters.set(source.name, next);
      const before = new Set(this.freshByPlane.get(source.name));
      this.freshByPlane.set(source.name, freshHere);
      const arrived = freshHere.filter((id) => !before.has(id));
      if (arrived.length > 0) this.hooks.onNewTunnels?.(source.name, arrived);
    }

    const rxBps = Math.round((rxTotal * 8) / seconds);
    const txBps = Math.round((txTotal * 8) / seconds);
    const usage = [...this.unsentUsage].map(([device_id, bytes]) => ({ device_id, bytes }));
    const answer = await this.client.nodeHeartbeat({
      body: {
        load: Math.min(10, Math.max(rxBps, txBps) / (this.opts.capacityMbps * 1e6)),
        rx_bps: rxBps,
        tx_bps: txBps,
        fresh_handshakes: [...fresh].map((device_id) => {
          const ms = this.hooks.latencyOf?.(device_id);
          return ms === undefined
            ? { device_id }
            : { device_id, latency_ms: Math.min(60_000, Math.round(ms * 10) / 10) };
        }),
        usage,
        degraded: this.degraded(),
        ...(this.hooks.platforms ? { platforms: this.hooks.platforms() } : {}),
      },
      signal,
    });
    this.unsentUsage.clear();
    this.hooks.onAnswer?.(answer);
  }

  async run(signal: AbortSignal): Promise<void> {
    // Stopping wakes the wait too. One listener for the whole run, not an AbortSignal.any per
    // heartbeat: on Node 20 each of those stays attached to the long-lived `signal`
    // (nodejs/node#55351), a leak of one signal every interval for as long as the relay runs.
    const stop = () => this.wake.abort();
    signal.addEventListener('abort', stop, { once: true });
    try {
      while (!signal.aborted) {
        // A beatSoon from here on (during this heartbeat too) cuts the wait after it short.
        if (this.wake.signal.aborted) this.wake = new AbortController();
        const woken = this.wake.signal;
        try {
          await this.beat(signal);
        } catch (e) {
          if (signal.aborted) return;
          this.log.warn({ err: (e as Error).message }, 'heartbeat failed; will retry');
        }
        // (Asked for or stopped during the heartbeat, `woken` is aborted already: no wait.)
        await sleepUnlessAborted(this.opts.intervalMs, woken);
      }
    } finally {
      signal.removeEventListener('abort', stop);
    }
  }
}

// Tells the control plane the node is alive: load from measured throughput, which devices'
// tunnels are up (a recent handshake and traffic), and bytes per device for plan quotas.
// Totals only: nothing about a session is kept beyond what the next heartbeat needs.
import type { Logger } from 'pino';
import type { DeviceStatus } from '../wireguard/uapi.js';
import type { ControlClient } from './control-client.js';
import { sleep } from './feed-follower.js';

/** WireGuard rejects a session 180 s after its handshake (REJECT_AFTER_TIME). */
const HANDSHAKE_VALID_MS = 180_000;

export interface HeartbeatOptions {
  intervalMs: number;
  /** A tunnel without received bytes for this long counts as gone. */
  peerIdleMs: number;
  capacityMbps: number;
}

interface PeerCounters {
  rx: number;
  tx: number;
  rxChangedAt: number;
}

export class HeartbeatReporter {
  private readonly counters = new Map<string, PeerCounters>();
  /** Bytes not yet reported (a heartbeat failed): sent with the next one. */
  private readonly unsentUsage = new Map<string, number>();
  private lastAt = Date.now();

  constructor(
    private readonly client: ControlClient,
    private readonly readStatus: () => Promise<DeviceStatus>,
    private readonly deviceOfKey: (publicKey: string) => string | undefined,
    private readonly opts: HeartbeatOptions,
    private readonly log: Logger,
    /** Devices whose tunnel is up on another data plane (Ferry) of this node. */
    private readonly moreFresh: () => string[] = () => [],
  ) {}

  async beat(signal?: AbortSignal): Promise<void> {
    const now = Date.now();
    const status = await this.readStatus();
    const seconds = Math.max(0.001, (now - this.lastAt) / 1000);
    this.lastAt = now;
    let rxTotal = 0;
    let txTotal = 0;
    const fresh: { device_id: string }[] = [];
    const seen = new Set<string>();
    for (const peer of status.peers) {
      seen.add(peer.publicKey);
      const prev = this.counters.get(peer.publicKey);
      // Counters restart when a peer is re-added: count from zero then.
      const rxDelta = prev && peer.rxBytes >= prev.rx ? peer.rxBytes - prev.rx : peer.rxBytes;
      const txDelta = prev && peer.txBytes >= prev.tx ? peer.txBytes - prev.tx : peer.txBytes;
      const rxChangedAt = rxDelta > 0 ? now : (prev?.rxChangedAt ?? 0);
      this.counters.set(peer.publicKey, { rx: peer.rxBytes, tx: peer.txBytes, rxChangedAt });
      rxTotal += rxDelta;
      txTotal += txDelta;
      const device = this.deviceOfKey(peer.publicKey);
      if (!device) continue;
      if (rxDelta + txDelta > 0)
        this.unsentUsage.set(device, (this.unsentUsage.get(device) ?? 0) + rxDelta + txDelta);
      const handshakeFresh =
        peer.lastHandshakeMs !== null && now - peer.lastHandshakeMs < HANDSHAKE_VALID_MS;
      if (handshakeFresh && now - rxChangedAt <= this.opts.peerIdleMs)
        fresh.push({ device_id: device });
    }
    for (const key of this.counters.keys()) if (!seen.has(key)) this.counters.delete(key);
    const freshIds = new Set(fresh.map((f) => f.device_id));
    for (const device of this.moreFresh())
      if (!freshIds.has(device)) fresh.push({ device_id: device });

    const rxBps = Math.round((rxTotal * 8) / seconds);
    const txBps = Math.round((txTotal * 8) / seconds);
    const usage = [...this.unsentUsage].map(([device_id, bytes]) => ({ device_id, bytes }));
    await this.client.heartbeat(
      {
        load: Math.min(10, Math.max(rxBps, txBps) / (this.opts.capacityMbps * 1e6)),
        rx_bps: rxBps,
        tx_bps: txBps,
        fresh_handshakes: fresh,
        usage,
      },
      signal,
    );
    this.unsentUsage.clear();
  }

  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      try {
        await this.beat(signal);
      } catch (e) {
        if (signal.aborted) return;
        this.log.warn({ err: (e as Error).message }, 'heartbeat failed; will retry');
      }
      await sleep(this.opts.intervalMs, signal);
    }
  }
}

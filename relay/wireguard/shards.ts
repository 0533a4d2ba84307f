// The relay's WireGuard interfaces, one per shard of 65,536 device addresses (wireguard-go's
// peer limit), started when the first device of a shard arrives. Shard k listens on the base
// port + k and routes its own /16 and /112.
import { GATEWAY_IPV4, GATEWAY_IPV6, MAX_SHARDS, shardRoutes } from '../../contracts/index.js';
import type { UapiDevice } from '../../platform/os/uapi-text.js';
import type { RelayOs } from '../os.js';
import { startWireGuard, type WireGuardInterface } from './device.js';

export interface ShardOptions {
  os: Pick<RelayOs, 'wireguard' | 'links' | 'routes'>;
  baseName: string;
  basePort: number;
  privateKey: string;
  mtu: number;
  /** Called with each new interface before it takes peers (the firewall learns it). */
  onInterface: (name: string) => Promise<void>;
  onExit: (name: string, code: number | null) => void;
}

export class WireGuardShards {
  private readonly starting = new Map<number, Promise<WireGuardInterface>>();
  private readonly up = new Map<number, WireGuardInterface>();

  constructor(private readonly o: ShardOptions) {
    if (o.basePort + MAX_SHARDS - 1 > 65535)
      throw new Error(
        `--wireguard-port must leave room for ${MAX_SHARDS} shards (at most ${65536 - MAX_SHARDS})`,
      );
  }

  nameOf(k: number): string {
    const name = k === 0 ? this.o.baseName : `${this.o.baseName}s${k}`;
    if (name.length > 15)
      throw new Error(
        `interface name ${name} is longer than 15 characters: choose a shorter --interface`,
      );
    return name;
  }

  interfaceNames(): string[] {
    return [...this.up.values()].map((i) => i.name);
  }

  /** The interface of shard k, started on first use. */
  get(k: number): Promise<WireGuardInterface> {
    if (!Number.isInteger(k) || k < 0 || k >= MAX_SHARDS)
      return Promise.reject(new RangeError(`no shard ${k}`));
    let pending = this.starting.get(k);
    if (!pending) {
      pending = this.start(k);
      this.starting.set(k, pending);
      // A failed start may be retried with the next feed answer.
      pending.catch(() => this.starting.delete(k));
    }
    return pending;
  }

  /** Every started interface's status, as one device. */
  async status(): Promise<UapiDevice> {
    const all = await Promise.all([...this.up.values()].map((i) => i.uapi.get()));
    return {
      listenPort: all[0]?.listenPort ?? null,
      fwmark: all[0]?.fwmark ?? null,
      peers: all.flatMap((s) => s.peers),
    };
  }

  async close(): Promise<void> {
    const started = await Promise.allSettled(this.starting.values());
    await Promise.all(started.map((r) => (r.status === 'fulfilled' ? r.value.close() : undefined)));
  }

  private async start(k: number): Promise<WireGuardInterface> {
    const name = this.nameOf(k);
    const routes = shardRoutes(k);
    await this.o.onInterface(name);
    const iface = await startWireGuard(this.o.os, {
      name,
      privateKey: this.o.privateKey,
      listenPort: this.o.basePort + k,
      // Shard 0 holds the gateway (and DNS) address every device uses; the others only route.
      addresses: k === 0 ? [`${GATEWAY_IPV4}/16`, `${GATEWAY_IPV6}/112`] : [],
      routes: k === 0 ? [] : [routes.ipv4, routes.ipv6],
      mtu: this.o.mtu,
      onExit: (code) => this.o.onExit(name, code),
    });
    this.up.set(k, iface);
    return iface;
  }
}

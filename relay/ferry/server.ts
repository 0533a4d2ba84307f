// The relay's Ferry protocol server: the native data plane on its own TUN interface, with the
// peers of the feed (each device's Ferry key and tunnel address). Replies find their way back
// to Ferry clients by connection mark, since a device's address is routed to WireGuard too.
import { GATEWAY_IPV4, shardOf, shardRoutes } from '../../contracts/index.js';
import { nativeDataPlane, type ServerTunnel } from '../../native/index.js';
import type { Firewall } from '../nat/firewall.js';
import { run } from '../system.js';
import type { PeerEntry } from '../wireguard/peer-table.js';

/** Connection mark and routing table of traffic that came in over Ferry. */
export const FERRY_MARK = 0x46;
const FERRY_TABLE = '4646';

/** A Ferry session stays "fresh" this long after its last handshake or rekey (keys rotate within 120 s). */
const FRESH_MS = 180_000;

export class FerryServer {
  private peers: PeerEntry[] = [];
  /** Shards whose block has a route in the Ferry reply table. */
  private readonly routedShards = new Set<number>();
  /** Device id → when its Ferry session last (re)keyed. */
  private readonly lastKeyed = new Map<string, number>();

  private constructor(
    private readonly tunnel: ServerTunnel,
    readonly interfaceName: string,
  ) {}

  static async start(o: {
    interfaceName: string;
    listenPort: number;
    tcpListenPort?: number | undefined;
    privateKey: string;
    firewall: Firewall;
  }): Promise<FerryServer> {
    // Events arrive on the JS thread after startServer returns; until then there is no server.
    const self: { server?: FerryServer } = {};
    const tunnel = nativeDataPlane.startServer(
      {
        interfaceName: o.interfaceName,
        // The gateway address without a subnet route: WireGuard's interfaces own the device routes.
        address: `${GATEWAY_IPV4}/32`,
        privateKey: o.privateKey,
        listenHost: '0.0.0.0',
        listenPort: o.listenPort,
        ...(o.tcpListenPort === undefined
          ? {}
          : { tcpListenHost: '0.0.0.0', tcpListenPort: o.tcpListenPort }),
        peers: [],
      },
      (event) => {
        if ((event.type === 'peer' || event.type === 'rekey') && event.peer !== undefined)
          self.server?.keyed(event.peer);
      },
    );
    const server = new FerryServer(tunnel, tunnel.interfaceName);
    self.server = server;
    try {
      await o.firewall.addTunnelInterface(server.interfaceName);
      await o.firewall.markConnections(server.interfaceName, FERRY_MARK);
      await run('ip', [
        'rule',
        'add',
        'fwmark',
        String(FERRY_MARK),
        'lookup',
        FERRY_TABLE,
        'priority',
        FERRY_TABLE,
      ]);
    } catch (e) {
      await server.close();
      throw e;
    }
    return server;
  }

  /** Replaces the peer set with the feed's devices that have a Ferry key. */
  async sync(entries: Iterable<PeerEntry>): Promise<void> {
    this.peers = [...entries].filter((e) => e.ferryPublicKey !== null);
    for (const shard of new Set(this.peers.map((p) => shardOf(p.ipv4)))) await this.route(shard);
    this.tunnel.setPeers(
      this.peers.map((e) => ({ id: e.deviceId, publicKey: e.ferryPublicKey!, address: e.ipv4 })),
    );
    const present = new Set(this.peers.map((p) => p.deviceId));
    for (const id of this.lastKeyed.keys()) if (!present.has(id)) this.lastKeyed.delete(id);
  }

  /** Devices whose Ferry session keyed recently. */
  freshDevices(nowMs = Date.now()): string[] {
    return [...this.lastKeyed].filter(([, at]) => nowMs - at < FRESH_MS).map(([id]) => id);
  }

  async close(): Promise<void> {
    this.tunnel.close();
    await run('ip', ['rule', 'del', 'fwmark', String(FERRY_MARK), 'lookup', FERRY_TABLE], {
      allowFailure: true,
    });
  }

  /**
   * Replies to a shard's devices return through Ferry. Only shards in use are routed, never the
   * whole tunnel block: other addresses in it may be real destinations behind the uplink.
   */
  private async route(shard: number): Promise<void> {
    if (this.routedShards.has(shard)) return;
    await run('ip', [
      'route',
      'replace',
      shardRoutes(shard).ipv4,
      'dev',
      this.interfaceName,
      'table',
      FERRY_TABLE,
    ]);
    this.routedShards.add(shard);
  }

  private keyed(deviceId: string): void {
    this.lastKeyed.set(deviceId, Date.now());
  }
}

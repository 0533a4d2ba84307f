// The relay's Ferry protocol server: the native data plane on its own TUN interface, with the
// peers of the feed (each device's Ferry key and tunnel address, kept by FerryPeers). Replies
// find their way back to Ferry clients by connection mark, since a device's address is routed
// to WireGuard too.
import { GATEWAY_IPV4, shardRoutes } from '../../contracts/index.js';
import { nativeDataPlane, type PeerStats, type ServerTunnel } from '../../native/index.js';
import type { RelayHealth } from '../health.js';
import type { Firewall } from '../nat/firewall.js';
import { run } from '../system.js';
import { FerryPeers } from './ferry-peers.js';

/** Connection mark and routing table of traffic that came in over Ferry. */
export const FERRY_MARK = 0x46;
const FERRY_TABLE = '4646';

export class FerryServer {
  private constructor(
    private readonly tunnel: ServerTunnel,
    readonly peers: FerryPeers,
  ) {}

  get interfaceName(): string {
    return this.tunnel.interfaceName;
  }

  static async start(o: {
    interfaceName: string;
    listenPort: number;
    tcpListenPort?: number | undefined;
    privateKey: string;
    firewall: Firewall;
    health: RelayHealth;
  }): Promise<FerryServer> {
    // Events arrive on the JS thread after startServer returns; until then there are no peers.
    const self: { peers?: FerryPeers; lastError?: string } = {};
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
        if (event.type === 'error') self.lastError = event.message;
        else if (event.type === 'state' && event.state === 'failed')
          self.peers?.dataPlaneFailed(self.lastError ?? 'a data-plane thread stopped');
      },
    );
    const interfaceName = tunnel.interfaceName;
    const peers = new FerryPeers(tunnel, {
      health: o.health,
      // Only shards in use are routed, never the whole tunnel block: other addresses in it may
      // be real destinations behind the uplink.
      routeShard: async (shard) => {
        await run('ip', [
          'route',
          'replace',
          shardRoutes(shard).ipv4,
          'dev',
          interfaceName,
          'table',
          FERRY_TABLE,
        ]);
      },
    });
    self.peers = peers;
    const server = new FerryServer(tunnel, peers);
    try {
      await o.firewall.addTunnelInterface(interfaceName);
      await o.firewall.markConnections(interfaceName, FERRY_MARK);
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

  /** Per-device Ferry traffic and handshake age, for metering and liveness. */
  stats(): PeerStats[] {
    return this.peers.stats();
  }

  async close(): Promise<void> {
    this.peers.close();
    this.tunnel.close();
    await run('ip', ['rule', 'del', 'fwmark', String(FERRY_MARK), 'lookup', FERRY_TABLE], {
      allowFailure: true,
    });
  }
}

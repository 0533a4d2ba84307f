// The relay's Ferry protocol server: the native data plane on its own TUN interface, with the
// peers of the feed (each device's Ferry key and tunnel address, kept by FerryPeers). Replies
// find their way back to Ferry clients by connection mark, since a device's address is routed
// to WireGuard too.
import { GATEWAY_IPV4, shardRoutes } from '../../contracts/index.js';
import {
  nativeDataPlane,
  type PeerStats,
  type ServerTunnel,
  type ApiStreamHandler,
  type StrangerHandler,
} from '../../native/index.js';
import type { PolicyRule } from '../../platform/os/routes.js';
import type { RelayHealth } from '../health.js';
import type { RelayFirewall } from '../nat/firewall.js';
import type { RelayOs } from '../os.js';
import { FerryPeers } from './ferry-peers.js';

/** Connection mark and routing table of traffic that came in over Ferry. */
export const FERRY_MARK = 0x46;
const FERRY_TABLE = 4646;
/** Marked traffic (replies to Ferry devices) looks up the Ferry table. */
const FERRY_RULE: PolicyRule = {
  family: 4,
  priority: FERRY_TABLE,
  fwmark: FERRY_MARK,
  table: FERRY_TABLE,
};

export class FerryServer {
  private constructor(
    private readonly tunnel: ServerTunnel,
    readonly peers: FerryPeers,
    private readonly os: Pick<RelayOs, 'routes'>,
  ) {}

  get interfaceName(): string {
    return this.tunnel.interfaceName;
  }

  static async start(o: {
    interfaceName: string;
    listenPort: number;
    tcpListenPort?: number | undefined;
    /** The TLS transport's port, and who takes its strangers (TlsTransport.onStranger). */
    tls?:
      | { port: number; onStranger: StrangerHandler; onApiStream?: ApiStreamHandler | undefined }
      | undefined;
    privateKey: string;
    firewall: RelayFirewall;
    health: RelayHealth;
    os: Pick<RelayOs, 'routes'>;
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
        ...(o.tls === undefined
          ? {}
          : {
              tlsListenHost: '0.0.0.0',
              tlsListenPort: o.tls.port,
              onStranger: o.tls.onStranger,
              ...(o.tls.onApiStream ? { onApiStream: o.tls.onApiStream } : {}),
            }),
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
        await o.os.routes.replace({
          destination: shardRoutes(shard).ipv4,
          dev: interfaceName,
          table: FERRY_TABLE,
        });
      },
    });
    self.peers = peers;
    const server = new FerryServer(tunnel, peers, o.os);
    try {
      await o.firewall.addTunnelInterface(interfaceName);
      await o.firewall.markConnections(interfaceName, FERRY_MARK);
      await o.os.routes.addRule(FERRY_RULE);
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
    await this.os.routes.deleteRule(FERRY_RULE).catch(() => undefined);
  }
}

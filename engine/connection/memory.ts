// What the main connection remembers between its states: the tunnel in use, what the user's
// connect asked for beyond the configuration, the exit addresses, the notices, and the nodes
// of the attempt under way and of the tunnel lost. The states (one file each) read and write it.
import type {
  ClientConfig,
  ConnectResponse,
  Notice,
  Transport,
  TransportReason,
} from '../../contracts/index.js';
import type { ActiveTunnel } from '../tunnel/tunnel.js';
import { LatencyHistory } from './latency-history.js';
import type { LatencyReporter } from './latency-report.js';
import { ConnectionStateMachine } from './machine.js';

/** The tunnel in use, and what goes with it. */
export interface LiveTunnel {
  answer: ConnectResponse;
  tunnel: ActiveTunnel;
  transport: Transport;
  /** Why the tunnel runs over its transport (the status's transport_reason). */
  transportReason: TransportReason;
  stopEvents: () => void;
  /** Tells the control plane this tunnel's latency (its GET /status shows it). */
  reporter: LatencyReporter;
}

/** What a connect asked for beyond the configuration (kept for reconnects). */
export type Overrides = Partial<
  Pick<ClientConfig, 'protocol' | 'encryption' | 'region' | 'mode'>
> & {
  /** Stream mode's platform: kept with the mode, for reconnects. */
  platform?: string;
  /** Multihop for this connection (connect --via): kept for reconnects. */
  via?: string;
};

export class ConnectionMemory {
  readonly machine = new ConnectionStateMachine();
  live: LiveTunnel | null = null;
  overrides: Overrides = {};
  /** The address the service saw before the tunnel (the home country's evidence). */
  exitBefore: string | null = null;
  /** The address the service sees through the tunnel. */
  exitAfter: string | null = null;
  notices: Notice[] = [];
  /** The node of the connect attempt under way (failover passes over it when it fails). */
  attemptNode: string | null = null;
  /** The node whose tunnel was lost, while the recovery replaces it (for the failover notice). */
  lostNode: string | null = null;
  /** The tunnel's last measurements (the status's latency_history). */
  readonly latencyHistory = new LatencyHistory();

  constructor() {
    // Subscribed first: a status told of a change already holds its measurement.
    this.machine.on((change) => this.latencyHistory.follow(change));
  }
}

// A Ferry tunnel through the native data plane: its client options from the connect answer, and
// its events turned into proof of traffic (handshake done, then a measured round trip), latency,
// lost and restored.
import type { ConnectResponse } from '../../contracts/control-api.js';
import {
  NativeTunnelError,
  type Cipher,
  type ClientTlsOptions,
  type ClientTunnelOptions,
  type DataPlane,
  type StreamOutcome,
  type Transport,
  type Tunnel,
  type TunnelEvent as NativeEvent,
} from '../../native/tunnel-types.js';
import { loadHelloTemplate, type HelloTemplate } from '../../native/hello-template.js';
import { FerryError } from '../errors.js';
import type { ProtocolSession, TunnelHealth } from './session.js';
import type { TunnelEvent, TunnelPlan } from './tunnel.js';

const CIPHERS: Record<ConnectResponse['cipher'], Cipher> = {
  'AES-256-GCM': 'aes-256-gcm',
  'ChaCha20-Poly1305': 'chacha20-poly1305',
};

function answerCipher(c: Cipher): ConnectResponse['cipher'] {
  return c === 'aes-256-gcm' ? 'AES-256-GCM' : 'ChaCha20-Poly1305';
}

const clamp = (n: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, Math.round(n)));

/** The native client's options for a plan (FerryError when the node offers no Ferry endpoint). */
export function ferryClientOptions(plan: TunnelPlan, fwmark: number): ClientTunnelOptions {
  const { node, tunnel, rotation } = plan.answer;
  if (node.ferry_port === null || node.ferry_public_key === null)
    throw new FerryError('tunnel-failed', `node ${node.id} offers no Ferry endpoint`);
  const tls = plan.transport === 'tls' ? tlsOptions(node) : null;
  return {
    interfaceName: plan.interfaceName,
    address: `${tunnel.ipv4}/32`,
    mtu: tunnel.mtu,
    privateKey: plan.privateKey,
    serverHost: node.endpoint_host,
    serverPort: tls ? tls.port : node.ferry_port,
    serverPublicKey: node.ferry_public_key,
    cipher: CIPHERS[plan.answer.cipher],
    transport: plan.transport ?? 'udp',
    ...(tls ? { tls: tls.options } : {}),
    ...(plan.raceUdp && plan.transport !== undefined && plan.transport !== 'udp'
      ? { raceUdpPort: node.ferry_port }
      : {}),
    // The data plane's ranges: keepalives 1..60 s, session keys at most every 120 s.
    keepaliveSeconds: clamp(Math.min(plan.keepaliveSeconds ?? Infinity, tunnel.keepalive), 1, 60),
    rekeySeconds: clamp(rotation.session_key_seconds, 1, 120),
    fwmark,
  };
}

let chrome: HelloTemplate | null = null;

/**
 * The TLS transport's endpoint and hello: the node's TLS port, its cover site's name in the
 * hello, and the shipped browser template (read once).
 */
function tlsOptions(node: ConnectResponse['node']): { port: number; options: ClientTlsOptions } {
  if (node.tls_port == null || node.tls_server_name == null)
    throw new FerryError('tunnel-failed', `node ${node.id} offers no TLS endpoint`);
  chrome ??= loadHelloTemplate();
  return { port: node.tls_port, options: { serverName: node.tls_server_name, hello: chrome } };
}

/** The data plane's refusal as an engine error (its messages name no address). */
function startError(e: unknown): FerryError {
  if (e instanceof NativeTunnelError) {
    if (e.code === 'ERR_FERRY_UNSUPPORTED' || e.code === 'ERR_FERRY_NOT_BUILT')
      return new FerryError('not-supported', e.message, { cause: e });
    return new FerryError('tunnel-failed', `the Ferry data plane did not start: ${e.message}`, {
      cause: e,
    });
  }
  return new FerryError('tunnel-failed', 'the Ferry data plane did not start', { cause: e });
}

/** Starts the native client; its TUN link exists, addressed and up, when this returns. */
export function startFerry(
  dataPlane: Pick<DataPlane, 'startClient'>,
  plan: TunnelPlan,
  fwmark: number,
): ProtocolSession {
  const options = ferryClientOptions(plan, fwmark);
  const session = new FerrySession(plan.interfaceName, (options.keepaliveSeconds ?? 5) * 1000);
  try {
    session.attach(dataPlane.startClient(options, (e) => session.onNative(e)));
  } catch (e) {
    throw startError(e);
  }
  return session;
}

type Waiter = { resolve: (ms: number) => void; reject: (e: unknown) => void };

/**
 * Keepalives without an answer for this many intervals (and at least this long) mean the node is
 * gone: noticed here rather than by the data plane's own dead-peer timer (three intervals, at
 * least 5 s), so that failover starts within seconds.
 */
const SILENT_INTERVALS = 2.5;
const SILENT_MIN_MS = 2_500;

class FerrySession implements ProtocolSession {
  private tunnel: Tunnel | null = null;
  private connected = false;
  private everConnected = false;
  /** The first round trip after the handshake, while up() waits for it. */
  private firstRtt: number | null = null;
  private dead: string | null = null;
  private lastError: string | null = null;
  private lost = false;
  private closed = false;
  private emit: ((e: TunnelEvent) => void) | null = null;
  private readonly waiters = new Set<Waiter>();
  private lastAnswer = 0;
  private watchdog: NodeJS.Timeout | null = null;
  /** What the last TCP or TLS connection attempt ran into (the autopilot's evidence). */
  private outcome: StreamOutcome | null = null;
  /** The path a race chose. */
  private raced: Transport | null = null;

  constructor(
    readonly interfaceName: string,
    private readonly keepaliveMs: number,
  ) {}

  attach(tunnel: Tunnel): void {
    this.tunnel = tunnel;
  }

  handshakeSeen(): boolean {
    return this.everConnected;
  }

  streamOutcome(): StreamOutcome | null {
    return this.outcome;
  }

  racedTransport(): Transport | null {
    return this.raced;
  }

  health(): Promise<TunnelHealth | null> {
    if (!this.tunnel || this.closed) return Promise.resolve(null);
    const c = this.tunnel.counters();
    return Promise.resolve({ bytes: c.rxBytes + c.txBytes });
  }

  onNative(e: NativeEvent): void {
    if (this.closed) return;
    switch (e.type) {
      case 'state':
        if (e.state === 'connected') {
          this.connected = this.everConnected = true;
          if (this.lost) {
            this.lost = false;
            this.emit?.({ type: 'restored' });
          }
        } else if (e.state === 'connecting') {
          // After a handshake, the client goes back to connecting when the node fell silent
          // (dead-peer detection): nothing crosses until the next handshake.
          if (this.connected) this.loseTraffic('the node stopped answering');
          this.connected = false;
        } else {
          this.connected = false;
          this.dead =
            e.state === 'failed'
              ? `the Ferry data plane stopped${this.lastError ? `: ${this.lastError}` : ''}`
              : 'the Ferry data plane closed';
          this.loseTraffic(this.dead);
          this.settle((w) => w.reject(new FerryError('tunnel-failed', this.dead!)));
        }
        return;
      case 'rtt':
        if (!this.connected) return;
        this.lastAnswer = performance.now();
        if (this.lost) {
          this.lost = false;
          this.emit?.({ type: 'restored' });
        }
        if (this.emit) this.emit({ type: 'latency', ms: e.rttMs });
        else this.firstRtt = e.rttMs;
        this.settle((w) => w.resolve(e.rttMs));
        return;
      case 'rekey':
        this.emit?.({ type: 'rekey', cipher: answerCipher(e.cipher) });
        return;
      case 'error':
        this.lastError = e.message;
        return;
      case 'transport':
        this.outcome = e.outcome;
        return;
      case 'path':
        this.raced = e.transport;
        return;
      default:
        return;
    }
  }

  private loseTraffic(reason: string): void {
    if (this.lost || !this.emit) return;
    this.lost = true;
    this.emit({ type: 'lost', reason });
  }

  private settle(fn: (w: Waiter) => void): void {
    for (const w of this.waiters) fn(w);
    this.waiters.clear();
  }

  waitForTraffic(signal: AbortSignal): Promise<number> {
    if (this.dead) return Promise.reject(new FerryError('tunnel-failed', this.dead));
    if (this.connected && this.firstRtt !== null) return Promise.resolve(this.firstRtt);
    if (signal.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.waiters.delete(w);
        reject(signal.reason);
      };
      const w: Waiter = {
        resolve: (ms) => {
          signal.removeEventListener('abort', onAbort);
          resolve(ms);
        },
        reject: (e) => {
          signal.removeEventListener('abort', onAbort);
          reject(e);
        },
      };
      this.waiters.add(w);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  monitor(emit: (e: TunnelEvent) => void): void {
    this.emit = emit;
    if (this.dead) {
      this.loseTraffic(this.dead);
      return;
    }
    this.lastAnswer = performance.now();
    const silentMs = Math.max(SILENT_INTERVALS * this.keepaliveMs, SILENT_MIN_MS);
    this.watchdog = setInterval(
      () => {
        if (performance.now() - this.lastAnswer > silentMs)
          this.loseTraffic('the node stopped answering');
      },
      Math.min(this.keepaliveMs, 1_000) / 2,
    );
    this.watchdog.unref();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.emit = null;
    if (this.watchdog) clearInterval(this.watchdog);
    this.watchdog = null;
    this.settle((w) => w.reject(new FerryError('cancelled', 'the tunnel was closed')));
    // Joins the data-plane threads; the TUN link goes with its descriptor.
    this.tunnel?.close();
  }
}

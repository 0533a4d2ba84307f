// In-memory fake of the data plane (same DataPlane interface) for unit tests of code that drives tunnels.
import { createPublicKey, generateKeyPairSync, createPrivateKey } from 'node:crypto';

import {
  NativeTunnelError,
  screenChange,
  validateClientOptions,
  validateServerOptions,
  ZERO_COUNTERS,
  type ClientTunnelOptions,
  type DataPlane,
  type PeerChange,
  type PeerStats,
  type PeerUpdateResult,
  type ServerPeer,
  type ServerTunnel,
  type ServerTunnelOptions,
  type StreamOutcome,
  type Tunnel,
  type TunnelCounters,
  type TunnelEvent,
  type TunnelEventListener,
} from './tunnel-types.js';

// Distributes the variants of TunnelEvent so that emit() accepts any one of them without eventDrops.
type WithoutDrops<T> = T extends unknown ? Omit<T, 'eventDrops'> : never;

/** A tunnel that moves no packets: tests drive its events and counters explicitly. */
export class FakeTunnel implements ServerTunnel {
  readonly interfaceName: string;
  closed = false;
  private current: TunnelCounters = { ...ZERO_COUNTERS };

  constructor(
    readonly kind: 'client' | 'server',
    readonly options: ClientTunnelOptions | ServerTunnelOptions,
    private readonly onEvent: TunnelEventListener,
  ) {
    this.interfaceName = options.interfaceName;
  }

  /** Delivers an event as the native side would (asynchronously, never after close). */
  emit(event: WithoutDrops<TunnelEvent>): void {
    if (this.closed) return;
    queueMicrotask(() => this.onEvent({ ...event, eventDrops: 0 } as TunnelEvent));
  }

  /**
   * Reports a connection attempt's outcome as the native client does over TCP or TLS (the transport from
   * the start options); a UDP client or a server never reports one, so asking for it is a test's bug.
   */
  attemptOutcome(outcome: StreamOutcome): void {
    const transport = (this.options as ClientTunnelOptions).transport;
    if (this.kind !== 'client' || (transport !== 'tcp' && transport !== 'tls'))
      throw new Error('only a client over tcp or tls reports connection attempts');
    this.emit({ type: 'transport', transport, outcome });
  }

  setCounters(c: Partial<TunnelCounters>): void {
    this.current = { ...this.current, ...c };
  }

  counters(): TunnelCounters {
    return { ...this.current };
  }

  eventDrops(): number {
    return 0;
  }

  /** Changes applied, in order (servers only, like the real one); setPeers records its diff. */
  readonly peerUpdates: { upsert: ServerPeer[]; remove: string[] }[] = [];
  /** The peer set as the data plane holds it, by id. */
  readonly peers = new Map<string, ServerPeer>();
  private readonly stats = new Map<string, PeerStats>();
  /** Makes the next peer update fail as a whole, as a broken data plane would. */
  failNextUpdate: Error | null = null;

  setPeers(peers: ServerPeer[]): PeerUpdateResult {
    this.serverOnly();
    if (!Array.isArray(peers))
      throw new NativeTunnelError('ERR_FERRY_OPTIONS', 'peers must be an array');
    const wanted = new Set(peers.map((p) => p?.id));
    return this.updatePeers({
      remove: [...this.peers.keys()].filter((id) => !wanted.has(id)),
      upsert: peers,
    });
  }

  /** Same rules as the native registry: removals first, then each upsert on its own. */
  updatePeers(change: PeerChange): PeerUpdateResult {
    this.serverOnly();
    const { upsert, remove, rejected } = screenChange(change);
    // Fail closed: a refused upsert leaves no older entry of that peer behind.
    for (const id of [...remove, ...rejected.map((r) => r.id)]) {
      this.peers.delete(id);
      this.stats.delete(id);
    }
    if (this.failNextUpdate) {
      const e = this.failNextUpdate;
      this.failNextUpdate = null;
      this.peerUpdates.push({ upsert: [], remove: [...remove] });
      throw e;
    }
    const applied: ServerPeer[] = [];
    for (const p of upsert) {
      const clash = [...this.peers.values()].find(
        (o) => o.id !== p.id && (o.publicKey === p.publicKey || o.address === p.address),
      );
      if (clash) {
        this.peers.delete(p.id);
        this.stats.delete(p.id);
        rejected.push({
          id: p.id,
          reason:
            clash.publicKey === p.publicKey
              ? 'public key in use by another peer'
              : 'address in use by another peer',
        });
        continue;
      }
      this.peers.set(p.id, { ...p });
      if (!this.stats.has(p.id))
        this.stats.set(p.id, { id: p.id, rxBytes: 0, txBytes: 0, handshakeAgeMs: null });
      applied.push({ ...p });
    }
    this.peerUpdates.push({ upsert: applied, remove: [...remove] });
    return { rejected };
  }

  peerStats(): PeerStats[] {
    this.serverOnly();
    return [...this.stats.values()].map((s) => ({ ...s }));
  }

  /** The start options' peers (already validated as a whole). */
  seedPeers(peers: ServerPeer[]): void {
    for (const p of peers) {
      this.peers.set(p.id, { ...p });
      this.stats.set(p.id, { id: p.id, rxBytes: 0, txBytes: 0, handshakeAgeMs: null });
    }
  }

  /** Sets a peer's statistics as the data plane would report them (the peer must exist). */
  setPeerStats(id: string, s: Partial<Omit<PeerStats, 'id'>>): void {
    const cur = this.stats.get(id);
    if (!cur) throw new Error(`no peer ${id}`);
    this.stats.set(id, { ...cur, ...s });
  }

  /**
   * Hands a stranger's connection to the server's onStranger, as the native TLS listener does (false when
   * none is registered: the native engine would close it).
   */
  handOverStranger(fd: number, head: Buffer): boolean {
    this.serverOnly();
    const take = (this.options as ServerTunnelOptions).onStranger;
    if (this.closed || !take) return false;
    take(fd, head);
    return true;
  }

  private serverOnly(): void {
    if (this.kind !== 'server')
      throw new NativeTunnelError('ERR_FERRY_START', 'only a server has peers');
  }

  close(): void {
    if (this.closed) return;
    this.emit({ type: 'state', state: 'closed', counters: this.counters() });
    this.closed = true;
  }
}

/** Fake data plane: real X25519 key handling (node:crypto), fake tunnels, same validation and errors. */
export class FakeDataPlane implements DataPlane {
  readonly tunnels: FakeTunnel[] = [];
  private readonly interfaces = new Set<string>();

  generatePrivateKey(): string {
    const { privateKey } = generateKeyPairSync('x25519');
    const d = privateKey.export({ format: 'jwk' }).d;
    if (!d) throw new Error('x25519 key export failed');
    return Buffer.from(d, 'base64url').toString('base64');
  }

  publicKey(privateKey: string): string {
    const raw = Buffer.from(privateKey.trim(), 'base64');
    if (raw.length !== 32 || raw.toString('base64') !== privateKey.trim()) {
      throw new NativeTunnelError('ERR_FERRY_KEY', 'not a base64 32-byte key');
    }
    const key = createPrivateKey({
      key: { kty: 'OKP', crv: 'X25519', d: raw.toString('base64url'), x: '' },
      format: 'jwk',
    });
    const x = createPublicKey(key).export({ format: 'jwk' }).x;
    if (!x) throw new Error('x25519 public key export failed');
    return Buffer.from(x, 'base64url').toString('base64');
  }

  startClient(options: ClientTunnelOptions, onEvent: TunnelEventListener): Tunnel {
    validateClientOptions(options);
    return this.start('client', options, onEvent);
  }

  startServer(options: ServerTunnelOptions, onEvent: TunnelEventListener): ServerTunnel {
    validateServerOptions(options);
    const t = this.start('server', options, onEvent);
    t.seedPeers(options.peers);
    return t;
  }

  private start(
    kind: 'client' | 'server',
    options: ClientTunnelOptions | ServerTunnelOptions,
    onEvent: TunnelEventListener,
  ): FakeTunnel {
    // Like the kernel, refuse a second live interface of the same name.
    const live = this.tunnels.filter((t) => !t.closed).map((t) => t.interfaceName);
    this.interfaces.clear();
    for (const n of live) this.interfaces.add(n);
    if (this.interfaces.has(options.interfaceName)) {
      throw new NativeTunnelError(
        'ERR_FERRY_TUN',
        `cannot create TUN interface ${options.interfaceName}: name in use`,
      );
    }
    const t = new FakeTunnel(kind, options, onEvent);
    this.tunnels.push(t);
    t.emit(
      kind === 'client'
        ? { type: 'state', state: 'connecting' }
        : { type: 'state', state: 'connected' },
    );
    return t;
  }
}

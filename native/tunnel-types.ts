// Types and option validation shared by the native data-plane wrapper (index.ts) and its fake.
import { isTlsServerName } from '../contracts/tls-server-name.js';

import { helloTemplateSchema, type HelloTemplate } from './hello-template.js';

export type Cipher = 'aes-256-gcm' | 'chacha20-poly1305';
export type Transport = 'udp' | 'tcp' | 'tls';
export const CIPHERS: readonly Cipher[] = ['aes-256-gcm', 'chacha20-poly1305'];

export interface ClientTunnelOptions {
  interfaceName: string;
  /** Tunnel address of this device in CIDR form, e.g. 10.77.0.2/24. */
  address: string;
  mtu?: number;
  /** Base64 X25519 private key of the device. */
  privateKey: string;
  serverHost: string;
  serverPort: number;
  serverPublicKey: string;
  cipher?: Cipher;
  /** New session keys after this many seconds (1..120, default 120). */
  rekeySeconds?: number;
  /** New session keys after this many packets in either direction (default 2^32). */
  rekeyPackets?: number;
  /** Interval of encrypted pings that measure RTT (1..60 s, default 5). */
  keepaliveSeconds?: number;
  /**
   * udp (default); tcp, for networks that block UDP; tls, for networks that also block fully encrypted TCP
   * or let only browser-like TLS through (needs `tls`; docs/protocol.md, "TLS transport").
   */
  transport?: Transport;
  /** The TLS transport's first flight (required with transport tls, refused without it). */
  tls?: ClientTlsOptions;
  /**
   * Over tcp or tls: race a UDP path to this port of the server (its Ferry UDP port). The first
   * initiation goes over UDP at once, the stream starts 250 ms later with the same initiation,
   * and the path whose answer arrives first carries the tunnel (a `path` event says which).
   */
  raceUdpPort?: number;
  /** TUN TSO and UDP GSO/GRO (default true); off only to measure their effect. */
  offload?: boolean;
  /** The largest IP packet the path to the server carries (576..65535, default 1500); bounds padding. */
  pathMtu?: number;
  /**
   * A routing mark on the tunnel's own sockets (0..2^32-1, default 0 = none), so that policy routing
   * sends them around the tunnel when the default route goes into it. Needs CAP_NET_ADMIN.
   */
  fwmark?: number;
}

/** What the client's ClientHello copies and names. */
export interface ClientTlsOptions {
  /** The node's tls_server_name (its cover site's DNS name), sent as the hello's server_name. */
  serverName: string;
  /** The browser ClientHello template (loadHelloTemplate() from native/hello-template.ts). */
  hello: HelloTemplate;
}

/**
 * Takes a stranger's connection on a server's TLS port: `fd` is the accepted socket's descriptor, now the
 * callee's (the engine no longer reads, writes or closes it), `head` every byte the engine read from it.
 */
export type StrangerHandler = (fd: number, head: Buffer) => void;

/**
 * Takes an API stream's connection on the TLS port (an authentic hello asking for the control plane): `fd`
 * is the callee's, `reply` the node's answer to write to it first (its server flight).
 */
export type ApiStreamHandler = (fd: number, reply: Buffer) => void;

export interface ServerPeer {
  /**
   * Stable name chosen by the caller (the relay uses the device id): events and statistics name
   * peers by it, never by key or address. 1-64 characters from A-Z a-z 0-9 _ . : -
   */
  id: string;
  publicKey: string;
  /** The peer's IPv4 tunnel address (a /32, without the suffix). */
  address: string;
}

/** An incremental change of a server's peer set. Removals always apply first. */
export interface PeerChange {
  /** Peers to add, or to change (same id, new key or address: the old sessions end). */
  upsert?: ServerPeer[];
  /** Ids of peers to remove; their sessions and TCP connections end at once. Unknown ids are ignored. */
  remove?: string[];
}

export interface PeerRejection {
  id: string;
  reason: string;
}

/**
 * What a peer update refused. Everything else was applied, removals in every case; a refused
 * upsert also removes any earlier entry of that id (fail closed: a peer whose new key cannot be
 * used must not keep its old one).
 */
export interface PeerUpdateResult {
  rejected: PeerRejection[];
}

export interface PeerStats {
  id: string;
  /**
   * Ferry message bytes received from and sent to this peer since it was added (headers, tags
   * and padding included, as WireGuard counts), monotonic while the peer stays.
   */
  rxBytes: number;
  txBytes: number;
  /** Milliseconds since the peer's last completed handshake; null if it never completed one. */
  handshakeAgeMs: number | null;
}

export interface ServerTunnelOptions {
  interfaceName: string;
  address: string;
  mtu?: number;
  privateKey: string;
  listenHost: string;
  listenPort: number;
  /** TCP transport listener (both or neither). */
  tcpListenHost?: string;
  tcpListenPort?: number;
  /**
   * TLS transport listener (both or neither). A connection whose first flight is not an authentic, fresh
   * ClientHello is a stranger's: it goes to onStranger (the relay splices it to the cover site), or is closed.
   */
  tlsListenHost?: string;
  tlsListenPort?: number;
  /**
   * Called on the JS thread for each stranger on the TLS port. An exception it throws closes the descriptor.
   * Unauthenticated TLS connections share the TCP limits below; past them a new one is handed over unread.
   */
  onStranger?: StrangerHandler;
  /**
   * Called on the JS thread for each authentic hello on the TLS port that asks for the control plane (API
   * access through relays). Without it such a hello is a stranger's. Needs tlsListenPort.
   */
  onApiStream?: ApiStreamHandler;
  /**
   * Unauthenticated TCP connections are closed this long after accept, whatever they sent (default 10000); on
   * the TLS port, a connection still without a whole hello then is a stranger's.
   */
  tcpAuthTimeoutMs?: number;
  /** Authenticated TCP connections held at once, all peers together (default 16384; each peer keeps at most 4). */
  tcpMaxConnections?: number;
  /** Unauthenticated TCP connections held at once (default 4096); past it new ones are closed at once. */
  tcpMaxPending?: number;
  /** The same per source address (default 64). */
  tcpPendingPerSource?: number;
  /** Initiations a second one source address may have checked (default 20); more are dropped and counted. */
  handshakesPerSource?: number;
  /** The largest IP packet the paths to clients carry (576..65535, default 1500); bounds padding. */
  pathMtu?: number;
  peers: ServerPeer[];
  offload?: boolean;
}

export interface TunnelCounters {
  txPackets: number;
  txBytes: number;
  rxPackets: number;
  rxBytes: number;
  /** Every silently dropped datagram or packet. */
  dropped: number;
  replayDropped: number;
  authDropped: number;
  handshakes: number;
  /** Initiations dropped unexamined: over a source's budget, or the handshake queue was full. */
  handshakesDropped: number;
}

/** Counters before anything happened. */
export const ZERO_COUNTERS: Readonly<TunnelCounters> = Object.freeze({
  txPackets: 0,
  txBytes: 0,
  rxPackets: 0,
  rxBytes: 0,
  dropped: 0,
  replayDropped: 0,
  authDropped: 0,
  handshakes: 0,
  handshakesDropped: 0,
});

/**
 * What a TCP or TLS connection attempt ran into (native/src/core/stream-outcome.h):
 * refused: the connect was refused (a RST, or an ICMP unreachable or prohibited, answered the SYN);
 * connect-timeout: nothing answered the SYN within 3 s;
 * reset: the connection was reset after the first flight went out (a censor's RST to a hello or a
 * first packet: a socket error before any answer);
 * closed: the node (or someone) closed it before any answer (a FIN; also bytes that were not the
 * node's answer, on which the client dropped it);
 * silent: nothing came back within the handshake timeout (5 s) after the first flight;
 * answered: the node's first answer arrived (Ferry's handshake response over TCP; the TLS server
 * flight over TLS).
 */
export type StreamOutcome =
  'refused' | 'connect-timeout' | 'reset' | 'closed' | 'silent' | 'answered';

interface EventBase {
  /** Events the native side could not queue (bounded queue, never blocks the data plane). */
  eventDrops: number;
}

export type TunnelEvent =
  | (EventBase & {
      type: 'state';
      /** failed: a data-plane thread stopped on an error (see the error event); the tunnel carries nothing. */
      state: 'connecting' | 'connected' | 'closed' | 'failed';
      counters?: TunnelCounters;
    })
  | (EventBase & { type: 'rtt'; rttMs: number })
  | (EventBase & { type: 'counters'; counters: TunnelCounters })
  /** Server: `peer` is the id given with the peer. */
  | (EventBase & { type: 'rekey'; cipher: Cipher; peer?: string })
  | (EventBase & { type: 'peer'; state: 'connected'; peer: string; cipher: Cipher })
  /** Client: handshakes go unanswered (node unreachable, or this machine's clock is off). */
  | (EventBase & { type: 'warning'; code: 'handshake-unanswered'; message: string })
  /**
   * Client over TCP or TLS: what one connection attempt ran into, once per attempt (at most one a second),
   * for the autopilot's classification. No address, port or time (no-logs rule).
   */
  | (EventBase & {
      type: 'transport';
      transport: 'tcp' | 'tls';
      outcome: StreamOutcome;
    })
  /** Client racing UDP beside a stream: the path the first answered handshake chose, once. */
  | (EventBase & { type: 'path'; transport: Transport })
  | (EventBase & { type: 'error'; message: string });

export type TunnelEventListener = (event: TunnelEvent) => void;

/** A running tunnel. close() stops the data-plane threads and removes the interface; idempotent. */
export interface Tunnel {
  readonly interfaceName: string;
  counters(): TunnelCounters;
  eventDrops(): number;
  close(): void;
}

/** A server tunnel: its peer set changes while it runs (key rotation, revocation). */
export interface ServerTunnel extends Tunnel {
  /**
   * Makes the peer set exactly `peers`: peers not listed are removed (always, even when some
   * upserts are rejected); unchanged peers keep their sessions.
   */
  setPeers(peers: ServerPeer[]): PeerUpdateResult;
  /** Applies a change: the removals in every case, then each upsert on its own. */
  updatePeers(change: PeerChange): PeerUpdateResult;
  /** Per-peer byte counts and handshake age, for metering and liveness. */
  peerStats(): PeerStats[];
}

/** The seam between the engine/relay and the data plane; the fake in tunnel.fake.ts implements it too. */
export interface DataPlane {
  generatePrivateKey(): string;
  publicKey(privateKey: string): string;
  startClient(options: ClientTunnelOptions, onEvent: TunnelEventListener): Tunnel;
  startServer(options: ServerTunnelOptions, onEvent: TunnelEventListener): ServerTunnel;
}

export type NativeErrorCode =
  | 'ERR_FERRY_OPTIONS'
  | 'ERR_FERRY_KEY'
  | 'ERR_FERRY_TUN'
  | 'ERR_FERRY_START'
  | 'ERR_FERRY_UNSUPPORTED'
  | 'ERR_FERRY_NOT_BUILT'
  /** A socket could not be made or marked (SO_MARK needs CAP_NET_ADMIN). */
  | 'ERR_FERRY_MARK';

export class NativeTunnelError extends Error {
  readonly code: NativeErrorCode;
  constructor(code: NativeErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'NativeTunnelError';
    this.code = code;
  }
}

const KEY_RE = /^[A-Za-z0-9+/]{43}=$/;
const IFNAME_RE = /^[A-Za-z0-9_.-]{1,15}$/;
const IPV4_RE = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

function bad(message: string): never {
  throw new NativeTunnelError('ERR_FERRY_OPTIONS', message);
}

/** A canonical base64 encoding of 32 bytes (what the native side accepts: it re-encodes and compares). */
export function isBase64Key(text: string): boolean {
  return KEY_RE.test(text) && Buffer.from(text, 'base64').toString('base64') === text;
}

export function isIPv4(text: string): boolean {
  return IPV4_RE.test(text);
}

export function isIPv4Cidr(text: string): boolean {
  const [ip, prefix, ...rest] = text.split('/');
  return (
    rest.length === 0 &&
    ip !== undefined &&
    isIPv4(ip) &&
    prefix !== undefined &&
    /^(3[0-2]|[12]?\d)$/.test(prefix)
  );
}

function checkInt(name: string, v: number | undefined, lo: number, hi: number): void {
  if (v !== undefined && !(Number.isInteger(v) && v >= lo && v <= hi))
    bad(`${name} must be an integer from ${lo} to ${hi}`);
}

function checkCommon(o: {
  interfaceName: string;
  address: string;
  mtu?: number;
  privateKey: string;
}): void {
  if (!IFNAME_RE.test(o.interfaceName))
    bad('interfaceName must be 1-15 letters, digits, "-", "_" or "."');
  if (!isIPv4Cidr(o.address)) bad('address must be an IPv4 CIDR such as 10.77.0.2/24');
  checkInt('mtu', o.mtu, 576, 9000);
  if (!isBase64Key(o.privateKey)) bad('privateKey must be a base64 32-byte key');
}

export function validateClientOptions(o: ClientTunnelOptions): void {
  checkCommon(o);
  if (o.serverHost.length === 0) bad('serverHost is required');
  checkInt('serverPort', o.serverPort, 1, 65535);
  if (!isBase64Key(o.serverPublicKey)) bad('serverPublicKey must be a base64 32-byte key');
  if (o.cipher !== undefined && !CIPHERS.includes(o.cipher))
    bad(`cipher must be one of ${CIPHERS.join(', ')}`);
  checkInt('rekeySeconds', o.rekeySeconds, 1, 120);
  checkInt('rekeyPackets', o.rekeyPackets, 16, 2 ** 50);
  checkInt('keepaliveSeconds', o.keepaliveSeconds, 1, 60);
  if (o.transport !== undefined && !['udp', 'tcp', 'tls'].includes(o.transport))
    bad('transport must be udp, tcp or tls');
  if ((o.transport === 'tls') !== (o.tls !== undefined))
    bad('the tls option goes with transport tls, and only with it');
  if (o.raceUdpPort !== undefined) {
    checkInt('raceUdpPort', o.raceUdpPort, 1, 65535);
    if (o.transport !== 'tcp' && o.transport !== 'tls')
      bad('raceUdpPort races UDP beside transport tcp or tls');
  }
  if (o.tls !== undefined) {
    if (typeof o.tls.serverName !== 'string' || !isTlsServerName(o.tls.serverName))
      bad('tls.serverName must be a DNS name (not an IP address)');
    const hello = helloTemplateSchema.safeParse(o.tls.hello);
    if (!hello.success)
      bad(`tls.hello is not a ClientHello template: ${hello.error.issues[0]?.message}`);
  }
  checkInt('pathMtu', o.pathMtu, 576, 65535);
  checkInt('fwmark', o.fwmark, 0, 2 ** 32 - 1);
}

export function validateServerOptions(o: ServerTunnelOptions): void {
  checkCommon(o);
  checkInt('listenPort', o.listenPort, 1, 65535);
  if ((o.tcpListenHost === undefined) !== (o.tcpListenPort === undefined))
    bad('tcpListenHost and tcpListenPort go together');
  checkInt('tcpListenPort', o.tcpListenPort, 1, 65535);
  if ((o.tlsListenHost === undefined) !== (o.tlsListenPort === undefined))
    bad('tlsListenHost and tlsListenPort go together');
  checkInt('tlsListenPort', o.tlsListenPort, 1, 65535);
  if (o.onStranger !== undefined && typeof o.onStranger !== 'function')
    bad('onStranger must be a function');
  if (o.onApiStream !== undefined && typeof o.onApiStream !== 'function')
    bad('onApiStream must be a function');
  if (o.onApiStream !== undefined && o.tlsListenPort === undefined)
    bad('onApiStream needs tlsListenPort');
  checkInt('tcpAuthTimeoutMs', o.tcpAuthTimeoutMs, 100, 600_000);
  checkInt('tcpMaxConnections', o.tcpMaxConnections, 1, 1 << 20);
  checkInt('tcpMaxPending', o.tcpMaxPending, 1, 1 << 20);
  checkInt('tcpPendingPerSource', o.tcpPendingPerSource, 1, 1 << 20);
  checkInt('handshakesPerSource', o.handshakesPerSource, 1, 100_000);
  checkInt('pathMtu', o.pathMtu, 576, 65535);
  validatePeers(o.peers);
}

const PEER_ID_RE = /^[A-Za-z0-9_.:-]{1,64}$/;

/** Why one peer cannot be used, or null when it is well-formed. */
export function peerProblem(p: ServerPeer): string | null {
  if (typeof p.id !== 'string' || !PEER_ID_RE.test(p.id))
    return 'peer id must be 1-64 characters from A-Z a-z 0-9 _ . : -';
  if (typeof p.publicKey !== 'string' || !isBase64Key(p.publicKey))
    return 'peer publicKey must be a base64 32-byte key';
  if (typeof p.address !== 'string' || !isIPv4(p.address))
    return 'peer address must be an IPv4 address';
  return null;
}

/** A complete peer list (start options): every peer well-formed, ids, keys and addresses unique. */
export function validatePeers(peers: ServerPeer[]): void {
  if (!Array.isArray(peers)) bad('peers must be an array');
  const ids = new Set<string>();
  const keys = new Set<string>();
  const addrs = new Set<string>();
  for (const p of peers) {
    const problem = peerProblem(p);
    if (problem) bad(problem);
    if (ids.has(p.id)) bad('duplicate peer id');
    if (keys.has(p.publicKey)) bad('duplicate peer public key');
    if (addrs.has(p.address)) bad('duplicate peer address');
    ids.add(p.id);
    keys.add(p.publicKey);
    addrs.add(p.address);
  }
}

/**
 * Splits a change into what can go to the data plane and what is refused for its form; removals
 * are never refused (an id that is not well-formed cannot name a peer, so it is ignored).
 */
export function screenChange(change: PeerChange): {
  upsert: ServerPeer[];
  remove: string[];
  rejected: PeerRejection[];
} {
  if (typeof change !== 'object' || change === null) bad('a peer change must be an object');
  const upsertIn = change.upsert ?? [];
  const removeIn = change.remove ?? [];
  if (!Array.isArray(upsertIn) || !Array.isArray(removeIn)) bad('upsert and remove must be arrays');
  const rejected: PeerRejection[] = [];
  const upsert: ServerPeer[] = [];
  for (const p of upsertIn) {
    const problem = peerProblem(p);
    if (problem) rejected.push({ id: typeof p?.id === 'string' ? p.id : '', reason: problem });
    else upsert.push({ id: p.id, publicKey: p.publicKey, address: p.address });
  }
  const remove = removeIn.filter(
    (id): id is string => typeof id === 'string' && PEER_ID_RE.test(id),
  );
  return { upsert, remove, rejected };
}

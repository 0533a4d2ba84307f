// Types and option validation shared by the native data-plane wrapper (index.ts) and its fake.

export type Cipher = 'aes-256-gcm' | 'chacha20-poly1305';
export type Transport = 'udp' | 'tcp';
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
  /** udp (default) or tcp, for networks that block UDP. */
  transport?: Transport;
  /** TUN TSO and UDP GSO/GRO (default true); off only to measure their effect. */
  offload?: boolean;
}

export interface ServerPeer {
  publicKey: string;
  /** The peer's IPv4 tunnel address (a /32, without the suffix). */
  address: string;
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
  /** Unauthenticated TCP connections are closed this long after accept, whatever they sent (default 10000). */
  tcpAuthTimeoutMs?: number;
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
});

interface EventBase {
  /** Events the native side could not queue (bounded queue, never blocks the data plane). */
  eventDrops: number;
}

export type TunnelEvent =
  | (EventBase & {
      type: 'state';
      state: 'connecting' | 'connected' | 'closed';
      counters?: TunnelCounters;
    })
  | (EventBase & { type: 'rtt'; rttMs: number })
  | (EventBase & { type: 'counters'; counters: TunnelCounters })
  | (EventBase & { type: 'rekey'; cipher: Cipher; peer?: number })
  | (EventBase & { type: 'peer'; state: 'connected'; peer: number; cipher: Cipher })
  | (EventBase & { type: 'error'; message: string });

export type TunnelEventListener = (event: TunnelEvent) => void;

/** A running tunnel. close() stops the data-plane threads and removes the interface; idempotent. */
export interface Tunnel {
  readonly interfaceName: string;
  counters(): TunnelCounters;
  eventDrops(): number;
  close(): void;
}

/** A server tunnel: its peer set can be replaced while it runs (key rotation, revocation). */
export interface ServerTunnel extends Tunnel {
  /** Unchanged peers keep their sessions; removed peers are cut off at once. */
  setPeers(peers: ServerPeer[]): void;
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
  | 'ERR_FERRY_NOT_BUILT';

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

export function isBase64Key(text: string): boolean {
  return KEY_RE.test(text) && Buffer.from(text, 'base64').length === 32;
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
  if (o.transport !== undefined && o.transport !== 'udp' && o.transport !== 'tcp')
    bad('transport must be udp or tcp');
}

export function validateServerOptions(o: ServerTunnelOptions): void {
  checkCommon(o);
  checkInt('listenPort', o.listenPort, 1, 65535);
  if ((o.tcpListenHost === undefined) !== (o.tcpListenPort === undefined))
    bad('tcpListenHost and tcpListenPort go together');
  checkInt('tcpListenPort', o.tcpListenPort, 1, 65535);
  checkInt('tcpAuthTimeoutMs', o.tcpAuthTimeoutMs, 100, 600_000);
  validatePeers(o.peers);
}

export function validatePeers(peers: ServerPeer[]): void {
  const keys = new Set<string>();
  const addrs = new Set<string>();
  for (const p of peers) {
    if (!isBase64Key(p.publicKey)) bad('peer publicKey must be a base64 32-byte key');
    if (!isIPv4(p.address)) bad('peer address must be an IPv4 address');
    if (keys.has(p.publicKey)) bad('duplicate peer public key');
    if (addrs.has(p.address)) bad('duplicate peer address');
    keys.add(p.publicKey);
    addrs.add(p.address);
  }
}

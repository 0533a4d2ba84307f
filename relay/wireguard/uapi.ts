// The WireGuard cross-platform userspace API (UAPI): text commands over the interface's unix
// socket, as wireguard-go serves it at /var/run/wireguard/<interface>.sock.
import net from 'node:net';

export interface PeerSpec {
  /** base64 */
  publicKey: string;
  allowedIps: string[];
  persistentKeepalive?: number;
}

export type PeerOp = { kind: 'upsert'; peer: PeerSpec } | { kind: 'remove'; publicKey: string };

export interface PeerStatus {
  publicKey: string;
  endpoint: string | null;
  lastHandshakeMs: number | null;
  rxBytes: number;
  txBytes: number;
  allowedIps: string[];
}

export interface DeviceStatus {
  publicKey: string | null;
  listenPort: number | null;
  peers: PeerStatus[];
}

const hex = (b64: string) => Buffer.from(b64, 'base64').toString('hex');
const b64 = (h: string) => Buffer.from(h, 'hex').toString('base64');

/** The `set=1` body for device settings and peer changes; the caller adds nothing. */
export function formatSet(
  device: { privateKey?: string; listenPort?: number; replacePeers?: boolean },
  ops: readonly PeerOp[],
): string {
  const lines = ['set=1'];
  if (device.privateKey !== undefined) lines.push(`private_key=${hex(device.privateKey)}`);
  if (device.listenPort !== undefined) lines.push(`listen_port=${device.listenPort}`);
  if (device.replacePeers) lines.push('replace_peers=true');
  for (const op of ops) {
    if (op.kind === 'remove') {
      lines.push(`public_key=${hex(op.publicKey)}`, 'remove=true');
      continue;
    }
    lines.push(`public_key=${hex(op.peer.publicKey)}`, 'replace_allowed_ips=true');
    if (op.peer.persistentKeepalive !== undefined) {
      lines.push(`persistent_keepalive_interval=${op.peer.persistentKeepalive}`);
    }
    for (const ip of op.peer.allowedIps) lines.push(`allowed_ip=${ip}`);
  }
  return `${lines.join('\n')}\n\n`;
}

/** Parses a `get=1` answer (without its trailing errno line). */
export function parseGet(text: string): DeviceStatus {
  const status: DeviceStatus = { publicKey: null, listenPort: null, peers: [] };
  let peer: (PeerStatus & { sec: number; nsec: number }) | undefined;
  const finish = () => {
    if (!peer) return;
    const { sec, nsec, ...rest } = peer;
    status.peers.push({
      ...rest,
      lastHandshakeMs: sec === 0 && nsec === 0 ? null : sec * 1000 + Math.floor(nsec / 1e6),
    });
  };
  for (const line of text.split('\n')) {
    const eq = line.indexOf('=');
    if (eq < 0) continue;
    const key = line.slice(0, eq);
    const value = line.slice(eq + 1);
    if (key === 'public_key') {
      finish();
      peer = {
        publicKey: b64(value),
        endpoint: null,
        lastHandshakeMs: null,
        rxBytes: 0,
        txBytes: 0,
        allowedIps: [],
        sec: 0,
        nsec: 0,
      };
    } else if (!peer) {
      if (key === 'listen_port') status.listenPort = Number(value);
    } else if (key === 'endpoint') peer.endpoint = value;
    else if (key === 'last_handshake_time_sec') peer.sec = Number(value);
    else if (key === 'last_handshake_time_nsec') peer.nsec = Number(value);
    else if (key === 'rx_bytes') peer.rxBytes = Number(value);
    else if (key === 'tx_bytes') peer.txBytes = Number(value);
    else if (key === 'allowed_ip') peer.allowedIps.push(value);
  }
  finish();
  return status;
}

export class UapiError extends Error {
  constructor(
    readonly errno: number,
    message: string,
  ) {
    super(message);
    this.name = 'UapiError';
  }
}

/**
 * One request/answer exchange on the socket; answers end with `errno=N` and a blank line. Only
 * the tail is searched for that end: a dump of 65,536 peers is tens of megabytes.
 */
export function exchange(socketPath: string, request: string, timeoutMs = 60_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.createConnection(socketPath);
    const chunks: Buffer[] = [];
    let tail = '';
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      fn();
    };
    const timer = setTimeout(
      () => socket.destroy(new Error(`UAPI ${socketPath}: no answer in ${timeoutMs} ms`)),
      timeoutMs,
    );
    socket.on('connect', () => socket.write(request));
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      tail = (tail + chunk.toString('latin1')).slice(-64);
      const m = /(?:^|\n)errno=(-?\d+)\n\n$/.exec(tail);
      if (!m) return;
      socket.end();
      const errno = Number(m[1]);
      const text = Buffer.concat(chunks).toString('utf8');
      settle(() =>
        errno !== 0
          ? reject(new UapiError(errno, `UAPI ${socketPath}: errno ${errno}`))
          : resolve(text.slice(0, text.lastIndexOf('errno='))),
      );
    });
    socket.on('error', (e) => settle(() => reject(e)));
    socket.on('close', () =>
      settle(() => reject(new Error(`UAPI ${socketPath}: closed before the answer`))),
    );
  });
}

export class UapiClient {
  constructor(readonly socketPath: string) {}

  async set(device: Parameters<typeof formatSet>[0], ops: readonly PeerOp[] = []): Promise<void> {
    await exchange(this.socketPath, formatSet(device, ops));
  }

  async get(): Promise<DeviceStatus> {
    return parseGet(await exchange(this.socketPath, 'get=1\n\n'));
  }
}

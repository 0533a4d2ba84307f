// Times authenticated latency probes (docs/latency-probes.md) to one node over UDP: `count`
// probes a little apart, each with a fresh nonce, each answered or lost within its timeout.
// Answers that do not carry one of our nonces under the node's key are ignored. The socket comes
// through the Datagrams seam (datagrams.ts): the real one carries the tunnel sockets' mark.
import { createHmac, randomBytes } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { NodeLatency } from '../../contracts/index.js';
import {
  PROBE_KEY_BYTES,
  encodeProbeRequest,
  openProbeReply,
  type HmacSha256,
} from '../../platform/probes/latency-probe.js';
import { markedDatagrams, type Datagrams } from './datagrams.js';
import { round2, summarizeRtts } from './statistics.js';

export const PROBE_METHOD = 'authenticated UDP probe';

const hmacSha256: HmacSha256 = (key, message) => createHmac('sha256', key).update(message).digest();

/** A node to probe, as GET /nodes describes it (see `probeTargets`). */
export interface ProbeTarget {
  id: string;
  region: string;
  /** The node's endpoint host (an IP address or a name). */
  host: string;
  /** Its probe port. */
  port: number;
  /** Its probe key: base64 as the API gives it, or the 32 bytes. */
  key: string | Uint8Array;
}

export interface ProbeNodeOptions {
  count: number;
  /** How long one probe waits for its answer. */
  timeoutMs?: number;
  /** Between two probes to the node. */
  intervalMs?: number;
  /** performance.now() by which it ends: no probe is sent after it, none is waited for. */
  deadline?: number;
  /** Aborting rejects with the signal's reason and closes the socket. */
  signal?: AbortSignal;
  /**
   * The probe's socket (default: markedDatagrams(), the native addon's marked sockets). A socket
   * that cannot be made as required rejects the probe, nothing sent: never an unmarked probe.
   */
  datagrams?: Datagrams;
}

export const DEFAULT_PROBE_TIMEOUT_MS = 1_000;
export const DEFAULT_PROBE_INTERVAL_MS = 150;

/**
 * Probes one node; what it could not measure shows as loss. Rejects only when aborted, or when
 * this host cannot make a marked socket (the engine lacks CAP_NET_ADMIN).
 */
export async function probeNode(target: ProbeTarget, opts: ProbeNodeOptions): Promise<NodeLatency> {
  opts.signal?.throwIfAborted();
  const key = probeKeyBytes(target.key);
  if (!key || opts.count < 1) return latencyOf(target, []);
  let address: string;
  try {
    address = isIP(target.host) ? target.host : (await lookup(target.host)).address;
  } catch {
    // The name does not resolve: nothing was sent, nothing came back.
    return latencyOf(target, []);
  }
  opts.signal?.throwIfAborted();
  const rtts = await timeProbes(address, target.port, key, opts);
  return latencyOf(target, rtts);
}

/** The 32 key bytes, or undefined when `key` is not a probe key. */
export function probeKeyBytes(key: string | Uint8Array): Uint8Array | undefined {
  const bytes = typeof key === 'string' ? Buffer.from(key, 'base64') : key;
  if (bytes.length !== PROBE_KEY_BYTES) return undefined;
  if (typeof key === 'string' && Buffer.from(bytes).toString('base64') !== key) return undefined;
  return bytes;
}

function latencyOf(target: ProbeTarget, rtts: readonly (number | null)[]): NodeLatency {
  const s = summarizeRtts(rtts);
  return {
    node_id: target.id,
    region: target.region,
    method: PROBE_METHOD,
    samples: s.samples,
    avg_ms: s.avgMs === null ? null : round2(s.avgMs),
    jitter_ms: s.jitterMs === null ? null : round2(s.jitterMs),
    loss: s.loss,
  };
}

interface Pending {
  index: number;
  sentAt: number;
  timer: NodeJS.Timeout;
}

/** The round trips in send order (null: lost); only the probes sent before the deadline. */
function timeProbes(
  address: string,
  port: number,
  key: Uint8Array,
  opts: ProbeNodeOptions,
): Promise<(number | null)[]> {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS;
  const intervalMs = opts.intervalMs ?? DEFAULT_PROBE_INTERVAL_MS;
  // Made before the promise: a socket that cannot be marked rejects the probe with that error.
  const socket = (opts.datagrams ?? markedDatagrams()).open(isIP(address) === 6 ? 6 : 4);
  const rtts: (number | null)[] = [];
  const pending = new Map<string, Pending>();
  const timers = new Set<NodeJS.Timeout>();
  /** Lowered when the deadline leaves no room for the rest. */
  let planned = opts.count;
  let finished = false;

  return new Promise((resolve, reject) => {
    const finish = (error?: unknown) => {
      if (finished) return;
      finished = true;
      for (const t of timers) clearTimeout(t);
      for (const p of pending.values()) clearTimeout(p.timer);
      opts.signal?.removeEventListener('abort', onAbort);
      socket.close();
      if (error === undefined) resolve(rtts);
      else reject(error);
    };
    const onAbort = () => finish(opts.signal!.reason);
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    const later = (ms: number, f: () => void) => {
      const t = setTimeout(() => {
        timers.delete(t);
        f();
      }, ms);
      timers.add(t);
    };
    const doneIfAllIn = () => {
      if (rtts.length === planned && pending.size === 0) finish();
    };

    socket.onMessage((msg) => {
      const nonce = openProbeReply(msg, key, hmacSha256);
      if (!nonce) return;
      const id = Buffer.from(nonce).toString('hex');
      const p = pending.get(id);
      if (!p) return;
      rtts[p.index] = performance.now() - p.sentAt;
      clearTimeout(p.timer);
      pending.delete(id);
      doneIfAllIn();
    });

    const sendOne = () => {
      if (finished) return;
      const nonce = randomBytes(16);
      const id = nonce.toString('hex');
      const index = rtts.push(null) - 1;
      const datagram = encodeProbeRequest(key, nonce, Date.now(), hmacSha256);
      const timer = setTimeout(() => {
        pending.delete(id);
        doneIfAllIn();
      }, timeoutMs);
      pending.set(id, { index, sentAt: performance.now(), timer });
      socket.send(datagram);
      if (rtts.length < planned) {
        const next = performance.now() + intervalMs;
        if (opts.deadline === undefined || next < opts.deadline) later(intervalMs, sendOne);
        // The deadline leaves no room for the rest: stop at what was sent.
        else planned = rtts.length;
      }
    };

    if (opts.deadline !== undefined) later(Math.max(0, opts.deadline - performance.now()), finish);
    // A socket that cannot connect: the node cannot be reached at all, nothing was measured.
    socket.connect(address, port).then(sendOne, () => finish());
  });
}

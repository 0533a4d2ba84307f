// Probes many nodes at once for `netcli latency-check --all` and smart routing: a bounded number
// of nodes in flight, and the whole round bounded in time.
import type { Node, NodeLatency } from '../../contracts/index.js';
import type { Datagrams } from './datagrams.js';
import {
  DEFAULT_PROBE_INTERVAL_MS,
  DEFAULT_PROBE_TIMEOUT_MS,
  PROBE_METHOD,
  probeNode,
  type ProbeTarget,
} from './udp-probe.js';

export interface ProbeNodesOptions {
  /** Probes per node. */
  count: number;
  /** How long one probe waits for its answer (default 1000 ms). */
  timeoutMs?: number;
  /** Between two probes to one node (default 150 ms). */
  intervalMs?: number;
  /** Nodes probed at once (default 16). */
  concurrency?: number;
  /**
   * The whole round's time budget in ms. Default: what the nodes need in waves of
   * `concurrency` ((count - 1) × interval + timeout each), plus a little; 10 nodes with count 5
   * take under 2 s.
   */
  deadlineMs?: number;
  /** Aborting rejects with the signal's reason; every socket is closed. */
  signal?: AbortSignal;
  /** Called with each node's result as it is ready (progress on a TTY, live lists). */
  onResult?: (result: NodeLatency, index: number) => void;
  /** The probes' sockets (see ProbeNodeOptions.datagrams). */
  datagrams?: Datagrams;
}

export const DEFAULT_PROBE_CONCURRENCY = 16;
/** A node is not started with less time than this left (timers fire a little early). */
const LEAST_USEFUL_MS = 5;

/**
 * Every node's latency, in the order given. A node that could not be reached, or that the
 * budget left no time for, shows loss 1 (and `samples` says how many probes went out). Rejects
 * when aborted, or when the probes' sockets cannot be marked.
 */
export async function probeNodes(
  targets: readonly ProbeTarget[],
  opts: ProbeNodesOptions,
): Promise<NodeLatency[]> {
  opts.signal?.throwIfAborted();
  const timeoutMs = opts.timeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS;
  const intervalMs = opts.intervalMs ?? DEFAULT_PROBE_INTERVAL_MS;
  const concurrency = Math.max(1, opts.concurrency ?? DEFAULT_PROBE_CONCURRENCY);
  const perNode = Math.max(0, opts.count - 1) * intervalMs + timeoutMs;
  const budget = opts.deadlineMs ?? Math.ceil(targets.length / concurrency) * perNode + 250;
  const deadline = performance.now() + budget;
  const results: NodeLatency[] = new Array(targets.length);
  let next = 0;
  const worker = async () => {
    while (next < targets.length) {
      const i = next++;
      const target = targets[i]!;
      results[i] =
        deadline - performance.now() < LEAST_USEFUL_MS
          ? unmeasured(target)
          : await probeNode(target, {
              count: opts.count,
              timeoutMs,
              intervalMs,
              deadline,
              ...(opts.signal ? { signal: opts.signal } : {}),
              ...(opts.datagrams ? { datagrams: opts.datagrams } : {}),
            });
      opts.onResult?.(results[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, targets.length) }, () => worker()));
  return results;
}

function unmeasured(target: ProbeTarget): NodeLatency {
  return {
    node_id: target.id,
    region: target.region,
    method: PROBE_METHOD,
    samples: 0,
    avg_ms: null,
    jitter_ms: null,
    loss: 1,
  };
}

/**
 * The nodes of a GET /nodes answer that can be probed (their relay runs a probe responder), as
 * probe targets. Nodes with `probe: null` are left out: say so rather than show them as lost.
 */
export function probeTargets(
  nodes: readonly Pick<Node, 'id' | 'region' | 'endpoint_host' | 'probe'>[],
): ProbeTarget[] {
  return nodes.flatMap((n) =>
    n.probe === null
      ? []
      : [
          {
            id: n.id,
            region: n.region,
            host: n.endpoint_host,
            port: n.probe.port,
            key: n.probe.key,
          },
        ],
  );
}

// Latency probes, the engine's API: probe nodes (latency-check, smart routing), summarise round
// trips, smooth them for routing.
export {
  DEFAULT_PROBE_CONCURRENCY,
  probeNodes,
  probeTargets,
  type ProbeNodesOptions,
} from './probe-nodes.js';
export {
  DEFAULT_PROBE_INTERVAL_MS,
  DEFAULT_PROBE_TIMEOUT_MS,
  PROBE_METHOD,
  probeKeyBytes,
  probeNode,
  type ProbeNodeOptions,
  type ProbeTarget,
} from './udp-probe.js';
export {
  DEFAULT_EWMA_ALPHA,
  ewma,
  smoothLatencies,
  summarizeRtts,
  type RttSummary,
} from './statistics.js';
export { markedDatagrams, type DatagramSocket, type Datagrams } from './datagrams.js';

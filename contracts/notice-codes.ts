// The codes of the notices a connection carries (the control plane's connect answer and the
// engine's events), declared once so that the faces' words for them are checked.

export const NOTICE_CODES = [
  /** The control plane: the cipher asked for is not offered there; another is in use. */
  'cipher-substituted',
  /** The control plane: no node of the region asked for could take it; another region's did. */
  'region-fallback',
  /** The control plane: a node the latency report found unreachable was passed over. */
  'unreachable-passed-over',
  /** The engine: the node stopped answering and the tunnel moved to another. */
  'failover',
  /** The engine: split tunneling is on, but the home country is unknown. */
  'split-unavailable',
  /** The engine: its own resolver could not start; names go to the tunnel's resolver directly. */
  'dns-split-unavailable',
  /** The engine: UDP is blocked on this network; the tunnel runs over TCP. */
  'udp-blocked',
  /** The engine: obfuscation is on; the tunnel runs over TCP. */
  'obfuscated',
  /** The engine: a stream transport was blocked; the tunnel runs over another (TCP or TLS). */
  'transport-fallback',
  /** The engine: this network needed TCP or TLS before; the tunnel started with it. */
  'transport-remembered',
  /** The engine: reconnecting takes longer; it keeps trying. */
  'reconnecting',
] as const;
export type NoticeCode = (typeof NOTICE_CODES)[number];

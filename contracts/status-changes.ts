// What a change of the engine's status means for a face's copy of the engine's other answers:
// when the regions (their latencies) and the configuration are to be read again. One rule for
// every face (the terminal UI, the app), so that they show the same thing at the same moment.
import type { LocalStatus } from './local-api.js';

/** Signed in or out, or a service configured or forgotten: everything the session had changes. */
export function sessionChanged(prev: LocalStatus, next: LocalStatus): boolean {
  return prev.signed_in !== next.signed_in || prev.service_configured !== next.service_configured;
}

/**
 * Whether the regions' latencies may have changed between two statuses: the tunnel came up or
 * went down (the connected region's latency is the tunnel's own), moved to another node or
 * region, or the session changed. A new latency sample alone is not: the regions are not read
 * again every few seconds for it.
 */
export function regionsMayHaveChanged(prev: LocalStatus, next: LocalStatus): boolean {
  const upOrDown =
    prev.status !== next.status && (next.status === 'connected' || next.status === 'disconnected');
  return (
    upOrDown ||
    prev.region !== next.region ||
    prev.node?.id !== next.node?.id ||
    sessionChanged(prev, next)
  );
}

/**
 * Whether the configuration may have changed: what protects the connection changed (a setting
 * changed by another face shows there first: kill switch, lockdown, split, DNS), or the session
 * did (a service set up).
 */
export function configMayHaveChanged(prev: LocalStatus, next: LocalStatus): boolean {
  return (
    JSON.stringify(prev.protection) !== JSON.stringify(next.protection) ||
    sessionChanged(prev, next)
  );
}

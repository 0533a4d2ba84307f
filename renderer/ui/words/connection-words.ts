// The connection in words: the engine's state as a person says it, what the big button does
// in each state, and the tunnel's facts on one line.
import type { EngineState, LocalStatus } from '../../../contracts/local-api.js';
import { protocolWords } from '../../../contracts/words/states.js';
import { TRANSPORT_NAMES } from '../../../contracts/words/transports.js';

export interface ConnectButtonModel {
  label: 'Connect' | 'Disconnect' | 'Cancel' | 'Disconnecting…';
  action: 'connect' | 'disconnect' | null;
}

/**
 * The one big button. While a connect is under way (the engine's state, or our own request
 * not yet answered) it cancels it: a disconnect aborts the attempt in the engine.
 */
export function connectButton(
  state: EngineState | undefined,
  connectPending: boolean,
): ConnectButtonModel {
  if (state === 'connecting' || (connectPending && state !== 'connected'))
    return { label: 'Cancel', action: 'disconnect' };
  switch (state) {
    case 'connected':
    case 'reconnecting':
      return { label: 'Disconnect', action: 'disconnect' };
    case 'disconnecting':
      return { label: 'Disconnecting…', action: null };
    default:
      // disconnected, error (try again), unknown
      return { label: 'Connect', action: 'connect' };
  }
}

/** "WireGuard · ChaCha20-Poly1305 · UDP", from what is known of the tunnel. */
export function tunnelFacts(status: LocalStatus): string {
  return [
    status.protocol ? protocolWords(status.protocol) : null,
    status.cipher,
    status.transport ? TRANSPORT_NAMES[status.transport] : null,
    status.mode === 'stream'
      ? `stream mode${status.platform ? ` (${status.platform})` : ''}`
      : null,
  ]
    .filter(Boolean)
    .join(' · ');
}

/** "42 ms" from the engine's "42ms"; null when not measured. */
export function latencyWords(latency: string | null): string | null {
  const m = /^(\d+(?:\.\d+)?)ms$/.exec(latency ?? '');
  return m ? `${m[1]} ms` : null;
}

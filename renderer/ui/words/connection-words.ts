// The connection in words: the engine's state as a person says it, what the big button does
// in each state, and the tunnel's facts on one line.
import type { Translate } from '../../../contracts/i18n/translator.js';
import type { EngineState, LocalStatus } from '../../../contracts/local-api.js';
import { protocolWords } from '../../../contracts/words/states.js';
import { transportNames } from '../../../contracts/words/transports.js';
import { english } from './english.js';

export interface ConnectButtonModel {
  /** The button's words. */
  label: string;
  action: 'connect' | 'disconnect' | null;
}

/**
 * The one big button. While a connect is under way (the engine's state, or our own request
 * not yet answered) it cancels it: a disconnect aborts the attempt in the engine.
 */
export function connectButton(
  state: EngineState | undefined,
  connectPending: boolean,
  t: Translate = english,
): ConnectButtonModel {
  if (state === 'connecting' || (connectPending && state !== 'connected'))
    return { label: t('app.connection.cancel'), action: 'disconnect' };
  switch (state) {
    case 'connected':
    case 'reconnecting':
      return { label: t('app.connection.disconnect'), action: 'disconnect' };
    case 'disconnecting':
      return { label: t('app.connection.disconnecting'), action: null };
    default:
      // disconnected, error (try again), unknown
      return { label: t('app.connection.connect'), action: 'connect' };
  }
}

/** "WireGuard · ChaCha20-Poly1305 · UDP", from what is known of the tunnel. */
export function tunnelFacts(status: LocalStatus, t: Translate = english): string {
  const stream =
    status.mode !== 'stream'
      ? null
      : status.platform
        ? t('app.connection.streamModeFor', { platform: status.platform })
        : t('app.connection.streamMode');
  return [
    status.protocol ? protocolWords(status.protocol, t) : null,
    status.cipher,
    status.transport ? transportNames(t)[status.transport] : null,
    stream,
  ]
    .filter(Boolean)
    .join(t('app.dot'));
}

/** "42 ms" from the engine's "42ms", in the language's digits; null when not measured. */
export function latencyWords(latency: string | null, t: Translate = english): string | null {
  const m = /^(\d+(?:\.\d+)?)ms$/.exec(latency ?? '');
  return m ? t('app.units.ms', { ms: Number(m[1]) }) : null;
}

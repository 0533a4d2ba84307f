// The connection in words, for every face: the engine's states at a glance (the app, its tray,
// the terminal UI's header) and in netcli's sentences, what the tray says before there is a
// state, and the tunnel protocols' names.
import type { EngineState } from '../local-api.js';
import type { Protocol } from '../values.js';

/** At a glance: a state under way ends in "…". */
export const ENGINE_STATE_WORDS: Readonly<Record<EngineState, string>> = {
  disconnected: 'Disconnected',
  connecting: 'Connecting…',
  connected: 'Connected',
  reconnecting: 'Reconnecting…',
  disconnecting: 'Disconnecting…',
  error: 'Error',
};

/** At the start of a sentence (netcli status: "Connecting to asia-east"). */
export const ENGINE_STATE_SENTENCE_WORDS: Readonly<Record<EngineState, string>> = {
  disconnected: 'Disconnected',
  connecting: 'Connecting',
  connected: 'Connected',
  reconnecting: 'Reconnecting',
  disconnecting: 'Disconnecting',
  error: 'Error',
};

/** The tray's line before the engine gave a status: none answers, or none has yet. */
export const NO_STATUS_WORDS = {
  'engine-unavailable': 'Engine not running',
  starting: 'Starting…',
} as const;

/** The tunnel protocols as people write them. */
export const PROTOCOL_WORDS: Readonly<Record<Protocol, string>> = {
  wireguard: 'WireGuard',
  ferry: 'Ferry',
};

/** A protocol's name; one this build does not know (a newer engine's) as it came. */
export function protocolWords(protocol: string): string {
  return Object.hasOwn(PROTOCOL_WORDS, protocol) ? PROTOCOL_WORDS[protocol as Protocol] : protocol;
}

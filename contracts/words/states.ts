// The engine's states in words, for every face: at a glance (the app, its tray, the terminal
// UI's header) and in netcli's sentences; and what the tray says before there is a state.
import type { EngineState } from '../local-api.js';

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

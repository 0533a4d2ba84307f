// The engine's states as a person reads them on every face that shows the state at a glance:
// the app, its tray and the terminal UI. (netcli status words its sentences itself.)
import type { EngineState } from './local-api.js';

export const ENGINE_STATE_WORDS: Readonly<Record<EngineState, string>> = {
  disconnected: 'Disconnected',
  connecting: 'Connecting…',
  connected: 'Connected',
  reconnecting: 'Reconnecting…',
  disconnecting: 'Disconnecting…',
  error: 'Error',
};

// The connection in words, for every face: the engine's states at a glance (the app, its tray,
// the terminal UI's header) and in netcli's sentences, what the tray says before there is a
// state, and the tunnel protocols' names.
import type { EngineState } from '../local-api.js';
import type { Protocol } from '../values.js';
import { translator } from '../i18n/translator.js';

// English, from the catalog (contracts/i18n/catalogs/en.json) like every language.
const t = translator('en');

/** At a glance: a state under way ends in "…". */
export const ENGINE_STATE_WORDS: Readonly<Record<EngineState, string>> = {
  disconnected: t('states.glance.disconnected'),
  connecting: t('states.glance.connecting'),
  connected: t('states.glance.connected'),
  reconnecting: t('states.glance.reconnecting'),
  disconnecting: t('states.glance.disconnecting'),
  error: t('states.glance.error'),
};

/** At the start of a sentence (netcli status: "Connecting to asia-east"). */
export const ENGINE_STATE_SENTENCE_WORDS: Readonly<Record<EngineState, string>> = {
  disconnected: t('states.sentence.disconnected'),
  connecting: t('states.sentence.connecting'),
  connected: t('states.sentence.connected'),
  reconnecting: t('states.sentence.reconnecting'),
  disconnecting: t('states.sentence.disconnecting'),
  error: t('states.sentence.error'),
};

/** The tray's line before the engine gave a status: none answers, or none has yet. */
export const NO_STATUS_WORDS = {
  'engine-unavailable': t('states.noStatus.engine-unavailable'),
  starting: t('states.noStatus.starting'),
} as const;

/** The tunnel protocols as people write them. */
export const PROTOCOL_WORDS: Readonly<Record<Protocol, string>> = {
  wireguard: t('states.protocols.wireguard'),
  ferry: t('states.protocols.ferry'),
};

/** A protocol's name; one this build does not know (a newer engine's) as it came. */
export function protocolWords(protocol: string): string {
  return Object.hasOwn(PROTOCOL_WORDS, protocol) ? PROTOCOL_WORDS[protocol as Protocol] : protocol;
}

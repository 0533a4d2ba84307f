// The connection in words, for every face: the engine's states at a glance (the app, its tray,
// the terminal UI's header) and in netcli's sentences, what the tray says before there is a
// state, and the tunnel protocols' names.
import type { EngineState } from '../local-api.js';
import type { Protocol } from '../values.js';
import { translator, type Translate } from '../i18n/translator.js';

// Each takes the words' language as a translator (English when none is given: the engine's
// messages and the tests).
const english = translator('en');

/** At a glance: a state under way ends in "…". */
export function engineStateWords(t: Translate = english): Readonly<Record<EngineState, string>> {
  return {
    disconnected: t('states.glance.disconnected'),
    connecting: t('states.glance.connecting'),
    connected: t('states.glance.connected'),
    reconnecting: t('states.glance.reconnecting'),
    disconnecting: t('states.glance.disconnecting'),
    error: t('states.glance.error'),
  };
}
export const ENGINE_STATE_WORDS = engineStateWords();

/** At the start of a sentence (netcli status: "Connecting to asia-east"). */
export function engineStateSentenceWords(
  t: Translate = english,
): Readonly<Record<EngineState, string>> {
  return {
    disconnected: t('states.sentence.disconnected'),
    connecting: t('states.sentence.connecting'),
    connected: t('states.sentence.connected'),
    reconnecting: t('states.sentence.reconnecting'),
    disconnecting: t('states.sentence.disconnecting'),
    error: t('states.sentence.error'),
  };
}
export const ENGINE_STATE_SENTENCE_WORDS = engineStateSentenceWords();

/** The tray's line before the engine gave a status: none answers, or none has yet. */
export function noStatusWords(t: Translate = english) {
  return {
    'engine-unavailable': t('states.noStatus.engine-unavailable'),
    starting: t('states.noStatus.starting'),
  } as const;
}
export const NO_STATUS_WORDS = noStatusWords();

/** The tunnel protocols as people write them. */
export function protocolNames(t: Translate = english): Readonly<Record<Protocol, string>> {
  return { wireguard: t('states.protocols.wireguard'), ferry: t('states.protocols.ferry') };
}
export const PROTOCOL_WORDS = protocolNames();

/** A protocol's name; one this build does not know (a newer engine's) as it came. */
export function protocolWords(protocol: string, t: Translate = english): string {
  const names = protocolNames(t);
  return Object.hasOwn(names, protocol) ? names[protocol as Protocol] : protocol;
}

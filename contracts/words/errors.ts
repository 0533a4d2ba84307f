// The words of a refusal, for every face: the app's for the codes that need other words than
// the engine's own message, and netcli's hints (what to type next), keyed by FaceCode so that a
// misspelt code does not compile.
import type { FaceCode, NewerCode } from '../face-codes.js';
import { translator, type Translate } from '../i18n/translator.js';

// Each takes the words' language as a translator (English when none is given: the engine's
// messages and the tests).
const english = translator('en');

/** The app: a call got no readable answer, and the engine's own link is up: the service is out of reach. */
export const offlineWords = (t: Translate = english) => t('errors.offline');
export const OFFLINE_WORDS = offlineWords();
/** The app: a call got no readable answer while the engine's own link is down. */
export const engineDownWords = (t: Translate = english) => t('errors.engineDown');
export const ENGINE_DOWN_WORDS = engineDownWords();

/** Codes of a call that got no readable answer (from the control plane, or the engine). */
export const NO_ANSWER_CODES: ReadonlySet<FaceCode | NewerCode> = new Set<FaceCode>([
  'unreachable',
  'timeout',
  'bad-response',
  'host-unresolvable',
]);

/** The app's words for the codes whose message is not what a person should read. */
export const appErrorWords = (t: Translate = english) =>
  ({
    // `unauthorized` keeps the engine's words: in the web graphical mode it is this page's own
    // session that ended (the host says to open a new link), not the device's.
    'not-signed-in': t('errors.app.not-signed-in'),
    'service-not-configured': t('errors.app.service-not-configured'),
    // A new device (signing in, a phone or tablet) over the plan's limit: the engine's message
    // names the plan and the number; what to do is the same everywhere.
    'device-limit': t('errors.app.device-limit'),
    'rate-limited': t('errors.app.rate-limited'),
    // A split rule removed meanwhile (from another window or netcli): the list is read again.
    'split-rule-not-found': t('errors.app.split-rule-not-found'),
  }) as const satisfies Partial<Record<FaceCode, string>>;
export const APP_ERROR_WORDS = appErrorWords();

/** netcli's `hint:` lines for the codes a user can do something about. */
export const netcliErrorHints = (t: Translate = english) =>
  ({
    'not-signed-in': [t('errors.hints.not-signed-in')],
    'service-not-configured': [t('errors.hints.service-not-configured')],
    'service-insecure': [t('errors.hints.service-insecure')],
    'untrusted-certificate': [t('errors.hints.untrusted-certificate')],
    'invalid-credentials': [t('errors.hints.invalid-credentials')],
    'rule-not-found': [t('errors.hints.rule-not-found')],
    'split-rule-not-found': [t('errors.hints.split-rule-not-found')],
    'rule-exists': [t('errors.hints.rule-exists')],
    'region-not-in-plan': [t('errors.hints.region-not-in-plan')],
    'no-node-available': [t('errors.hints.no-node-available')],
    'platform-unverified': [t('errors.hints.platform-unverified')],
    'data-cap-reached': [t('errors.hints.data-cap-reached')],
    'node-unreachable': [t('errors.hints.node-unreachable')],
    'tunnel-timeout': [t('errors.hints.tunnel-timeout')],
    superseded: [t('errors.hints.superseded')],
    cancelled: [t('errors.hints.cancelled')],
    unauthorized: [t('errors.hints.unauthorized')],
    'state-dir-insecure': [t('errors.hints.state-dir-insecure')],
    'not-found': [t('errors.hints.not-found')],
    'service-not-found': [t('errors.hints.service-not-found')],
    'service-exists': [t('errors.hints.service-exists')],
    'tunnel-not-found': [t('errors.hints.tunnel-not-found')],
    'tunnel-exists': [t('errors.hints.tunnel-exists')],
    'tunnel-limit': [t('errors.hints.tunnel-limit')],
    'destinations-unresolved': [t('errors.hints.destinations-unresolved')],
  }) as const satisfies Partial<Record<FaceCode, readonly string[]>>;
export const NETCLI_ERROR_HINTS = netcliErrorHints();

/** An entry of a table keyed by FaceCode, for a code that came over a boundary (maybe a newer one). */
export function wordsFor<Table extends Partial<Record<FaceCode, unknown>>>(
  table: Table,
  code: string,
): Table[keyof Table] | undefined {
  return Object.hasOwn(table, code) ? table[code as keyof Table] : undefined;
}

/** The connection's own failures that have words of their own; any other is "the connection failed". */
const CONNECT_FAILURES = [
  'node-unreachable',
  'tunnel-timeout',
  'no-node-available',
  'region-not-in-plan',
  'data-cap-reached',
  'platform-unverified',
] as const;

/**
 * Why the connection is in error, in words (the status's error, by its code): what happened and
 * what to do in the face's own controls, never the engine's message (English, naming servers).
 */
export function connectFailureWords(code: string, t: Translate = english): string {
  return (CONNECT_FAILURES as readonly string[]).includes(code)
    ? t(`errors.connect.${code as (typeof CONNECT_FAILURES)[number]}`)
    : t('errors.connect.other');
}

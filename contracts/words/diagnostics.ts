// The diagnostics report in words, for every face that shows one (netcli diagnose, the app's
// diagnostics screen): the tally counted in each language's plural forms, each check's title,
// and each check's finding (what it found and what fixes it) worded from the catalog's
// `diagnose` area and filled with the finding's facts. A fix is words a person reads, never a
// command: netcli adds the command line itself (diagnosticCommand), the app a button for the
// check's action (diagnosticActionLabel).
import {
  DIAGNOSTIC_CHECK_IDS,
  type DiagnosticAction,
  type DiagnosticCheck,
  type DiagnosticCheckId,
} from '../diagnostics.js';
import type { Language } from '../i18n/languages.js';
import { countryName } from '../i18n/places.js';
import {
  CATALOGS,
  translator,
  type Catalog,
  type CatalogKey,
  type Translate,
} from '../i18n/translator.js';
import { DEFAULT_ENGINE_SOCKET } from '../local-api.js';
import { isBlockage, isTransport, isTransportReasonCode } from '../transports.js';
import { transportNames, transportReasonText } from './transports.js';

// Each takes the words' language as a translator (English when none is given: the engine's
// messages and the tests).
const english = translator('en');

/** "1 problem", "3 warnings". */
export function diagnosticCountWords(
  kind: 'problems' | 'warnings',
  count: number,
  t: Translate = english,
): string {
  return t(`diagnostics.${kind}`, { count });
}

/** A check's title ("DNS leak"), by its id; one this build does not know as the engine named it. */
export function diagnosticTitle(id: string, fallback: string, t: Translate = english): string {
  return (DIAGNOSTIC_CHECK_IDS as readonly string[]).includes(id)
    ? t(`diagnostics.titles.${id as DiagnosticCheckId}`)
    : fallback;
}

// ---- a check's finding in words ---------------------------------------------------------------

/** The `diagnose` area of the catalogs (English's keys: every language has the same). */
const WORDS = (CATALOGS.en as { diagnose: Catalog }).diagnose;

/** The catalog's groups a check's findings are worded in, first match first. */
function groupsOf(id: string): string[] {
  return id === 'node-udp' || id === 'node-tcp' ? [id, 'node', 'common'] : [id, 'common'];
}

function child(node: Catalog | undefined, key: string): Catalog | undefined {
  const v = node && Object.hasOwn(node, key) ? node[key] : undefined;
  return typeof v === 'object' ? v : undefined;
}

/** A finding's words: their catalog key, and the facts they are filled with. */
interface FindingWords {
  key: string;
  facts: readonly string[];
}

/** The words of a finding's part, or null when this build has none for it. */
function findingWords(check: DiagnosticCheck, part: 'summary' | 'fix'): FindingWords | null {
  const finding = check.finding;
  if (finding === undefined) return null;
  for (const group of groupsOf(check.id)) {
    const entry = child(child(WORDS, group), finding);
    if (!entry) continue;
    const text = entry[part] ?? entry[`${part}_other`];
    if (typeof text !== 'string') return null;
    const facts = [...text.matchAll(/\{\{\s*([\w-]+)/g)].map((m) => m[1]!);
    return { key: `diagnose.${group}.${finding}.${part}`, facts };
  }
  return null;
}

/** Whether the catalog words a value of a coded fact (`diagnose.values.<fact>.<value>`). */
function valueKey(fact: string, value: string): CatalogKey | null {
  const words = child(child(WORDS, 'values'), fact);
  return words && typeof words[value] === 'string'
    ? (`diagnose.values.${fact}.${value}` as CatalogKey)
    : null;
}

/**
 * The facts of a finding as its words use them: codes in words (a transport's name, an engine
 * state, why a list was refused, how a connect ended, the reason for a transport), a country by
 * its name in `language` (when given).
 */
function factsOf(
  check: DiagnosticCheck,
  t: Translate,
  language: Language | undefined,
): Record<string, unknown> {
  const params = check.params ?? {};
  const out: Record<string, unknown> = { ...params };
  const transport = params.transport;
  const reason = params.reason;
  if (isTransport(transport)) {
    out.transport = transportNames(t)[transport];
    if (isTransportReasonCode(reason)) {
      const blocked = String(params.blockages ?? '')
        .split(',')
        .filter(isBlockage)
        .map((blockage) => ({ transport, blockage }));
      out.reason = transportReasonText(transport, reason, blocked, t);
    }
  }
  for (const fact of ['state', 'outcome', 'why', 'obfuscation']) {
    const value = params[fact];
    const key = typeof value === 'string' ? valueKey(fact, value) : null;
    if (key) out[fact] = t(key);
  }
  if (language !== undefined && typeof params.home === 'string' && /^[A-Z]{2}$/.test(params.home))
    out.home = countryName(params.home, language);
  return out;
}

/** A finding's words filled with its facts; null when they cannot be (a fact missing). */
function worded(
  check: DiagnosticCheck,
  part: 'summary' | 'fix',
  t: Translate,
  language: Language | undefined,
): string | null {
  const words = findingWords(check, part);
  // The engine sent fewer facts than these words need: its own words say it better.
  if (words === null || words.facts.some((f) => check.params?.[f] === undefined)) return null;
  return t(words.key as CatalogKey, factsOf(check, t, language));
}

/** Whether this build words the check's finding (else the faces show the engine's own words). */
export function hasDiagnosticWords(check: DiagnosticCheck): boolean {
  return worded(check, 'summary', english, undefined) !== null;
}

/**
 * What a check found, in the language of `t`: the catalog's words for its finding, filled with
 * its facts; the engine's own words (English) when the check has no finding this build knows (an
 * older or newer engine). `language` names countries in it (else they stay as codes).
 */
export function diagnosticSummaryText(
  check: DiagnosticCheck,
  t: Translate = english,
  language?: Language,
): string {
  return worded(check, 'summary', t, language) ?? check.summary;
}

/**
 * What to do about it, in the language of `t`, as words (never a command line: a terminal face
 * adds diagnosticCommand, the app a button for the action); null when there is nothing to do.
 * The engine's own words (English) when the finding is not one this build knows.
 */
export function diagnosticFixText(
  check: DiagnosticCheck,
  t: Translate = english,
  language?: Language,
): string | null {
  if (check.fix === null || check.verdict === 'ok' || check.verdict === 'skipped') return null;
  return worded(check, 'fix', t, language) ?? check.fix;
}

/** The label of the button that makes a check's fix ("Reconnect", "Run again"). */
export function diagnosticActionLabel(action: DiagnosticAction, t: Translate = english): string {
  return t(`diagnose.actions.${action.kind}`);
}

// ---- the command line a terminal user types -------------------------------------------------

/** What `netcli config set <key>` takes where the user picks the value. */
const CHOICE_PLACEHOLDER: Readonly<Record<string, string>> = {
  home_country: '<code>',
  region: '<region>',
  entry_region: '<region>',
  dns: '<ip>',
  mtu: '<bytes>',
};

/** The command line of an action. */
function actionCommand(action: DiagnosticAction): string {
  switch (action.kind) {
    case 'setting':
      return `netcli config set ${action.key} ${action.value}`;
    case 'choose-setting':
      return `netcli config set ${action.key} ${CHOICE_PLACEHOLDER[action.key] ?? '<value>'}`;
    case 'reconnect':
      return 'netcli connect';
    case 'rerun':
      return 'netcli diagnose';
    case 'region':
      return 'netcli connect --region <region>';
    case 'setup':
      return 'netcli init --endpoint <url>';
  }
}

const SERVICE_URL = 'netcli config get service';
const SERVICE_KEY = 'netcli init --endpoint <url> --service-key <base64>';
const TIME_SYNC = 'timedatectl set-ntp true';

/**
 * The command lines of findings whose fix is no action of the app's (the host's, or a finer
 * command than the action's), by `<check>.<finding>`.
 */
const FINDING_COMMANDS: Readonly<Record<string, (check: DiagnosticCheck) => string>> = {
  'engine.not-running': daemonCommand,
  'engine.not-answering': daemonCommand,
  'engine.permission-denied': () => 'sudo usermod -aG ferry $USER',
  'clock.drifting-ahead': () => TIME_SYNC,
  'clock.drifting-behind': () => TIME_SYNC,
  'clock.far-ahead': () => TIME_SYNC,
  'clock.far-behind': () => TIME_SYNC,
  'control-plane.timeout': () => SERVICE_URL,
  'control-plane.unreachable': () => SERVICE_URL,
  'control-plane.not-asked': () => SERVICE_URL,
  'control-plane.not-ferry': () => SERVICE_URL,
  'control-plane.http-error': () => SERVICE_URL,
  'control-plane.untrusted-certificate': () => 'netcli init --endpoint <url> --ca-file <ca.pem>',
  'control-plane.insecure': () => 'netcli init --endpoint https://<host>',
  'api-access.list-refused': () => SERVICE_KEY,
  'api-access.list-refused-none': () => SERVICE_KEY,
  'api-access.direct-unverified': () => SERVICE_KEY,
  'mtu.no-ping': () => 'sudo apt install iputils-ping',
};

/** Starting the engine, on the socket the check names when it is not the default one. */
function daemonCommand(check: DiagnosticCheck): string {
  const socket = check.params?.socket;
  return typeof socket === 'string' && socket !== DEFAULT_ENGINE_SOCKET
    ? `sudo netcli daemon --socket ${socket}`
    : 'sudo netcli daemon';
}

/**
 * The command line that makes a check's fix, for a terminal face to print under the words
 * (`netcli config set mtu 1380`, `netcli diagnose`, `netcli connect`); the same in every
 * language. Null when there is nothing to do, or no command does it (or the check comes from an
 * engine that names no finding: its English fix already says the command).
 */
export function diagnosticCommand(check: DiagnosticCheck): string | null {
  if (check.fix === null || check.verdict === 'ok' || check.verdict === 'skipped') return null;
  if (check.finding === undefined) return null;
  const special = FINDING_COMMANDS[`${check.id}.${check.finding}`];
  if (special) return special(check);
  return check.action ? actionCommand(check.action) : null;
}

// The words of a refusal, for every face: the app's for the codes that need other words than
// the engine's own message, and netcli's hints (what to type next), keyed by FaceCode so that a
// misspelt code does not compile.
import type { FaceCode, NewerCode } from '../face-codes.js';

/** The app: a call got no readable answer, and the engine's own link is up: the service is out of reach. */
export const OFFLINE_WORDS =
  "Ferry can't reach its service right now. Check your internet connection.";
/** The app: a call got no readable answer while the engine's own link is down. */
export const ENGINE_DOWN_WORDS =
  "Ferry's engine isn't answering. Make sure Ferry is running; this window reconnects on its own.";

/** Codes of a call that got no readable answer (from the control plane, or the engine). */
export const NO_ANSWER_CODES: ReadonlySet<FaceCode | NewerCode> = new Set<FaceCode>([
  'unreachable',
  'timeout',
  'bad-response',
  'host-unresolvable',
]);

/** The app's words for the codes whose message is not what a person should read. */
export const APP_ERROR_WORDS = {
  // `unauthorized` keeps the engine's words: in the web graphical mode it is this page's own
  // session that ended (the host says to open a new link), not the device's.
  'not-signed-in': 'Sign in to your Ferry account first.',
  'service-not-configured': "Ferry doesn't know its service address yet. Enter it to continue.",
  // A new device (signing in, a phone or tablet) over the plan's limit: the engine's message
  // names the plan and the number; what to do is the same everywhere.
  'device-limit':
    'Your plan’s device limit is reached. Revoke a device you no longer use first (under Devices on the Account screen), then try again.',
  'rate-limited': 'Too many attempts in a short time. Wait a minute, then try again.',
  // A split rule removed meanwhile (from another window or netcli): the list is read again.
  'split-rule-not-found': 'That split rule is no longer there. The list shows the rules in force.',
} as const satisfies Partial<Record<FaceCode, string>>;

/** netcli's `hint:` lines for the codes a user can do something about. */
export const NETCLI_ERROR_HINTS = {
  'not-signed-in': ['netcli account create or netcli login <number>'],
  'service-not-configured': ['netcli init --endpoint <url> [--protocol wireguard|ferry]'],
  'service-insecure': [
    'use the service’s https URL: netcli init --endpoint https://<host> [--ca-file <ca.pem>]',
  ],
  'untrusted-certificate': [
    'if the service uses a private CA, give it: netcli init --endpoint <url> --ca-file <ca.pem>',
  ],
  'invalid-credentials': ['check the number; if the account has a password, add --password'],
  'rule-not-found': ['netcli region list shows the rules'],
  'split-rule-not-found': ['netcli split list shows the split rules'],
  'rule-exists': ['give the rule another --name, or remove it first: netcli region remove <name>'],
  'region-not-in-plan': ['netcli region list shows the regions your plan allows'],
  'no-node-available': ['try another region: netcli region list'],
  'platform-unverified': [
    'connect where it is verified: netcli connect --mode stream --platform <platform> --region <region>; netcli region list shows the platforms verified per region',
  ],
  'data-cap-reached': ['netcli account shows the usage of this period'],
  'node-unreachable': [
    'the node did not answer; try another region, or when UDP is blocked: netcli config set obfuscation on',
  ],
  'tunnel-timeout': ['no traffic crossed the tunnel; try again, or another region'],
  superseded: ['another connect or disconnect replaced this one; netcli status shows where it is'],
  cancelled: ['netcli status shows where the connection is'],
  unauthorized: ['this device is no longer signed in: netcli login <number>'],
  'state-dir-insecure': ['the state directory holds the device keys: make it 0700 and your own'],
  'not-found': ['netcli devices lists the account’s devices and their ids'],
  'service-not-found': ['netcli service list shows the services'],
  'service-exists': ['choose another name, or remove yours first: netcli service remove <name>'],
  'tunnel-not-found': ['netcli tunnel list shows the running tunnels'],
  'tunnel-exists': [
    'netcli tunnel list shows the running tunnels; stop one with netcli tunnel stop --tag <tag>',
  ],
  'tunnel-limit': ['stop a tunnel first: netcli tunnel stop --tag <tag>'],
  'destinations-unresolved': [
    'check this host’s DNS, or the service’s domains: netcli service list',
  ],
} as const satisfies Partial<Record<FaceCode, readonly string[]>>;

/** An entry of a table keyed by FaceCode, for a code that came over a boundary (maybe a newer one). */
export function wordsFor<Table extends Partial<Record<FaceCode, unknown>>>(
  table: Table,
  code: string,
): Table[keyof Table] | undefined {
  return Object.hasOwn(table, code) ? table[code as keyof Table] : undefined;
}

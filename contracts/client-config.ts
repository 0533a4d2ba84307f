// The client configuration (spec 2.3, extended by design.md): its schema with defaults, the
// allowed values of each key, and `netcli config set <key> <value>` as a pure function.
import { z } from 'zod';

import { ApiAccessSetting, ServiceKey } from './api-access.js';
import { RegionChoice } from './control-api.js';
import { isLoopbackHost } from './loopback.js';
import { isCertificateBundle, MAX_CA_CERTIFICATES } from './pem.js';
import { LANGUAGES, type Language } from './i18n/languages.js';
import type { FieldError } from './problem.js';
import { caseInsensitiveEnum, ENCRYPTIONS, MODES, PROTOCOLS } from './values.js';

/**
 * `auto`: the transport autopilot; `off`: UDP only; `on`: Ferry over TCP (as `tcp`); `tls`: Ferry
 * inside TLS.
 */
export const OBFUSCATION_MODES = ['auto', 'on', 'off', 'tcp', 'tls'] as const;
export const SPLIT_MODES = ['auto', 'off'] as const;
/**
 * Multihop: `always` enters at a relay of `entry_region` and leaves at the exit; `never` does not;
 * `auto` does where the network lets through only an entry region's relays.
 */
export const MULTIHOP_MODES = ['auto', 'always', 'never'] as const;
export type MultihopMode = (typeof MULTIHOP_MODES)[number];
export const UI_MODES = ['terminal', 'graphical'] as const;
export type ObfuscationMode = (typeof OBFUSCATION_MODES)[number];
export type SplitMode = (typeof SPLIT_MODES)[number];
export type UiMode = (typeof UI_MODES)[number];
/** `auto`: the system's language (netcli, the TUI) or the app's locale; else one with a catalog. */
export const LANGUAGE_SETTINGS = ['auto', ...LANGUAGES] as const;
export type LanguageSetting = (typeof LANGUAGE_SETTINGS)[number];

/**
 * The officially assigned ISO 3166-1 alpha-2 codes, and XK (Kosovo: user-assigned, but the
 * IP-to-country datasets use it, so a user there can name their own country).
 */
export const COUNTRY_CODES: readonly string[] = `
AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS
BT BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE
EG EH ER ES ET FI FJ FK FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM
HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC
LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA
NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW
SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO
TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS XK YE YT ZA ZM ZW`
  .trim()
  .split(/\s+/);
const COUNTRIES = new Set(COUNTRY_CODES);

const ipv4 = z.ipv4();
const ipv6 = z.ipv6();

/** Addresses no resolver can have: unspecified, broadcast, multicast. */
function isResolverAddress(ip: string): boolean {
  if (ipv4.safeParse(ip).success) {
    const first = Number(ip.split('.')[0]);
    return ip !== '0.0.0.0' && ip !== '255.255.255.255' && !(first >= 224 && first <= 239);
  }
  if (ipv6.safeParse(ip).success) {
    return !/^[0:]+$/.test(ip) && !/^ff[0-9a-f]{2}:/.test(ip);
  }
  return false;
}

/** `auto` (the node's resolver, reached through the tunnel) or one resolver's IP address. */
export const DnsSetting = z
  .string()
  .transform((s) => s.toLowerCase())
  .refine(
    (s) => s === 'auto' || isResolverAddress(s),
    'auto or the IP address of a DNS resolver (IPv4 or IPv6; not unspecified, broadcast or multicast)',
  )
  .meta({ description: '`auto` (the node’s resolver) or a resolver’s IP address.' });

/** The country whose traffic leaves directly: an ISO 3166-1 alpha-2 code, or `auto` (GeoIP). */
export const HomeCountrySetting = z
  .string()
  .transform((s) => (s.toLowerCase() === 'auto' ? 'auto' : s.toUpperCase()))
  .refine(
    (s) => s === 'auto' || COUNTRIES.has(s),
    'auto or a two-letter ISO 3166-1 country code such as DE, JP or US',
  )
  .meta({ description: '`auto` (detected) or an ISO 3166-1 alpha-2 country code.' });

/**
 * Where to connect: `auto`, a region id, a region rule's name, or `<area>[:strategy]`; the
 * same shapes the control API's connect accepts. Which of them exist only the service and the
 * engine's rules know, so that is checked when connecting, not here.
 */
export const RegionSetting = RegionChoice.unwrap().meta({
  description: '`auto`, a region id, a region rule’s name, or `<area>[:strategy]`.',
});

/**
 * The control plane's base URL, http or https, without credentials, query or fragment. A
 * trailing `/api/v1` or `/v1` (the spec's two address forms) and trailing slashes are dropped:
 * the client adds the prefix itself.
 */
export const ServiceUrl = z
  .string()
  .transform((s, ctx) => {
    let url: URL;
    try {
      url = new URL(s.trim());
    } catch {
      ctx.addIssue({ code: 'custom', message: 'an http or https URL, e.g. https://ferry.example' });
      return z.NEVER;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      ctx.addIssue({ code: 'custom', message: 'an http or https URL, e.g. https://ferry.example' });
      return z.NEVER;
    }
    if (url.username || url.password || url.search || url.hash) {
      ctx.addIssue({
        code: 'custom',
        message: 'the service URL has no user name, password, query or fragment',
      });
      return z.NEVER;
    }
    const path = url.pathname.replace(/\/+$/, '').replace(/\/(?:api\/)?v1$/i, '');
    return `${url.protocol}//${url.host}${path}`;
  })
  .meta({ description: 'The control plane’s URL (with or without /api/v1).' });

/** Whether a service URL names this machine (isLoopbackHost): plain HTTP there crosses no network. */
export function isLoopbackService(url: string): boolean {
  try {
    return isLoopbackHost(new URL(url).hostname);
  } catch {
    return false;
  }
}

/**
 * Whether a configuration reaches its control plane over plain HTTP across a network: an
 * on-path attacker reads the account number and token there, and can answer connect with a
 * node of its own. Allowed only when the user said so (`service_insecure`), and then shown as
 * a problem by status, the app and diagnose.
 */
export function serviceIsInsecure(config: Pick<ClientConfig, 'service'>): boolean {
  return (
    config.service !== null &&
    config.service.startsWith('http:') &&
    !isLoopbackService(config.service)
  );
}

/** The refusal of plain HTTP to a control plane on the network, as a field error. */
export const INSECURE_SERVICE_MESSAGE =
  'the service URL must be https: plain http is accepted only on this machine, or when you accept the risk (netcli init --insecure)';

/**
 * Certificate authorities (PEM) the engine trusts for the control plane in addition to the
 * system's, for a service with a private CA (`netcli init --ca-file`); null: the system's only.
 */
export const ServiceCa = z
  .string()
  .max(64 * 1024)
  .refine(
    isCertificateBundle,
    `up to ${MAX_CA_CERTIFICATES} PEM certificates (-----BEGIN CERTIFICATE----- ...), nothing else`,
  )
  .meta({ description: 'Extra CA certificates (PEM) trusted for the control plane.' });

/**
 * The tunnel's MTU: `auto` (the node's) or a number of bytes, for a path that drops large packets
 * without saying so (an MTU black hole: `netcli diagnose` finds it and says which to set).
 */
export const MtuSetting = z
  .union([z.literal('auto'), z.number().int().min(1280).max(1500)])
  .meta({ description: '`auto` (the node’s MTU) or 1280..1500 bytes.' });

/** `auto` (an entry region the service offers) or a region id marked entry. */
export const EntryRegionSetting = z
  .string()
  .transform((s) => s.trim().toLowerCase())
  .refine((s) => /^[a-z0-9][a-z0-9-]{1,31}$/.test(s), 'auto or a region id (one marked entry)')
  .meta({ description: '`auto` (an entry region the service offers) or a region id.' });

/** Each key's schema, without defaults: the file, PATCH bodies and `config set` share them. */
const FIELDS = {
  service: ServiceUrl.nullable(),
  service_ca: ServiceCa.nullable(),
  service_insecure: z.boolean(),
  service_key: ServiceKey.nullable(),
  api_access: ApiAccessSetting,
  mode: caseInsensitiveEnum(MODES),
  protocol: caseInsensitiveEnum(PROTOCOLS),
  encryption: caseInsensitiveEnum(ENCRYPTIONS),
  dns: DnsSetting,
  kill_switch: z.boolean(),
  lockdown: z.boolean(),
  obfuscation: caseInsensitiveEnum(OBFUSCATION_MODES),
  region: RegionSetting,
  split: caseInsensitiveEnum(SPLIT_MODES),
  home_country: HomeCountrySetting,
  allow_lan: z.boolean(),
  mtu: MtuSetting,
  ui: caseInsensitiveEnum(UI_MODES),
  multihop: caseInsensitiveEnum(MULTIHOP_MODES),
  entry_region: EntryRegionSetting,
  language: caseInsensitiveEnum(LANGUAGE_SETTINGS),
};

export type ConfigKey = keyof typeof FIELDS;
export const CONFIG_KEYS = Object.keys(FIELDS) as [ConfigKey, ...ConfigKey[]];

export interface ClientConfig {
  /** null until `netcli init --endpoint` or `config set service` names one. */
  service: string | null;
  /** Extra CA certificates (PEM) for the control plane's TLS; null: the system's only. */
  service_ca: string | null;
  /** The user accepts plain HTTP to a control plane on the network (netcli init --insecure). */
  service_insecure: boolean;
  /**
   * The service's public key, which its signed relay list is checked with (netcli init
   * --service-key; else the one it presented on first contact); null: none known yet.
   */
  service_key: string | null;
  /** How the control plane is reached: auto, direct, relays, or a proxy URL. */
  api_access: string;
  mode: (typeof MODES)[number];
  protocol: (typeof PROTOCOLS)[number];
  encryption: (typeof ENCRYPTIONS)[number];
  dns: string;
  kill_switch: boolean;
  /** The kill switch holds while disconnected too (Mullvad's lockdown mode). */
  lockdown: boolean;
  obfuscation: ObfuscationMode;
  region: string;
  split: SplitMode;
  home_country: string;
  allow_lan: boolean;
  mtu: 'auto' | number;
  ui: UiMode;
  /** Multihop: enter at a relay of entry_region, leave at the exit. */
  multihop: MultihopMode;
  /** The region whose relays a multihop path enters at (`auto`: one the service offers). */
  entry_region: string;
  /** The faces' language: `auto` (the system's or the app's locale) or a language code. */
  language: LanguageSetting;
}

/**
 * What a fresh install does: the secure mode over WireGuard, which always encrypts with
 * ChaCha20-Poly1305 (so the default says what is in effect), the node's resolver, the kill
 * switch on (not while disconnected: no lockdown), obfuscation when UDP is blocked, automatic routing and splitting, the LAN blocked
 * while the kill switch holds (as Mullvad does), and the terminal face.
 */
export const CLIENT_CONFIG_DEFAULTS: Readonly<ClientConfig> = Object.freeze({
  service: null,
  service_ca: null,
  service_insecure: false,
  service_key: null,
  api_access: 'auto',
  mode: 'secure',
  protocol: 'wireguard',
  encryption: 'ChaCha20-Poly1305',
  dns: 'auto',
  kill_switch: true,
  lockdown: false,
  obfuscation: 'auto',
  region: 'auto',
  split: 'auto',
  home_country: 'auto',
  allow_lan: false,
  mtu: 'auto',
  ui: 'terminal',
  multihop: 'auto',
  entry_region: 'auto',
  language: 'auto',
});

/** The configuration as stored and shown: every key, missing ones take their default. */
export const ClientConfig = z
  .strictObject({
    service: FIELDS.service.default(CLIENT_CONFIG_DEFAULTS.service),
    service_ca: FIELDS.service_ca.default(CLIENT_CONFIG_DEFAULTS.service_ca),
    service_insecure: FIELDS.service_insecure.default(CLIENT_CONFIG_DEFAULTS.service_insecure),
    service_key: FIELDS.service_key.default(CLIENT_CONFIG_DEFAULTS.service_key),
    api_access: FIELDS.api_access.default(CLIENT_CONFIG_DEFAULTS.api_access),
    mode: FIELDS.mode.default(CLIENT_CONFIG_DEFAULTS.mode),
    protocol: FIELDS.protocol.default(CLIENT_CONFIG_DEFAULTS.protocol),
    encryption: FIELDS.encryption.default(CLIENT_CONFIG_DEFAULTS.encryption),
    dns: FIELDS.dns.default(CLIENT_CONFIG_DEFAULTS.dns),
    kill_switch: FIELDS.kill_switch.default(CLIENT_CONFIG_DEFAULTS.kill_switch),
    lockdown: FIELDS.lockdown.default(CLIENT_CONFIG_DEFAULTS.lockdown),
    obfuscation: FIELDS.obfuscation.default(CLIENT_CONFIG_DEFAULTS.obfuscation),
    region: FIELDS.region.default(CLIENT_CONFIG_DEFAULTS.region),
    split: FIELDS.split.default(CLIENT_CONFIG_DEFAULTS.split),
    home_country: FIELDS.home_country.default(CLIENT_CONFIG_DEFAULTS.home_country),
    allow_lan: FIELDS.allow_lan.default(CLIENT_CONFIG_DEFAULTS.allow_lan),
    mtu: FIELDS.mtu.default(CLIENT_CONFIG_DEFAULTS.mtu),
    ui: FIELDS.ui.default(CLIENT_CONFIG_DEFAULTS.ui),
    multihop: FIELDS.multihop.default(CLIENT_CONFIG_DEFAULTS.multihop),
    entry_region: FIELDS.entry_region.default(CLIENT_CONFIG_DEFAULTS.entry_region),
    language: FIELDS.language.default(CLIENT_CONFIG_DEFAULTS.language),
  })
  .meta({ id: 'ClientConfig' }) satisfies z.ZodType<ClientConfig, unknown>;

/** A change of some keys (the local API's PATCH /config): typed values, no defaults. */
export const ClientConfigPatch = z.strictObject({
  service: FIELDS.service.optional(),
  service_ca: FIELDS.service_ca.optional(),
  service_insecure: FIELDS.service_insecure.optional(),
  service_key: FIELDS.service_key.optional(),
  api_access: FIELDS.api_access.optional(),
  mode: FIELDS.mode.optional(),
  protocol: FIELDS.protocol.optional(),
  encryption: FIELDS.encryption.optional(),
  dns: FIELDS.dns.optional(),
  kill_switch: FIELDS.kill_switch.optional(),
  lockdown: FIELDS.lockdown.optional(),
  obfuscation: FIELDS.obfuscation.optional(),
  region: FIELDS.region.optional(),
  split: FIELDS.split.optional(),
  home_country: FIELDS.home_country.optional(),
  allow_lan: FIELDS.allow_lan.optional(),
  mtu: FIELDS.mtu.optional(),
  ui: FIELDS.ui.optional(),
  multihop: FIELDS.multihop.optional(),
  entry_region: FIELDS.entry_region.optional(),
  language: FIELDS.language.optional(),
}) satisfies z.ZodType<Partial<ClientConfig>, unknown>;
export type ClientConfigPatch = Partial<ClientConfig>;

/**
 * What a change of each key does to a live tunnel: `reconnect` (a new session is needed),
 * `live` (the engine re-applies its rules in place), `none` (takes effect elsewhere).
 */
export const CONFIG_CHANGE_EFFECT: Readonly<Record<ConfigKey, 'reconnect' | 'live' | 'none'>> = {
  service: 'none',
  service_ca: 'none',
  service_insecure: 'none',
  // The kill switch lets the engine reach the service where these say (relays, a proxy).
  service_key: 'live',
  api_access: 'live',
  mode: 'reconnect',
  protocol: 'reconnect',
  encryption: 'reconnect',
  dns: 'live',
  kill_switch: 'live',
  lockdown: 'live',
  obfuscation: 'reconnect',
  region: 'reconnect',
  split: 'live',
  home_country: 'live',
  allow_lan: 'live',
  mtu: 'reconnect',
  ui: 'none',
  multihop: 'reconnect',
  entry_region: 'reconnect',
  // The faces read it; the tunnel has no words.
  language: 'none',
};

const BOOLEAN_WORDS = new Map<string, boolean>([
  ['true', true],
  ['false', false],
  ['on', true],
  ['off', false],
  ['yes', true],
  ['no', false],
]);

/** What each key accepts, for help text and error messages. `allowed` only for closed sets. */
export const CONFIG_KEY_HELP: Readonly<Record<ConfigKey, { expects: string; allowed?: string[] }>> =
  {
    service: { expects: 'the control plane’s URL, e.g. https://ferry.example (or none)' },
    service_ca: {
      expects:
        'a file of CA certificates (PEM) trusted for the control plane besides the system’s, or system',
    },
    service_insecure: {
      expects: 'whether plain http to a control plane on the network is accepted (unsafe)',
      allowed: ['true', 'false'],
    },
    service_key: {
      expects:
        'the service’s public key (base64 of 32 bytes; ferry-server --print-public-key prints it), or none',
    },
    api_access: {
      expects:
        'how the control plane is reached: auto, direct, relays, or a proxy socks5://host:port or http://host:port',
    },
    mode: { expects: 'the mode of use', allowed: [...MODES] },
    protocol: { expects: 'the tunnel protocol', allowed: [...PROTOCOLS] },
    encryption: { expects: 'the cipher', allowed: [...ENCRYPTIONS] },
    dns: { expects: 'auto (the node’s resolver) or a resolver’s IP address' },
    kill_switch: {
      expects: 'whether traffic is blocked outside the tunnel',
      allowed: ['true', 'false'],
    },
    lockdown: {
      expects: 'whether the kill switch also blocks traffic while disconnected',
      allowed: ['true', 'false'],
    },
    obfuscation: {
      expects: 'the tunnel’s transport: auto (the autopilot), off (UDP only), on or tcp, tls',
      allowed: [...OBFUSCATION_MODES],
    },
    region: { expects: 'auto, a region id, a region rule’s name, or <area>[:strategy]' },
    split: { expects: 'whether only cross-border traffic is tunneled', allowed: [...SPLIT_MODES] },
    home_country: { expects: 'auto or a two-letter ISO 3166-1 country code such as DE' },
    allow_lan: { expects: 'whether the local network stays reachable', allowed: ['true', 'false'] },
    mtu: { expects: 'auto (the node’s MTU) or a number of bytes from 1280 to 1500' },
    ui: { expects: 'the face `netcli` opens with no arguments', allowed: [...UI_MODES] },
    multihop: {
      expects: 'whether a connection enters at a relay of entry_region and leaves at another',
      allowed: [...MULTIHOP_MODES],
    },
    entry_region: { expects: 'auto or the id of a region whose relays offer entries' },
    language: {
      expects: 'the language of netcli, the terminal mode and the app (auto: the system’s)',
      allowed: [...LANGUAGE_SETTINGS],
    },
  };

/** The language a face speaks: the setting's, or (auto) the one the system or browser asks for. */
export function faceLanguage(setting: LanguageSetting, system: Language): Language {
  return setting === 'auto' ? system : setting;
}

/**
 * A change of the service is a new statement of how it is trusted: consent to plain HTTP and a
 * private CA given for the service before do not carry over to another one, unless the same
 * change says them again (as `netcli init` always does).
 */
export function withServiceTrustReset(
  before: Pick<ClientConfig, 'service'>,
  values: Partial<ClientConfig>,
): Partial<ClientConfig> {
  if (values.service === undefined || values.service === before.service) return values;
  return { service_ca: null, service_insecure: false, service_key: null, ...values };
}

/**
 * A configuration that would send the control plane's traffic in the clear without consent;
 * every change is checked against the whole configuration it makes.
 */
export function insecureServiceRefusal(config: ClientConfig): FieldError | undefined {
  if (!serviceIsInsecure(config) || config.service_insecure) return undefined;
  return { field: 'service', message: INSECURE_SERVICE_MESSAGE };
}

function fieldError(key: string, message: string): FieldError {
  const help = CONFIG_KEY_HELP[key as ConfigKey] as (typeof CONFIG_KEY_HELP)[ConfigKey] | undefined;
  const error: FieldError = { field: key, message };
  if (help?.allowed) error.allowed = [...help.allowed];
  return error;
}

/** A key's message when its value is refused: the key and what it accepts, never the value. */
function refusal(key: ConfigKey, issue?: z.core.$ZodIssue): string {
  const help = CONFIG_KEY_HELP[key];
  if (help.allowed) return `${key} must be one of: ${help.allowed.join(', ')}`;
  if (issue && issue.code === 'custom') return `${key} must be ${issue.message}`;
  return `${key} must be ${help.expects}`;
}

/**
 * The field errors of a configuration (file contents or a PATCH body) that did not parse: each
 * names the key and what it accepts (the values, where the set is closed), never the value
 * given (a resolver's address is the user's business). Unknown keys are listed with the keys
 * that exist.
 */
export function configFieldErrors(error: z.ZodError): FieldError[] {
  const out: FieldError[] = [];
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        out.push({
          field: key,
          message: `unknown setting ${key}; the settings are ${CONFIG_KEYS.join(', ')}`,
          allowed: [...CONFIG_KEYS],
        });
      }
      continue;
    }
    const key = issue.path[0];
    if (typeof key === 'string' && key in FIELDS) {
      out.push(fieldError(key, refusal(key as ConfigKey, issue)));
    } else {
      out.push({ field: '', message: 'the configuration must be a JSON object' });
    }
  }
  return out;
}

export type ConfigSetResult =
  | { ok: true; key: ConfigKey; config: ClientConfig; changed: boolean }
  | { ok: false; error: FieldError };

/** A key as typed: any letter case, `-` for `_` (`kill-switch`, `Allow-LAN`). */
export function parseConfigKey(typed: string): ConfigKey | null {
  const key = typed.trim().toLowerCase().replaceAll('-', '_');
  return (CONFIG_KEYS as readonly string[]).includes(key) ? (key as ConfigKey) : null;
}

/**
 * `netcli config set <key> <value>`: turns the command line's string into the key's typed
 * value and returns the whole new configuration. Values take the same spellings the control
 * API takes (`WireGuard`, `aes-256-gcm`); booleans take true/false, on/off, yes/no; `service`
 * takes `none` to forget the URL.
 */
export function setConfigValue(
  config: ClientConfig,
  typedKey: string,
  raw: string,
): ConfigSetResult {
  const key = parseConfigKey(typedKey);
  if (!key) {
    return {
      ok: false,
      error: {
        field: typedKey,
        message: `unknown setting ${JSON.stringify(typedKey)}; the settings are ${CONFIG_KEYS.join(', ')}`,
        allowed: [...CONFIG_KEYS],
      },
    };
  }
  const text = raw.trim();
  let value: unknown = text;
  if (
    key === 'kill_switch' ||
    key === 'lockdown' ||
    key === 'allow_lan' ||
    key === 'service_insecure'
  ) {
    value = BOOLEAN_WORDS.get(text.toLowerCase());
    if (value === undefined) {
      return {
        ok: false,
        error: fieldError(key, `${key} must be true or false (on/off and yes/no also work)`),
      };
    }
  } else if (key === 'service' && text.toLowerCase() === 'none') {
    value = null;
  } else if (
    (key === 'service_ca' || key === 'service_key') &&
    ['system', 'none'].includes(text.toLowerCase())
  ) {
    value = null;
  } else if (key === 'mtu' && text.toLowerCase() !== 'auto') {
    value = /^\d+$/.test(text) ? Number(text) : text;
  } else if (key === 'mtu') {
    value = 'auto';
  }
  const parsed = ClientConfigPatch.safeParse({ [key]: value });
  if (!parsed.success) {
    return { ok: false, error: fieldError(key, refusal(key, parsed.error.issues[0])) };
  }
  const next = { ...config, ...withServiceTrustReset(config, parsed.data) } as ClientConfig;
  const unsafe = insecureServiceRefusal(next);
  if (unsafe) return { ok: false, error: unsafe };
  return { ok: true, key, config: next, changed: next[key] !== config[key] };
}

export type ConfigPatchResult =
  { ok: true; config: ClientConfig; changed: ConfigKey[] } | { ok: false; errors: FieldError[] };

/** Applies a PATCH body (typed JSON values) to a configuration; all keys or none. */
export function applyConfigPatch(config: ClientConfig, patch: unknown): ConfigPatchResult {
  const parsed = ClientConfigPatch.safeParse(patch);
  if (!parsed.success) return { ok: false, errors: configFieldErrors(parsed.error) };
  const values = withServiceTrustReset(config, parsed.data);
  const next: ClientConfig = { ...config };
  const changed: ConfigKey[] = [];
  for (const key of CONFIG_KEYS) {
    const value = values[key];
    if (value === undefined || value === config[key]) continue;
    (next as Record<ConfigKey, unknown>)[key] = value;
    changed.push(key);
  }
  const unsafe = insecureServiceRefusal(next);
  if (unsafe) return { ok: false, errors: [unsafe] };
  return { ok: true, config: next, changed };
}

// Redaction of what a person may share (netcli diagnose --export): every IP address, hardware
// address, key, token and account number in a text or a JSON value becomes a placeholder, and so
// does the service's host name (a corporate control plane's names its company). It errs on the
// side of removing too much: a report with a lost detail is still useful, one with the user's
// address in it is not theirs to hand out.
import { DiagnosticsReport, isIpv6 } from '../contracts/diagnostics.js';

export const REDACTED = {
  address: '<address>',
  key: '<key>',
  token: '<token>',
  accountNumber: '<account-number>',
  serviceHost: '<service-host>',
} as const;

/** What the text is about, to find more of what is not the reader's to know. */
export interface RedactContext {
  /** The control plane's URL (the configuration's `service`): its host name goes. */
  service?: string | null | undefined;
}

/** `scheme://user:password@` in a URL. */
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@<>]*@/gi;
/** `Authorization: Bearer x`, `Basic x`. */
const AUTH_SCHEME = /\b(bearer|basic)(\s+)[A-Za-z0-9._~+/=%-]+/gi;
/** `token=x`, `"password": "x"`, `private_key: x`, `?secret=x&`. */
const SECRET_ASSIGNMENT =
  /\b([\w-]*(?:token|secret|password|passwd|private[_-]?key|preshared[_-]?key|api[_-]?key|session[_-]?id))(\s*["']?\s*[:=]\s*["']?)([^\s"'&,;}<>]+)/gi;
/** Ferry's bearer tokens (`ferry_d_...`, `ferry_n_...`). */
const FERRY_TOKEN = /ferry_[a-z]_[A-Za-z0-9_-]+/g;
/**
 * 32 bytes in hex (WireGuard's UAPI writes keys so), also inside a longer run of hex digits (a
 * key glued to others: the whole run goes).
 */
const HEX_KEY = /[0-9A-Fa-f]{64,}/g;
/** 32 bytes in base64 with its padding (WireGuard and Ferry keys), also percent-encoded in a URL. */
const BASE64_KEY = /(?:[A-Za-z0-9+/]|%2[BbFf]){43}(?:=|%3[Dd])/g;
/** Long opaque strings (base64url tokens, unpadded keys): 32 or more characters of that alphabet. */
const OPAQUE = /[A-Za-z0-9+/_-]{32,}(?:=|%3[Dd]){0,2}/g;
/** 16 digits, also in groups of four (how account numbers are typed). */
const ACCOUNT_NUMBER = /(?<!\d)\d{4}(?:[ -]?\d{4}){3}(?!\d)/g;
/** Six bytes in hex joined by `:` or `-`. */
const MAC = /(?<![0-9A-Fa-f])(?:[0-9A-Fa-f]{2}[:-]){5}[0-9A-Fa-f]{2}(?![0-9A-Fa-f])/g;
/** Runs of what IPv6 addresses are written with (colons also percent-encoded). */
const IPV6_RUN = /(?:%3[Aa]|[0-9A-Fa-f:.])+/g;
const OCTET = '(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d|0\\d{1,2})';
/** Dotted quads (any three digits, even over 255: better too many). */
const IPV4 = /(?<!\d)(?:\d{1,3}\.){3}\d{1,3}(?!\d)/g;
/** The dashed form host names carry (`ip-192-0-2-1.example`). */
const IPV4_DASHED = new RegExp(`(?<!\\d)(?:${OCTET}-){3}${OCTET}(?!\\d)`, 'g');
/** What follows an address and belongs to it: a zone (`%eth0`, `%25eth0`), a prefix length. */
const ADDRESS_TAIL = /<address>(?:%(?:25)?[A-Za-z0-9_.-]+|\/\d{1,3}(?!\d))+/g;

/** Longer runs are not searched for addresses one by one: they go whole (fail closed). */
const LONGEST_RUN = 160;

/** The IPv6 addresses in one run of hex digits, colons and dots, each replaced. */
function redactIpv6Run(run: string): string {
  // One unit per character, `%3A` as one colon.
  const units: string[] = [];
  const raw: string[] = [];
  for (let i = 0; i < run.length;) {
    if (run[i] === '%') {
      units.push(':');
      raw.push(run.slice(i, i + 3));
      i += 3;
    } else {
      units.push(run[i]!);
      raw.push(run[i]!);
      i += 1;
    }
  }
  if (units.filter((u) => u === ':').length < 2) return run;
  if (units.length > LONGEST_RUN) return REDACTED.address;
  let out = '';
  let i = 0;
  while (i < units.length) {
    let end = -1;
    // The longest address that starts here.
    for (let j = units.length; j >= i + 2; j--) {
      if (isIpv6(units.slice(i, j).join(''))) {
        end = j;
        break;
      }
    }
    if (end < 0) {
      out += raw[i];
      i += 1;
    } else {
      out += REDACTED.address;
      i = end;
    }
  }
  return out;
}

/**
 * The service's host name, in any letter case, where it stands as a name (also under it:
 * `api.<service-host>`), not inside a longer label; null for none, and for an IP address, which
 * goes as every address does.
 */
function serviceHostPattern(service: string | null | undefined): RegExp | null {
  if (!service) return null;
  let hostname: string;
  try {
    hostname = new URL(service).hostname;
  } catch {
    // Fail closed: a service the redaction cannot read is a bug, not a report to write.
    throw new Error(`redact: the service ${JSON.stringify(service)} is not a URL`);
  }
  if (hostname === '' || hostname.startsWith('[') || /^[\d.]+$/.test(hostname)) return null;
  const name = hostname.replace(/\.$/, '').replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![A-Za-z0-9-])${name}(?![A-Za-z0-9-]|\\.[A-Za-z0-9])`, 'gi');
}

/** `text` with every address, key, token and account number replaced by a placeholder. */
export function redactText(text: string, context: RedactContext = {}): string {
  const host = serviceHostPattern(context.service);
  return (
    (host ? text.replace(host, REDACTED.serviceHost) : text)
      .replace(URL_USERINFO, `$1${REDACTED.token}@`)
      .replace(AUTH_SCHEME, `$1$2${REDACTED.token}`)
      .replace(SECRET_ASSIGNMENT, `$1$2${REDACTED.token}`)
      .replace(FERRY_TOKEN, REDACTED.token)
      .replace(HEX_KEY, REDACTED.key)
      .replace(BASE64_KEY, REDACTED.key)
      // Letters and digits mixed, or as long as a key (an unpadded key may be all letters).
      .replace(OPAQUE, (s) =>
        (/\d/.test(s) && /[A-Za-z]/.test(s)) || s.length >= 43 ? REDACTED.token : s,
      )
      .replace(ACCOUNT_NUMBER, REDACTED.accountNumber)
      .replace(MAC, REDACTED.address)
      .replace(IPV6_RUN, redactIpv6Run)
      .replace(IPV4, REDACTED.address)
      .replace(IPV4_DASHED, REDACTED.address)
      .replace(ADDRESS_TAIL, REDACTED.address)
  );
}

/** Keys whose values are secrets whatever they look like. */
const SECRET_KEY =
  /(?:token|secret|password|passwd|private[_-]?key|preshared[_-]?key|account[_-]?number)$/i;

/**
 * A JSON value with every string redacted (object keys too), and the values of secret-named
 * keys replaced whole. Numbers, booleans and null stay.
 */
export function redactJson(value: unknown, context: RedactContext = {}): unknown {
  if (typeof value === 'string') return redactText(value, context);
  if (Array.isArray(value)) return value.map((v) => redactJson(v, context));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      out[redactText(k, context)] =
        SECRET_KEY.test(k) && typeof v === 'string' ? REDACTED.token : redactJson(v, context);
    }
    return out;
  }
  return value;
}

/** A diagnostics report fit to share: the same checks, every string redacted. */
export function redactReport(
  report: DiagnosticsReport,
  context: RedactContext = {},
): DiagnosticsReport {
  return DiagnosticsReport.parse(redactJson(report, context));
}

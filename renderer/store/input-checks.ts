// What a person typed, checked before the engine sees it, with the same schemas the engine
// uses (contracts/), and the refusal in words for the field.
import { ServiceUrl } from '../../contracts/client-config.js';
import { DeviceName } from '../../contracts/control-api.js';
import { checkDnsInput } from '../../contracts/dns-input.js';
import { translator, type Translate } from '../../contracts/i18n/translator.js';
import type { FieldError } from '../../contracts/problem.js';
import { SplitAppPath, SplitDomain } from '../../contracts/split-rules.js';
import {
  TypedAccountNumber,
  characterCount,
  hasUnsafeNameCharacters,
} from '../../contracts/values.js';

const english = translator('en');

export type Checked<T> = { ok: true; value: T } | { ok: false; error: FieldError };

/** The app's words for each refusal of the faces' one DNS check (contracts' checkDnsInput). */
const DNS_REFUSALS = {
  empty: 'app.checks.dnsEmpty',
  'not-an-address': 'app.checks.dnsNotAddress',
  'not-a-resolver': 'app.checks.dnsNotResolver',
} as const;

/** `auto`, or the IPv4 or IPv6 address of a resolver (not unspecified, broadcast, multicast). */
export function validateDns(text: string, t: Translate = english): Checked<string> {
  const checked = checkDnsInput(text);
  if (checked.ok) return checked;
  return { ok: false, error: { field: 'dns', message: t(DNS_REFUSALS[checked.problem]) } };
}

export function validateServiceUrl(text: string, t: Translate = english): Checked<string> {
  const parsed = ServiceUrl.safeParse(text);
  if (parsed.success && parsed.data !== '') return { ok: true, value: parsed.data };
  const message = parsed.success ? t('app.checks.serviceEmpty') : t('app.checks.serviceNotUrl');
  return { ok: false, error: { field: 'endpoint', message } };
}

export function validateAccountNumber(text: string, t: Translate = english): Checked<string> {
  const parsed = TypedAccountNumber.safeParse(text);
  if (parsed.success) return { ok: true, value: parsed.data };
  return {
    ok: false,
    error: {
      field: 'account_number',
      message: t('app.checks.accountNumber'),
    },
  };
}

/** A device's name as the engine takes it: not blank, at most 64 characters, nothing unsafe. */
export function validateDeviceName(text: string, t: Translate = english): Checked<string> {
  const parsed = DeviceName.safeParse(text);
  if (parsed.success) return { ok: true, value: parsed.data };
  const message = hasUnsafeNameCharacters(text)
    ? t('app.checks.deviceUnsafe')
    : text.trim() === ''
      ? t('app.checks.deviceEmpty')
      : characterCount(text) > 64
        ? t('app.checks.deviceLong')
        : t('app.checks.deviceOther');
  return { ok: false, error: { field: 'name', message } };
}

/**
 * A split rule's domain as the engine keeps it (lower case, without a leading `*.` or a trailing
 * dot): the contracts' own SplitDomain, the refusal in words for the `domain` field.
 */
export function validateSplitDomain(text: string, t: Translate = english): Checked<string> {
  const parsed = SplitDomain.safeParse(text);
  if (parsed.success) return { ok: true, value: parsed.data };
  const message = text.trim() === '' ? t('app.checks.domainEmpty') : t('app.checks.domainBad');
  return { ok: false, error: { field: 'domain', message } };
}

/** A program's full path as the engine takes it: the contracts' own SplitAppPath (`app` field). */
export function validateSplitAppPath(text: string, t: Translate = english): Checked<string> {
  const parsed = SplitAppPath.safeParse(text);
  if (parsed.success && parsed.data !== '') return { ok: true, value: parsed.data };
  const message = text.trim() === '' ? t('app.checks.appEmpty') : t('app.checks.appBad');
  return { ok: false, error: { field: 'app', message } };
}

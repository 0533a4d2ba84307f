// What a person typed, checked before the engine sees it, with the same schemas the engine
// uses (contracts/), and the refusal in words for the field.
import { ServiceUrl } from '../../contracts/client-config.js';
import { DeviceName } from '../../contracts/control-api.js';
import { checkDnsInput } from '../../contracts/dns-input.js';
import type { FieldError } from '../../contracts/problem.js';
import { SplitAppPath, SplitDomain } from '../../contracts/split-rules.js';
import {
  TypedAccountNumber,
  characterCount,
  hasUnsafeNameCharacters,
} from '../../contracts/values.js';

export type Checked<T> = { ok: true; value: T } | { ok: false; error: FieldError };

/** The app's words for each refusal of the faces' one DNS check (contracts' checkDnsInput). */
const DNS_REFUSALS = {
  empty: 'Enter the address of a DNS server, such as 9.9.9.9.',
  'not-an-address':
    'That is not an IP address. Enter an IPv4 address such as 9.9.9.9 or an IPv6 address such as 2620:fe::fe.',
  'not-a-resolver': 'That address cannot be a DNS server (unspecified, broadcast or multicast).',
} as const;

/** `auto`, or the IPv4 or IPv6 address of a resolver (not unspecified, broadcast, multicast). */
export function validateDns(text: string): Checked<string> {
  const checked = checkDnsInput(text);
  if (checked.ok) return checked;
  return { ok: false, error: { field: 'dns', message: DNS_REFUSALS[checked.problem] } };
}

export function validateServiceUrl(text: string): Checked<string> {
  const parsed = ServiceUrl.safeParse(text);
  if (parsed.success && parsed.data !== '') return { ok: true, value: parsed.data };
  const message = parsed.success
    ? 'Enter the service address, such as https://ferry.example.'
    : `Enter the service address as an http or https URL, such as https://ferry.example.`;
  return { ok: false, error: { field: 'endpoint', message } };
}

export function validateAccountNumber(text: string): Checked<string> {
  const parsed = TypedAccountNumber.safeParse(text);
  if (parsed.success) return { ok: true, value: parsed.data };
  return {
    ok: false,
    error: {
      field: 'account_number',
      message: 'An account number has 16 digits (spaces between them are fine).',
    },
  };
}

/** A device's name as the engine takes it: not blank, at most 64 characters, nothing unsafe. */
export function validateDeviceName(text: string): Checked<string> {
  const parsed = DeviceName.safeParse(text);
  if (parsed.success) return { ok: true, value: parsed.data };
  const message = hasUnsafeNameCharacters(text)
    ? 'A device name cannot hold line breaks, control or text-direction characters.'
    : text.trim() === ''
      ? 'Enter a name for the device, such as “Anna’s phone”.'
      : characterCount(text) > 64
        ? 'A device name has at most 64 characters.'
        : 'That name cannot be used for a device.';
  return { ok: false, error: { field: 'name', message } };
}

/**
 * A split rule's domain as the engine keeps it (lower case, without a leading `*.` or a trailing
 * dot): the contracts' own SplitDomain, the refusal in words for the `domain` field.
 */
export function validateSplitDomain(text: string): Checked<string> {
  const parsed = SplitDomain.safeParse(text);
  if (parsed.success) return { ok: true, value: parsed.data };
  const message =
    text.trim() === ''
      ? 'Enter a domain, such as example.com.'
      : 'That is not a domain name. Enter one such as example.com: letters, digits and dashes, with dots between the parts.';
  return { ok: false, error: { field: 'domain', message } };
}

/** A program's full path as the engine takes it: the contracts' own SplitAppPath (`app` field). */
export function validateSplitAppPath(text: string): Checked<string> {
  const parsed = SplitAppPath.safeParse(text);
  if (parsed.success && parsed.data !== '') return { ok: true, value: parsed.data };
  const message =
    text.trim() === ''
      ? 'Enter the full path of a program, such as /usr/bin/firefox.'
      : 'Enter the program’s full path, starting with / and without “..”, such as /usr/bin/firefox.';
  return { ok: false, error: { field: 'app', message } };
}

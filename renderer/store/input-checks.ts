// What a person typed, checked before the engine sees it, with the same schemas the engine
// uses (contracts/), and the refusal in words for the field.
import { ServiceUrl, DnsSetting } from '../../contracts/client-config.js';
import { DeviceName } from '../../contracts/control-api.js';
import { isIpv4, isIpv6 } from '../../contracts/diagnostics.js';
import type { FieldError } from '../../contracts/problem.js';
import {
  TypedAccountNumber,
  characterCount,
  hasUnsafeNameCharacters,
} from '../../contracts/values.js';

export type Checked<T> = { ok: true; value: T } | { ok: false; error: FieldError };

/** `auto`, or the IPv4 or IPv6 address of a resolver (not unspecified, broadcast, multicast). */
export function validateDns(text: string): Checked<string> {
  const value = text.trim();
  if (value.toLowerCase() === 'auto') return { ok: true, value: 'auto' };
  const refuse = (message: string): Checked<string> => ({
    ok: false,
    error: { field: 'dns', message },
  });
  if (value === '') return refuse('Enter the address of a DNS server, such as 9.9.9.9.');
  if (!isIpv4(value) && !isIpv6(value))
    return refuse(
      'That is not an IP address. Enter an IPv4 address such as 9.9.9.9 or an IPv6 address such as 2620:fe::fe.',
    );
  const parsed = DnsSetting.safeParse(value);
  if (!parsed.success)
    return refuse('That address cannot be a DNS server (unspecified, broadcast or multicast).');
  return { ok: true, value: parsed.data };
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

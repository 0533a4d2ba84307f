// A DNS value as a person types it (the terminal UI's prompt, the app's field), checked before
// the engine sees it, with the configuration's own schema (DnsSetting): the one check every
// face makes, its refusal a code each face puts in its words. The engine checks again anyway.
import { DnsSetting } from './client-config.js';
import { isIpv4, isIpv6 } from './diagnostics.js';

/** Why a typed DNS value is no setting: nothing typed, no IP address, or no resolver's address. */
export type DnsInputProblem = 'empty' | 'not-an-address' | 'not-a-resolver';

export type DnsInput = { ok: true; value: string } | { ok: false; problem: DnsInputProblem };

/**
 * `auto` (any letter case), or the IPv4 or IPv6 address of a resolver (not unspecified,
 * broadcast or multicast), spaces around it dropped; the value as the configuration keeps it.
 */
export function checkDnsInput(text: string): DnsInput {
  const value = text.trim();
  if (value.toLowerCase() === 'auto') return { ok: true, value: 'auto' };
  if (value === '') return { ok: false, problem: 'empty' };
  if (!isIpv4(value) && !isIpv6(value)) return { ok: false, problem: 'not-an-address' };
  const parsed = DnsSetting.safeParse(value);
  if (!parsed.success) return { ok: false, problem: 'not-a-resolver' };
  return { ok: true, value: parsed.data };
}

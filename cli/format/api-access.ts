// netcli's words for API access: the methods and the one in use, the relay list, a method tried.
import type { ApiAccessList, ApiAccessStatus, ApiAccessTest } from '../../contracts/index.js';
import { table } from './table.js';

const SOURCE_WORDS = {
  shipped: 'shipped with Ferry',
  given: 'given to the daemon',
  service: 'from the service',
} as const;
const KEY_WORDS = {
  daemon: 'the daemon’s --service-key',
  config: 'the configuration’s',
  shipped: 'the shipped one',
} as const;

/** One line of the relay list in use (and one more when a list was refused). */
export function relayListLines(s: ApiAccessStatus['relay_list']): string[] {
  const lines: string[] = [];
  if (s.key_from === null)
    lines.push(
      'Relay list: none can be checked yet (no service key: netcli init --service-key <base64>)',
    );
  else if (s.source === null) lines.push('Relay list: none');
  else
    lines.push(
      `Relay list: ${s.relays} relay${s.relays === 1 ? '' : 's'}, ${SOURCE_WORDS[s.source]}, issued ${s.issued_at?.slice(0, 10)}, valid until ${s.expires_at?.slice(0, 10)} (checked with ${KEY_WORDS[s.key_from]} key)`,
    );
  if (s.refused)
    lines.push(`Refused: the list ${SOURCE_WORDS[s.refused.source]}: ${s.refused.message}`);
  return lines;
}

/** The status's line: how the service is reached, when it is not straight. */
export function apiAccessLine(s: ApiAccessStatus): string | null {
  if (s.in_use === null || s.in_use === 'direct') return null;
  return `Service   through ${s.in_use}${s.reason ? `: ${s.reason}` : ''}`;
}

export function formatApiAccessList(l: ApiAccessList): string[] {
  const lines = [`API access: ${l.setting}${l.in_use ? ` (in use: ${l.in_use})` : ''}`];
  if (l.reason) lines.push(`  ${l.reason}`);
  lines.push(
    '',
    ...table(
      ['METHOD', 'IN USE', 'ABOUT'],
      l.methods.map((m) => [m.method, m.in_use ? 'yes' : '', m.about]),
    ),
    '',
    ...relayListLines(l.relay_list),
  );
  return lines;
}

export function formatApiAccessTest(t: ApiAccessTest): string[] {
  return [t.ok ? `${t.method}: ${t.message}` : `${t.method}: fails: ${t.message}`];
}

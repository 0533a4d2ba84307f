// netcli's words for API access: the methods and the one in use, the relay list, a method tried.
import type {
  ApiAccessList,
  ApiAccessStatus,
  ApiAccessTest,
  Translate,
} from '../../contracts/index.js';
import { table } from './table.js';
import { english } from './words.js';

const sourceWords = (t: Translate) =>
  ({
    shipped: t('output.apiAccess.source.shipped'),
    given: t('output.apiAccess.source.given'),
    service: t('output.apiAccess.source.service'),
  }) as const;
const keyWords = (t: Translate) =>
  ({
    daemon: t('output.apiAccess.key.daemon'),
    config: t('output.apiAccess.key.config'),
    shipped: t('output.apiAccess.key.shipped'),
  }) as const;

/** A date of an ISO time, as the language writes it (English: as the engine gave it). */
function day(iso: string | null | undefined, t: Translate): string {
  if (!iso) return '?';
  if (t === english) return iso.slice(0, 10);
  return t('output.date', { when: new Date(iso) });
}

/** One line of the relay list in use (and one more when a list was refused). */
export function relayListLines(s: ApiAccessStatus['relay_list'], t: Translate = english): string[] {
  const lines: string[] = [];
  if (s.key_from === null) lines.push(t('output.apiAccess.relayListUnchecked'));
  else if (s.source === null) lines.push(t('output.apiAccess.relayListNone'));
  else
    lines.push(
      t('output.apiAccess.relayList', {
        count: s.relays,
        source: sourceWords(t)[s.source],
        issued: day(s.issued_at, t),
        expires: day(s.expires_at, t),
        key: keyWords(t)[s.key_from],
      }),
    );
  if (s.refused)
    lines.push(
      t('output.apiAccess.refused', {
        source: sourceWords(t)[s.refused.source],
        message: s.refused.message,
      }),
    );
  return lines;
}

/** The status's line: how the service is reached, when it is not straight. */
export function apiAccessLine(s: ApiAccessStatus, t: Translate = english): string | null {
  if (s.in_use === null || s.in_use === 'direct') return null;
  return s.reason
    ? t('output.apiAccess.throughBecause', { method: s.in_use, reason: s.reason })
    : t('output.apiAccess.through', { method: s.in_use });
}

export function formatApiAccessList(l: ApiAccessList, t: Translate = english): string[] {
  const lines = [
    l.in_use
      ? t('output.apiAccess.settingInUse', { setting: l.setting, method: l.in_use })
      : t('output.apiAccess.setting', { setting: l.setting }),
  ];
  if (l.reason) lines.push(`  ${l.reason}`);
  lines.push(
    '',
    ...table(
      [
        t('output.apiAccess.columns.method'),
        t('output.apiAccess.columns.inUse'),
        t('output.apiAccess.columns.about'),
      ],
      l.methods.map((m) => [m.method, m.in_use ? t('output.apiAccess.yes') : '', m.about]),
    ),
    '',
    ...relayListLines(l.relay_list, t),
  );
  return lines;
}

export function formatApiAccessTest(r: ApiAccessTest, t: Translate = english): string[] {
  return [
    r.ok
      ? t('output.apiAccess.testOk', { method: r.method, message: r.message })
      : t('output.apiAccess.testFails', { method: r.method, message: r.message }),
  ];
}

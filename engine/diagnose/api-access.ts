// The API access check: how this engine reaches its control plane (directly, through a relay,
// through a proxy), and whether it holds a relay list to fall back on when the service is
// blocked here. From the engine's own state: no call of its own.
import {
  diagnosticCheck,
  type ApiAccessStatus,
  type DiagnosticCheck,
} from '../../contracts/index.js';

const KEY_FIX =
  'give the service’s public key: netcli init --endpoint <url> --service-key <base64> (ferry-server --print-public-key prints it)';

export function checkApiAccess(s: ApiAccessStatus): DiagnosticCheck {
  const list = s.relay_list;
  const count = list.relays;
  if (list.refused) {
    const expired = list.refused.why === 'expired';
    const kept = count > 0;
    return diagnosticCheck(
      'api-access',
      'warning',
      `a relay list was refused (${list.refused.message}); ${kept ? `the last good one (${count} relays) stays in use` : 'no other one is usable'}`,
      expired ? 'reach the service once: the list is refreshed then' : KEY_FIX,
      expired
        ? { finding: kept ? 'list-expired' : 'list-expired-none', params: { count } }
        : {
            finding: kept ? 'list-refused' : 'list-refused-none',
            params: { count, why: list.refused.why },
            action: { kind: 'setup' },
          },
    );
  }
  const fallback =
    count > 0
      ? `a signed list of ${count} relay${count === 1 ? '' : 's'} to reach it through if it is blocked`
      : 'no relay list to reach it through if it is blocked';
  if (s.in_use === null)
    return count > 0
      ? diagnosticCheck(
          'api-access',
          'ok',
          `the service was not reached yet since the engine started; ${fallback}`,
          null,
          { finding: 'not-reached', params: { count } },
        )
      : diagnosticCheck(
          'api-access',
          'skipped',
          `the service was not reached yet since the engine started; ${fallback}`,
          null,
          { finding: 'not-reached-no-list' },
        );
  if (s.in_use === 'direct') {
    const summary = `the service is reached directly; ${fallback}`;
    if (count > 0)
      return diagnosticCheck('api-access', 'ok', summary, null, {
        finding: 'direct',
        params: { count },
      });
    return list.key_from !== null
      ? diagnosticCheck('api-access', 'ok', summary, null, { finding: 'direct-no-list' })
      : diagnosticCheck('api-access', 'warning', summary, KEY_FIX, {
          finding: 'direct-unverified',
          action: { kind: 'setup' },
        });
  }
  const relays = s.in_use === 'relays';
  return diagnosticCheck(
    'api-access',
    'ok',
    `the service is reached ${relays ? 'through a relay' : `through ${s.in_use}`}: ${s.reason ?? ''}`.replace(
      /: $/,
      '',
    ),
    null,
    relays ? { finding: 'via-relay' } : { finding: 'via-proxy', params: { method: s.in_use } },
  );
}

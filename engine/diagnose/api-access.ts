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
  if (list.refused)
    return diagnosticCheck(
      'api-access',
      'warning',
      `a relay list was refused (${list.refused.message}); ${list.relays > 0 ? `the last good one (${list.relays} relays) stays in use` : 'no other one is usable'}`,
      list.refused.why === 'expired'
        ? 'reach the service once: the list is refreshed then'
        : KEY_FIX,
    );
  const fallback =
    list.relays > 0
      ? `a signed list of ${list.relays} relay${list.relays === 1 ? '' : 's'} to reach it through if it is blocked`
      : 'no relay list to reach it through if it is blocked';
  if (s.in_use === null)
    return diagnosticCheck(
      'api-access',
      list.relays > 0 ? 'ok' : 'skipped',
      `the service was not reached yet since the engine started; ${fallback}`,
    );
  if (s.in_use === 'direct')
    return diagnosticCheck(
      'api-access',
      list.relays > 0 || list.key_from !== null ? 'ok' : 'warning',
      `the service is reached directly; ${fallback}`,
      list.relays > 0 || list.key_from !== null ? undefined : KEY_FIX,
    );
  return diagnosticCheck(
    'api-access',
    'ok',
    `the service is reached ${s.in_use === 'relays' ? 'through a relay' : `through ${s.in_use}`}: ${s.reason ?? ''}`.replace(
      /: $/,
      '',
    ),
  );
}

// What the split tunnel does now (split), from the engine's protection status and the
// IP-to-country data it uses.
import {
  diagnosticCheck,
  type DiagnosticCheck,
  type ProtectionStatus,
} from '../../contracts/index.js';

export interface SplitDeps {
  protection: ProtectionStatus;
  /** The split setting. */
  setting: 'auto' | 'off';
  /** A connection is under way or up (the split tunnel applies only then). */
  active: boolean;
  /** The data in use (null: not known). */
  describe(): { dataset: string; homeRanges: number | null } | null;
}

export function checkSplit(deps: SplitDeps): DiagnosticCheck {
  const p = deps.protection;
  if (p.split === 'by-country') {
    const data = deps.describe();
    const details = [
      `home ${p.home_country ?? 'unknown'}`,
      ...(data?.homeRanges != null ? [`${data.homeRanges} ranges`] : []),
      ...(data ? [`dataset ${data.dataset}`] : []),
    ];
    const home = p.home_country ?? 'unknown';
    return diagnosticCheck(
      'split',
      'ok',
      `only cross-border traffic goes through the tunnel (${details.join(', ')})`,
      null,
      data?.homeRanges != null
        ? {
            finding: 'by-country',
            params: { home, count: data.homeRanges, dataset: data.dataset },
          }
        : { finding: 'by-country-brief', params: { home } },
    );
  }
  if (p.split === 'unavailable')
    return diagnosticCheck(
      'split',
      'warning',
      'split auto, but the home country is unknown: everything goes through the tunnel',
      'netcli config set home_country <code>',
      { finding: 'unknown-home', action: { kind: 'choose-setting', key: 'home_country' } },
    );
  if (deps.setting === 'auto' && !deps.active)
    return diagnosticCheck('split', 'ok', 'auto: applies from the next connect', null, {
      finding: 'next-connect',
    });
  return diagnosticCheck('split', 'ok', 'off: everything goes through the tunnel', null, {
    finding: 'off',
  });
}

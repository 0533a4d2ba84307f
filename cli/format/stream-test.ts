// netcli's words for a stream-test: the verdict at a glance, what it rests on, and the fix.
import type { StreamTestResult, StreamVerdict, Translate } from '../../contracts/index.js';
import { english } from './words.js';

const verdictWords = (t: Translate): Readonly<Record<StreamVerdict, string>> => ({
  ok: t('output.streamTest.verdicts.ok'),
  'region-mismatch': t('output.streamTest.verdicts.region-mismatch'),
  'proxy-detected': t('output.streamTest.verdicts.proxy-detected'),
  unavailable: t('output.streamTest.verdicts.unavailable'),
  unreachable: t('output.streamTest.verdicts.unreachable'),
});

export function formatStreamTest(r: StreamTestResult, t: Translate = english): string[] {
  const lines = [`${r.name}: ${verdictWords(t)[r.verdict]} · ${r.detail}`];
  if (r.reachable) {
    const node = r.node_region
      ? r.node_country
        ? t('output.streamTest.nodeCountry', { region: r.node_region, country: r.node_country })
        : t('output.streamTest.nodeNoCountry', { region: r.node_region })
      : t('output.streamTest.unknown');
    lines.push(
      t('output.streamTest.catalogue', {
        catalogue: r.catalog_region ?? t('output.streamTest.notRead'),
        node,
      }),
    );
  }
  if (r.fix) lines.push(t('output.streamTest.fix', { fix: r.fix }));
  return lines;
}

// netcli's words for a stream-test: the verdict at a glance, what it rests on, and the fix.
import type { StreamTestResult, StreamVerdict } from '../../contracts/index.js';

const VERDICT_WORDS: Readonly<Record<StreamVerdict, string>> = {
  ok: 'OK',
  'region-mismatch': 'region mismatch',
  'proxy-detected': 'proxy detected',
  unavailable: 'not available here',
  unreachable: 'unreachable',
};

export function formatStreamTest(r: StreamTestResult): string[] {
  const lines = [`${r.name}: ${VERDICT_WORDS[r.verdict]} · ${r.detail}`];
  if (r.reachable) {
    const node = r.node_region
      ? `${r.node_region}${r.node_country ? ` (${r.node_country})` : ', no single country'}`
      : 'unknown';
    lines.push(`Catalogue ${r.catalog_region ?? 'not read'} · node region ${node}`);
  }
  if (r.fix) lines.push(`Fix: ${r.fix}`);
  return lines;
}

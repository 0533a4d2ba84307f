// The terminal UI's region list: each region (and region rule) with its latency and load, the
// selected row marked, the current one noted; a window of rows around the selection. Columns
// are measured in terminal cells (a Chinese character takes two), numbers in the language's
// digits.
import { Box } from 'ink';
import { plainLine } from '../terminal-text.js';
import { Text } from './text.js';
import {
  formatPercent,
  latencyWords,
  padEnd,
  padStart,
  textWidth,
  type TuiWords,
} from './language.js';
import { isCurrent, type RegionRow, type TuiState } from './state.js';
import { useWords } from './words.js';

/** How many rows are shown at once. */
export const LIST_ROWS = 12;

/** The columns' widths in cells: name, id and area; latency and load at least. */
const NAME = 28;
const DETAIL = 34;
const LATENCY = 8;
const LOAD = 6;

/** The widths of the number columns: wide enough for their heading and every value shown. */
export interface NumberColumns {
  latency: number;
  load: number;
}

const latencyText = (row: RegionRow, words: TuiWords) =>
  row.latency ? latencyWords(row.latency, words) : '-';
const loadText = (row: RegionRow, { language }: TuiWords) =>
  row.load === null ? '' : formatPercent(row.load, language);

export function numberColumns(rows: readonly RegionRow[], words: TuiWords): NumberColumns {
  const { t } = words;
  return {
    latency: Math.max(
      LATENCY,
      textWidth(t('tui.regions.columns.latency')),
      ...rows.map((r) => textWidth(latencyText(r, words))),
    ),
    load: Math.max(
      LOAD,
      textWidth(t('tui.regions.columns.load')),
      ...rows.map((r) => textWidth(loadText(r, words))),
    ),
  };
}

/** The first row of the window of `size` rows that keeps `cursor` in sight. */
export function windowStart(rows: number, cursor: number, size: number): number {
  if (rows <= size) return 0;
  return Math.max(0, Math.min(cursor - Math.floor(size / 2), rows - size));
}

/** "13-24 of 40": which rows of how many the window shows. */
export function rangeWords(start: number, shown: number, total: number, { t }: TuiWords): string {
  return t('tui.range', { from: start + 1, to: start + shown, total });
}

/** The words of one row, columns padded: name, id and area, latency, load, remark. */
export function rowCells(
  row: RegionRow,
  current: boolean,
  words: TuiWords,
  widths: NumberColumns = { latency: LATENCY, load: LOAD },
): [string, string, string, string, string] {
  const { t } = words;
  const remark = current
    ? t('tui.regions.connected')
    : !row.allowed
      ? t('tui.regions.notInPlan')
      : row.nodes === 0
        ? t('tui.regions.noNode')
        : '';
  const detail =
    row.kind === 'rule'
      ? t('tui.regions.ruleDetail', { strategy: row.strategy ?? '', area: row.area })
      : row.detail;
  // Measured as drawn: the controls a name may hold are gone before the columns are padded.
  return [
    padEnd(plainLine(row.name), NAME),
    padEnd(plainLine(detail), DETAIL),
    padStart(latencyText(row, words), widths.latency),
    padStart(loadText(row, words), widths.load),
    remark,
  ];
}

export function RegionList({ state }: { state: TuiState }) {
  const words = useWords();
  const { t } = words;
  // Nothing to read them from yet: the link's trouble says why.
  if (state.regions === null && state.link.state !== 'up') return null;
  if (state.regionsFailure && !state.regions) {
    return (
      <Box flexDirection="column" marginTop={1}>
        <Text bold>{t('tui.regions.title')}</Text>
        <Text color="red">
          {t('tui.regions.unavailable', { message: state.regionsFailure.message })}
        </Text>
        {state.regionsFailure.hints.map((h) => (
          <Text key={h} color="gray">
            {t('tui.messages.hint', { hint: h })}
          </Text>
        ))}
      </Box>
    );
  }
  const rows = state.regions ?? [];
  const start = windowStart(rows.length, state.cursor, LIST_ROWS);
  const shown = rows.slice(start, start + LIST_ROWS);
  const widths = numberColumns(shown, words);
  return (
    <Box flexDirection="column" marginTop={1}>
      <Text bold>
        {'  '}
        {padEnd(t('tui.regions.title'), NAME)} {padEnd(t('tui.regions.columns.detail'), DETAIL)}{' '}
        {padStart(t('tui.regions.columns.latency'), widths.latency)}{' '}
        {padStart(t('tui.regions.columns.load'), widths.load)}
      </Text>
      {state.regions === null ? <Text color="gray"> {t('tui.regions.reading')}</Text> : null}
      {shown.map((row, i) => {
        const selected = start + i === state.cursor;
        const current = isCurrent(state, row);
        const [name, detail, latency, load, remark] = rowCells(row, current, words, widths);
        return (
          <Text
            key={`${row.kind}:${row.id}`}
            color={selected ? 'cyan' : row.allowed ? undefined : 'gray'}
            bold={selected}
            wrap="truncate-end"
          >
            {selected ? '› ' : '  '}
            {name} {detail} {latency} {load}{' '}
            <Text color={current ? 'green' : 'gray'}>{remark}</Text>
          </Text>
        );
      })}
      {rows.length > shown.length ? (
        <Text color="gray">
          {'  '}
          {rangeWords(start, shown.length, rows.length, words)}
        </Text>
      ) : null}
    </Box>
  );
}

// The terminal UI's region list: each region (and region rule) with its latency and load, the
// selected row marked, the current one noted; a window of rows around the selection.
import { Box } from 'ink';
import { plainLine } from '../terminal-text.js';
import { Text } from './text.js';
import { isCurrent, type RegionRow, type TuiState } from './state.js';

/** How many rows are shown at once. */
export const LIST_ROWS = 12;

/** The first row of the window of `size` rows that keeps `cursor` in sight. */
export function windowStart(rows: number, cursor: number, size: number): number {
  if (rows <= size) return 0;
  return Math.max(0, Math.min(cursor - Math.floor(size / 2), rows - size));
}

const percent = (share: number) => `${Math.round(share * 100)}%`;

/** The words of one row, columns padded: name, id and area, latency, load, remark. */
export function rowCells(
  row: RegionRow,
  current: boolean,
): [string, string, string, string, string] {
  const remark = current
    ? '● connected'
    : !row.allowed
      ? 'not in your plan'
      : row.nodes === 0
        ? 'no node available'
        : '';
  // Measured as drawn: the controls a name may hold are gone before the columns are padded.
  return [
    plainLine(row.name).padEnd(28).slice(0, 28),
    plainLine(row.detail).padEnd(34).slice(0, 34),
    (row.latency ?? '-').padStart(8),
    (row.load === null ? '' : percent(row.load)).padStart(6),
    remark,
  ];
}

export function RegionList({ state }: { state: TuiState }) {
  // Nothing to read them from yet: the link's trouble says why.
  if (state.regions === null && state.link.state !== 'up') return null;
  if (state.regionsFailure && !state.regions) {
    return (
      <Box flexDirection="column" marginTop={1}>
        <Text bold>Regions</Text>
        <Text color="red">Regions unavailable: {state.regionsFailure.message}</Text>
        {state.regionsFailure.hints.map((h) => (
          <Text key={h} color="gray">
            hint: {h}
          </Text>
        ))}
      </Box>
    );
  }
  const rows = state.regions ?? [];
  const start = windowStart(rows.length, state.cursor, LIST_ROWS);
  const shown = rows.slice(start, start + LIST_ROWS);
  return (
    <Box flexDirection="column" marginTop={1}>
      <Text bold>
        {'  '}
        {'Regions'.padEnd(28)} {'ID, AREA'.padEnd(34)} {'LATENCY'.padStart(8)} {'LOAD'.padStart(6)}
      </Text>
      {state.regions === null ? <Text color="gray"> Reading the regions…</Text> : null}
      {shown.map((row, i) => {
        const selected = start + i === state.cursor;
        const current = isCurrent(state, row);
        const [name, detail, latency, load, remark] = rowCells(row, current);
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
          {start + 1}-{start + shown.length} of {rows.length}
        </Text>
      ) : null}
    </Box>
  );
}

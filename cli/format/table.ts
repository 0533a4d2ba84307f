// Plain-text tables for netcli's human output: columns padded to their widest cell.
import { plainLine } from '../terminal-text.js';

export function table(headers: readonly string[], cells: readonly (readonly string[])[]): string[] {
  // Measured as shown: the controls a name from outside may hold are gone before padding.
  const rows = cells.map((r) => r.map(plainLine));
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (row: readonly string[]) =>
    row
      .map((c, i) => (i === row.length - 1 ? c : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(headers), ...rows.map(line)];
}

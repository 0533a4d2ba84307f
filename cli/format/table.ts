// Plain-text tables for netcli's human output: columns padded to their widest cell, measured in
// the columns a terminal gives each character (two for Chinese characters and full-width forms).
import { plainLine } from '../terminal-text.js';

/** East Asian wide and full-width characters: two columns each on a terminal. */
const WIDE =
  /[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]/gu;

/** The columns `text` takes on a terminal. */
export function displayWidth(text: string): number {
  return [...text].length + (text.match(WIDE)?.length ?? 0);
}

/** `text` padded with spaces to `width` columns. */
function padTo(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - displayWidth(text)));
}

export function table(headers: readonly string[], cells: readonly (readonly string[])[]): string[] {
  // Measured as shown: the controls a name from outside may hold are gone before padding.
  const rows = cells.map((r) => r.map(plainLine));
  const widths = headers.map((h, i) =>
    Math.max(displayWidth(h), ...rows.map((r) => displayWidth(r[i] ?? ''))),
  );
  const line = (row: readonly string[]) =>
    row
      .map((c, i) => (i === row.length - 1 ? c : padTo(c, widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(headers), ...rows.map(line)];
}

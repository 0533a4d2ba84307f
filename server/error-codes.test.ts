// No dead codes: each of the control API's error codes is answered by the control plane (its
// domain, its HTTP layer or the shared HTTP adapter of platform/).
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../contracts/problem.js';

const ROOT = path.resolve(import.meta.dirname, '..');

/** The production sources under `dir` (no tests or fakes). */
async function sources(dir: string): Promise<string[]> {
  const entries = await readdir(path.join(ROOT, dir), { recursive: true, withFileTypes: true });
  const files = entries
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .filter((e) => !/\.(test|fake|memory)\.ts$/.test(e.name))
    .map((e) => path.join(e.parentPath, e.name));
  return Promise.all(files.map((f) => readFile(f, 'utf8')));
}

/** A FerryError made with `code`, or a typed constant of it (a table of titles or statuses names it, but raises nothing). */
function raises(text: string, code: string): boolean {
  const quoted = `'${code}'`;
  return new RegExp(
    `(FerryError|fail|Problem)\\(\\s*${quoted}|code: ${quoted}|Code = ${quoted}`,
  ).test(text);
}

describe('control API error codes', () => {
  it('are each raised somewhere in the control plane', async () => {
    const text = (await Promise.all(['server', 'platform'].map(sources))).flat().join('\n');
    const dead = ERROR_CODES.filter((code) => !raises(text, code));
    expect(dead).toEqual([]);
  });
});

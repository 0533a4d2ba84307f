// No dead codes in the local API's two vocabularies: each of the engine's error codes is raised by
// the engine or the adapters of platform/ it uses, each of the control API's by the control plane
// (a code nothing raises is a status and words that can never show).
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENGINE_ERROR_CODES } from '../../contracts/engine-errors.js';
import { ERROR_CODES } from '../../contracts/problem.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** The production sources under `dir` (no tests, fakes, in-memory stand-ins or contract suites). */
async function sources(dir: string): Promise<string[]> {
  const entries = await readdir(path.join(ROOT, dir), { recursive: true, withFileTypes: true });
  const files = entries
    .filter((e) => e.isFile() && /\.tsx?$/.test(e.name))
    .filter((e) => !/\.(test|fake|memory|contract)\.tsx?$/.test(e.name))
    .map((e) => path.join(e.parentPath, e.name));
  return Promise.all(files.map((f) => readFile(f, 'utf8')));
}

/**
 * A FerryError made with `code`, or a typed constant of it (a table of titles or statuses names
 * it, but raises nothing).
 */
function raises(text: string, code: string): boolean {
  const quoted = `'${code}'`;
  return new RegExp(
    `(FerryError|fail|Problem)\\(\\s*${quoted}|code: ${quoted}|Code = ${quoted}`,
  ).test(text);
}

describe('engine error codes', () => {
  it('are each raised somewhere in the engine or platform/', async () => {
    const text = (await Promise.all(['engine', 'platform'].map(sources))).flat().join('\n');
    const dead = ENGINE_ERROR_CODES.filter((code) => !raises(text, code));
    expect(dead).toEqual([]);
  });
});

describe('control API error codes', () => {
  it('are each raised somewhere in the control plane', async () => {
    const text = (await Promise.all(['server', 'platform'].map(sources))).flat().join('\n');
    const dead = ERROR_CODES.filter((code) => !raises(text, code));
    expect(dead).toEqual([]);
  });
});

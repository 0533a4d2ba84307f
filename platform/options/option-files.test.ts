// The file options of the servers: read, refused with the reason, the platforms file checked.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { InvalidArgumentError } from 'commander';
import { afterAll, describe, expect, it } from 'vitest';

import { optionFileText, platformsFileOption } from './option-files.js';

const dir = mkdtempSync(path.join(tmpdir(), 'ferry-option-files-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('option files', () => {
  it('reads a file, and refuses one that cannot be read with its error code', () => {
    const file = path.join(dir, 'a.pem');
    writeFileSync(file, 'text');
    expect(optionFileText(file)).toBe('text');
    const missing = () => optionFileText(path.join(dir, 'missing'));
    expect(missing).toThrow(InvalidArgumentError);
    expect(missing).toThrow('cannot read it (ENOENT)');
  });

  it('takes a platforms file that the table accepts, and names the problem of one it does not', () => {
    const bad = path.join(dir, 'platforms.json');
    writeFileSync(bad, '{ not json');
    expect(() => platformsFileOption(bad)).toThrow(InvalidArgumentError);
    const empty = path.join(dir, 'empty.json');
    writeFileSync(empty, '{ "platforms": {} }');
    expect(Object.keys(platformsFileOption(empty)).length).toBeGreaterThan(0);
  });
});

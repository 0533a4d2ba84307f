// The state directory is private or refused, and files in it are replaced whole or not at all.
import {
  chmodSync,
  chownSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { FerryError } from './errors.js';
import { ensureStateDir, writeFileAtomic } from './state-dir.js';

let root: string;
beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'ferry-state-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const mode = (p: string) => statSync(p).mode & 0o777;

async function refusal(p: Promise<unknown>): Promise<FerryError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(FerryError);
  return e as FerryError;
}

describe('the state directory', () => {
  it('is created 0700, with its parents', async () => {
    const dir = path.join(root, 'var', 'lib', 'ferry');
    await ensureStateDir(dir);
    expect(statSync(dir).isDirectory()).toBe(true);
    expect(mode(dir)).toBe(0o700);
    await ensureStateDir(dir); // and found again
  });

  it('is refused, not chmod-ed, when others can enter it', async () => {
    const dir = path.join(root, 'shared');
    mkdirSync(dir);
    chmodSync(dir, 0o755);
    const e = await refusal(ensureStateDir(dir));
    expect(e.code).toBe('state-dir-insecure');
    expect(e.message).toBe(
      `the state directory ${dir} is open to other users (mode 0755): run chmod 700 ${dir}`,
    );
    expect(mode(dir)).toBe(0o755);
  });

  it.runIf(process.getuid?.() === 0)('is refused when another user owns it', async () => {
    const dir = path.join(root, 'theirs');
    mkdirSync(dir, { mode: 0o700 });
    chownSync(dir, 4321, 4321);
    expect((await refusal(ensureStateDir(dir))).code).toBe('state-dir-insecure');
  });

  it('is refused when it is a file', async () => {
    const file = path.join(root, 'file');
    writeFileSync(file, 'x');
    expect((await refusal(ensureStateDir(file))).code).toBe('state-dir-unusable');
  });
});

describe('atomic writes', () => {
  it('write the file with exactly the mode asked, whatever the umask', async () => {
    const file = path.join(root, 'a.json');
    const old = process.umask(0);
    try {
      await writeFileAtomic(file, 'one', 0o600);
    } finally {
      process.umask(old);
    }
    expect(readFileSync(file, 'utf8')).toBe('one');
    expect(mode(file)).toBe(0o600);
    await writeFileAtomic(file, 'two', 0o600);
    expect(readFileSync(file, 'utf8')).toBe('two');
    expect(readdirSync(root)).toEqual(['a.json']);
  });

  it('leave the old file and no temp file behind when the replacement fails', async () => {
    // A non-empty directory where the file should be: the rename fails.
    const target = path.join(root, 'b.json');
    mkdirSync(target);
    writeFileSync(path.join(target, 'keep'), 'x');
    await expect(writeFileAtomic(target, 'new', 0o600)).rejects.toMatchObject({
      code: expect.stringMatching(/^E/),
    });
    expect(readdirSync(root)).toEqual(['b.json']);
    expect(readFileSync(path.join(target, 'keep'), 'utf8')).toBe('x');
  });
});

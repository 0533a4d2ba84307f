// The state directory is private or refused, files in it are replaced whole or not at all, and
// its JSON files are written 0600, read against their schema, and refused with their own words.
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
import { z } from 'zod';

import {
  ensureStateDir,
  readStateFile,
  settingsFileErrors,
  writeFileAtomic,
  writeStateFile,
  type StateFileErrors,
} from './state-dir.js';
import { refusal } from './testing/refusal.js';

let root: string;
beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'ferry-state-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const mode = (p: string) => statSync(p).mode & 0o777;

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

describe('JSON state files', () => {
  const Doc = z.strictObject({ version: z.literal(1), names: z.array(z.string()) });
  const SECRET: StateFileErrors = {
    ...settingsFileErrors('secret'),
    insecure: { code: 'keys-insecure', message: (file, m) => `${file} is open (mode ${m})` },
  };

  it('are written 0600 whatever the umask, and read back as the schema reads them', async () => {
    const dir = path.join(root, 'state');
    const file = path.join(dir, 'doc.json');
    expect(await readStateFile(file, Doc, 'names')).toBeNull();
    const old = process.umask(0);
    try {
      await writeStateFile(dir, file, { version: 1, names: ['a'] }, 'names');
    } finally {
      process.umask(old);
    }
    expect(mode(dir)).toBe(0o700);
    expect(mode(file)).toBe(0o600);
    expect(readFileSync(file, 'utf8')).toBe('{\n  "version": 1,\n  "names": [\n    "a"\n  ]\n}\n');
    expect(await readStateFile(file, Doc, 'names')).toEqual({ version: 1, names: ['a'] });
    expect(readdirSync(dir)).toEqual(['doc.json']);
  });

  it('say what failed, as a settings file or in their own words', async () => {
    const file = path.join(root, 'doc.json');
    writeFileSync(file, '{"version":1,"names":[1]}', { mode: 0o600 });
    const corrupt = await refusal(readStateFile(file, Doc, 'region rules'));
    expect([corrupt.code, corrupt.message]).toEqual([
      'config-corrupt',
      `the region rules file ${file} is damaged and was left as it is`,
    ]);
    expect(readFileSync(file, 'utf8')).toBe('{"version":1,"names":[1]}');
    writeFileSync(file, '{"version":');
    expect((await refusal(readStateFile(file, Doc, SECRET))).message).toBe(
      `the secret file ${file} is damaged and was left as it is`,
    );

    const dir = path.join(root, 'as-dir.json');
    mkdirSync(dir);
    const unreadable = await refusal(readStateFile(dir, Doc, 'services'));
    expect([unreadable.code, unreadable.message]).toEqual([
      'config-unreadable',
      `cannot read the services ${dir} (EISDIR)`,
    ]);

    const failing = () => Promise.reject(Object.assign(new Error('full'), { code: 'ENOSPC' }));
    const write = await refusal(writeStateFile(root, file, {}, 'services', failing));
    expect([write.code, write.message]).toEqual([
      'config-write-failed',
      `cannot save the services in ${root} (ENOSPC)`,
    ]);
    expect(write.cause).toMatchObject({ code: 'ENOSPC' });
  });

  it('with secrets are refused unread when others may open them; others are read', async () => {
    const file = path.join(root, 'doc.json');
    writeFileSync(file, '{"version":1,"names":["secret"]}', { mode: 0o600 });
    expect(await readStateFile(file, Doc, SECRET)).toEqual({ version: 1, names: ['secret'] });
    for (const m of [0o640, 0o604, 0o620]) {
      chmodSync(file, m);
      const e = await refusal(readStateFile(file, Doc, SECRET));
      expect([e.code, e.message]).toEqual([
        'keys-insecure',
        `${file} is open (mode 0${m.toString(8)})`,
      ]);
    }
    // A settings file without secrets is read whatever its mode.
    expect(await readStateFile(file, Doc, 'names')).toEqual({ version: 1, names: ['secret'] });
  });
});

// `netcli split add|remove` and `netcli exec` in the engine: a domain rule's change goes to the
// resolver and the sets, a program rule's to the programs' split (its rules only); a program rule
// only for a program that is there; nothing by program where it is not supported; and at the
// engine's start the stored program rules are looked for.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import type { AppRule, SplitRule, SplitVia } from '../../contracts/index.js';
import { FerryError } from '../errors.js';
import type { AppSplit } from './app-split.js';
import { SplitRuleCommands } from './split-rule-commands.js';
import { SplitRuleStore } from './split-rules.js';

let root: string;
let stateDir: string;
let program: string;
let changed: SplitRule[][];
let setRules: AppRule[][];
let execs: [number, SplitVia][];

/** An AppSplit that records what it is told. */
function fakeApps(): AppSplit {
  return {
    setRules: async (rules: readonly AppRule[]) => {
      setRules.push([...rules]);
    },
    exec: async (pid: number, via: SplitVia) => {
      execs.push([pid, via]);
    },
  } as unknown as AppSplit;
}

function commands(apps: AppSplit | null = fakeApps(), store = new SplitRuleStore(stateDir)) {
  return new SplitRuleCommands({
    store,
    rulesChanged: async (rules) => {
      changed.push([...rules]);
    },
    apps,
  });
}

async function refusal(p: Promise<unknown>): Promise<FerryError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(FerryError);
  return e as FerryError;
}

beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'ferry-split-commands-'));
  stateDir = path.join(root, 'state');
  mkdirSync(stateDir, { mode: 0o700 });
  // A program of this host.
  program = path.join(root, 'firefox');
  writeFileSync(program, '#!/bin/sh\n', { mode: 0o755 });
  changed = [];
  setRules = [];
  execs = [];
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('SplitRuleCommands', () => {
  it('gives a domain rule to the resolver with all the rules, not to the programs', async () => {
    const c = commands();
    await c.add({ app: program, via: 'tunnel' });
    setRules = [];
    expect(await c.add({ domain: 'example.cn', via: 'direct' })).toEqual({
      domain: 'example.cn',
      via: 'direct',
    });
    expect(changed).toHaveLength(1);
    expect(changed[0]).toHaveLength(2);
    expect(changed[0]).toEqual(
      expect.arrayContaining([
        { domain: 'example.cn', via: 'direct' },
        { app: program, via: 'tunnel' },
      ]),
    );
    expect(setRules).toEqual([]);
  });

  it('gives a program rule to the programs’ split, its rules only, not to the resolver', async () => {
    const c = commands();
    await c.add({ domain: 'example.cn', via: 'direct' });
    changed = [];
    expect(await c.add({ app: program, via: 'tunnel' })).toEqual({ app: program, via: 'tunnel' });
    expect(setRules).toEqual([[{ app: program, via: 'tunnel' }]]);
    expect(changed).toEqual([]);
    expect(await c.list()).toEqual({
      rules: expect.arrayContaining([
        { domain: 'example.cn', via: 'direct' },
        { app: program, via: 'tunnel' },
      ]),
    });
  });

  it('refuses a program rule for a path where there is no program, naming it, and keeps nothing', async () => {
    const c = commands();
    const missing = path.join(root, 'no-such-program');
    const e = await refusal(c.add({ app: missing, via: 'direct' }));
    expect(e.code).toBe('config-invalid');
    expect(e.message).toContain(missing);
    // A directory is no program either.
    const dir = await refusal(c.add({ app: root, via: 'direct' }));
    expect(dir.code).toBe('config-invalid');
    expect(dir.message).toContain(root);
    expect(await c.list()).toEqual({ rules: [] });
    expect(await new SplitRuleStore(stateDir).list()).toEqual([]);
    expect(setRules).toEqual([]);
    expect(changed).toEqual([]);
  });

  it('refuses program rules and exec where programs cannot be split; domain rules still work', async () => {
    const c = commands(null);
    const add = await refusal(c.add({ app: program, via: 'direct' }));
    expect(add.code).toBe('not-supported');
    const exec = await refusal(c.exec(4242, 'direct'));
    expect(exec.code).toBe('not-supported');
    expect(await c.list()).toEqual({ rules: [] });

    await c.add({ domain: 'example.cn', via: 'direct' });
    expect(changed).toEqual([[{ domain: 'example.cn', via: 'direct' }]]);
  });

  it('keeps no program rule the programs’ split refused (no cgroup v2 on this host after all)', async () => {
    const refusing = {
      setRules: async () => {
        throw new FerryError(
          'not-supported',
          'split rules by program need the cgroup v2 hierarchy',
        );
      },
      exec: async () => undefined,
    } as unknown as AppSplit;
    const c = commands(refusing);
    const e = await refusal(c.add({ app: program, via: 'tunnel' }));
    expect(e.code).toBe('not-supported');
    // Refused, so not listed as if it held.
    expect(await c.list()).toEqual({ rules: [] });
  });

  it('puts a netcli exec’s process on its way through the programs’ split', async () => {
    await commands().exec(4242, 'tunnel');
    expect(execs).toEqual([[4242, 'tunnel']]);
  });

  it('takes a removed program rule away from the programs’ split, and a domain rule from the resolver', async () => {
    const other = path.join(root, 'curl');
    writeFileSync(other, '#!/bin/sh\n', { mode: 0o755 });
    const c = commands();
    await c.add({ app: program, via: 'tunnel' });
    await c.add({ app: other, via: 'direct' });
    await c.add({ domain: 'example.cn', via: 'direct' });
    setRules = [];
    changed = [];

    await c.remove({ app: program });
    expect(setRules).toEqual([[{ app: other, via: 'direct' }]]);
    expect(changed).toEqual([]);

    await c.remove({ app: other });
    expect(setRules).toEqual([[{ app: other, via: 'direct' }], []]);

    await c.remove({ domain: 'example.cn' });
    expect(changed).toEqual([[]]);
    expect(setRules).toHaveLength(2);
  });

  it('tells no one of a rule that was not there', async () => {
    const c = commands();
    const e = await refusal(c.remove({ app: program }));
    expect(e.code).toBe('split-rule-not-found');
    expect(setRules).toEqual([]);
    expect(changed).toEqual([]);
  });

  it('looks for the stored program rules’ programs at the start, once', async () => {
    await commands().add({ app: program, via: 'tunnel' });
    await commands().add({ domain: 'example.cn', via: 'direct' });
    setRules = [];
    changed = [];

    await commands().start();
    expect(setRules).toEqual([[{ app: program, via: 'tunnel' }]]);
    expect(changed).toEqual([]);
  });

  it('has nothing to look for at the start without program rules', async () => {
    await commands().start();
    await commands().add({ domain: 'example.cn', via: 'direct' });
    await commands().start();
    expect(setRules).toEqual([]);
    // Where programs cannot be split, stored program rules stop nothing.
    await commands().add({ app: program, via: 'tunnel' });
    setRules = [];
    await commands(null).start();
    expect(setRules).toEqual([]);
  });
});

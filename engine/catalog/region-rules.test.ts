// Region rules: kept in the state dir, names unique, a rule's name turned into the control
// plane's `<area>:<strategy>`, everything else passed on as typed.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FerryError } from '../errors.js';
import { RuleStore, resolveRegionChoice } from './region-rules.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'ferry-rules-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('resolveRegionChoice', () => {
  const rules = [{ name: 'work', area: 'asia', strategy: 'least-load' as const }];
  it('turns a rule name (any case) into area:strategy', () => {
    expect(resolveRegionChoice('Work', rules)).toBe('asia:least-load');
  });
  it('passes auto, region ids and area rules on as typed (lower case)', () => {
    expect(resolveRegionChoice('auto', rules)).toBe('auto');
    expect(resolveRegionChoice('Asia-East', rules)).toBe('asia-east');
    expect(resolveRegionChoice('europe:fallback', rules)).toBe('europe:fallback');
  });
});

describe('RuleStore', () => {
  it('adds, lists and removes rules across restarts', async () => {
    const store = new RuleStore(dir);
    expect(await store.list()).toEqual([]);
    await store.add({ name: 'asia', area: 'asia', strategy: 'lowest-latency' });
    await store.add({ name: 'backup', area: 'europe', strategy: 'fallback' });
    expect((await new RuleStore(dir).list()).map((r) => r.name)).toEqual(['asia', 'backup']);
    await store.remove('ASIA');
    expect((await new RuleStore(dir).list()).map((r) => r.name)).toEqual(['backup']);
  });

  it('refuses a name taken and a rule that does not exist, naming the ones there are', async () => {
    const store = new RuleStore(dir);
    await store.add({ name: 'asia', area: 'asia', strategy: 'lowest-latency' });
    const taken = await store
      .add({ name: 'asia', area: 'europe', strategy: 'fallback' })
      .catch((e: unknown) => e as FerryError);
    expect((taken as FerryError).code).toBe('rule-exists');
    expect((await store.list())[0]?.area).toBe('asia');
    const missing = await store.remove('nope').catch((e: unknown) => e as FerryError);
    expect((missing as FerryError).code).toBe('rule-not-found');
    expect((missing as FerryError).message).toContain('asia');
  });

  it('reports a damaged file and leaves it alone', async () => {
    const store = new RuleStore(dir);
    writeFileSync(store.file, 'not json');
    const e = await store.list().catch((err: unknown) => err as FerryError);
    expect((e as FerryError).code).toBe('config-corrupt');
    const add = await store
      .add({ name: 'x1', area: 'asia', strategy: 'fallback' })
      .catch((err: unknown) => err as FerryError);
    expect((add as FerryError).code).toBe('config-corrupt');
  });
});

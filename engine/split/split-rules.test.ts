// The split rules by domain: typed any way a person types a domain, kept one per domain in a
// private file of the state dir, sorted, a missing one refused naming those there are; and the
// rule for a name is that of the name or its nearest parent.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import {
  SplitRuleRequest,
  splitRuleFor,
  splitRuleTarget,
  type DomainRule,
  type SplitRule,
} from '../../contracts/index.js';
import { FerryError } from '../errors.js';
import {
  SPLIT_RULES_FILE,
  SplitRuleStore,
  withSplitRule,
  withoutSplitRule,
} from './split-rules.js';

let root: string;
let dir: string;
beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'ferry-split-rules-'));
  dir = path.join(root, 'state');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

async function refusal(p: Promise<unknown>): Promise<FerryError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(FerryError);
  return e as FerryError;
}

function plant(contents: string) {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeFileSync(path.join(dir, SPLIT_RULES_FILE), contents, { mode: 0o600 });
}

describe('SplitRuleStore', () => {
  it('has no rules before any is added, and writes nothing for asking', async () => {
    const store = new SplitRuleStore(dir);
    expect(store.file).toBe(path.join(dir, SPLIT_RULES_FILE));
    expect(await store.list()).toEqual([]);
    expect(() => statSync(dir)).toThrow();
  });

  it('adds, lists and removes rules', async () => {
    const store = new SplitRuleStore(dir);
    expect(await store.add({ domain: 'example.cn', via: 'direct' })).toEqual({
      domain: 'example.cn',
      via: 'direct',
    });
    await store.add({ domain: 'video.example', via: 'tunnel' });
    expect(await store.list()).toEqual([
      { domain: 'example.cn', via: 'direct' },
      { domain: 'video.example', via: 'tunnel' },
    ]);
    await store.remove({ domain: 'example.cn' });
    expect(await store.list()).toEqual([{ domain: 'video.example', via: 'tunnel' }]);
  });

  it('keeps one rule per domain: adding it again changes its way', async () => {
    const store = new SplitRuleStore(dir);
    await store.add({ domain: 'example.cn', via: 'direct' });
    await store.add({ domain: 'example.cn', via: 'tunnel' });
    expect(await store.list()).toEqual([{ domain: 'example.cn', via: 'tunnel' }]);
    expect(await new SplitRuleStore(dir).list()).toEqual([{ domain: 'example.cn', via: 'tunnel' }]);
  });

  it('keeps the rules sorted by domain', async () => {
    const store = new SplitRuleStore(dir);
    for (const domain of ['zeta.example', 'alpha.cn', 'mid.org', 'beta.cn'])
      await store.add({ domain, via: 'direct' });
    expect((await store.list()).map((r) => splitRuleTarget(r).replace(/^domain /, ''))).toEqual([
      'alpha.cn',
      'beta.cn',
      'mid.org',
      'zeta.example',
    ]);
  });

  it('refuses to remove a rule there is not, naming the rules there are', async () => {
    const store = new SplitRuleStore(dir);
    expect((await refusal(store.remove({ domain: 'example.cn' }))).code).toBe(
      'split-rule-not-found',
    );
    await store.add({ domain: 'alpha.cn', via: 'direct' });
    await store.add({ domain: 'video.example', via: 'tunnel' });
    const e = await refusal(store.remove({ domain: 'example.cn' }));
    expect(e.code).toBe('split-rule-not-found');
    expect(e.message).toContain('example.cn');
    expect(e.message).toContain('alpha.cn');
    expect(e.message).toContain('video.example');
    expect(await store.list()).toHaveLength(2);
  });

  it('keeps the rules across restarts, in a 0600 file of a 0700 state dir', async () => {
    await new SplitRuleStore(dir).add({ domain: 'example.cn', via: 'direct' });
    expect(await new SplitRuleStore(dir).list()).toEqual([{ domain: 'example.cn', via: 'direct' }]);
    const store = new SplitRuleStore(dir);
    expect(statSync(store.file).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(JSON.parse(readFileSync(store.file, 'utf8'))).toEqual({
      version: 1,
      rules: [{ domain: 'example.cn', via: 'direct' }],
    });
  });

  it('reports a damaged file and leaves it as it is, adding nothing over it', async () => {
    for (const damaged of [
      'not json',
      JSON.stringify({ version: 2, rules: [] }),
      JSON.stringify({ version: 1, rules: [{ domain: 'exa mple.com', via: 'direct' }] }),
      JSON.stringify({ version: 1, rules: [{ domain: 'example.cn', via: 'around' }] }),
    ]) {
      plant(damaged);
      const store = new SplitRuleStore(dir);
      expect((await refusal(store.list())).code).toBe('config-corrupt');
      expect((await refusal(store.add({ domain: 'example.cn', via: 'direct' }))).code).toBe(
        'config-corrupt',
      );
      expect(readFileSync(store.file, 'utf8')).toBe(damaged);
    }
  });
});

describe('withSplitRule and withoutSplitRule', () => {
  const rules: SplitRule[] = [
    { domain: 'alpha.cn', via: 'direct' },
    { domain: 'zeta.example', via: 'tunnel' },
  ];

  it('put a rule in its place, replacing one for its domain, leaving the input as it was', () => {
    expect(
      withSplitRule(rules, { domain: 'mid.org', via: 'tunnel' }).map((r) =>
        splitRuleTarget(r).replace(/^domain /, ''),
      ),
    ).toEqual(['alpha.cn', 'mid.org', 'zeta.example']);
    expect(withSplitRule(rules, { domain: 'alpha.cn', via: 'tunnel' })).toEqual([
      { domain: 'alpha.cn', via: 'tunnel' },
      { domain: 'zeta.example', via: 'tunnel' },
    ]);
    expect(rules).toHaveLength(2);
  });

  it('take a rule out, or refuse naming those there are', () => {
    expect(withoutSplitRule(rules, { domain: 'alpha.cn' })).toEqual([
      { domain: 'zeta.example', via: 'tunnel' },
    ]);
    expect(() => withoutSplitRule(rules, { domain: 'beta.cn' })).toThrow(
      /domain alpha\.cn, domain zeta\.example/,
    );
    expect(() => withoutSplitRule([], { domain: 'beta.cn' })).toThrow(FerryError);
  });
});

describe('SplitRuleRequest', () => {
  it('takes a domain as a person types it, kept lower case without `*.`, `.` or the root’s dot', () => {
    expect(SplitRuleRequest.parse({ domain: '*.Example.CN.', via: 'Direct' })).toEqual({
      domain: 'example.cn',
      via: 'direct',
    });
    expect(SplitRuleRequest.parse({ domain: ' .video.example ', via: 'TUNNEL' })).toEqual({
      domain: 'video.example',
      via: 'tunnel',
    });
    // One label: a top-level domain (every name under it).
    expect((SplitRuleRequest.parse({ domain: 'cn', via: 'direct' }) as DomainRule).domain).toBe(
      'cn',
    );
    expect(
      (SplitRuleRequest.parse({ domain: '_dmarc.example.com', via: 'direct' }) as DomainRule)
        .domain,
    ).toBe('_dmarc.example.com');
  });

  it('refuses what is not a domain, and a way that is neither direct nor tunnel', () => {
    const label63 = 'a'.repeat(63);
    const longest = [label63, label63, label63, 'b'.repeat(61)].join('.');
    expect(longest).toHaveLength(253);
    expect((SplitRuleRequest.parse({ domain: longest, via: 'direct' }) as DomainRule).domain).toBe(
      longest,
    );
    const tooLong = [label63, label63, label63, 'b'.repeat(62)].join('.');
    expect(tooLong).toHaveLength(254);
    for (const domain of [
      'exa mple.com',
      '-a.com',
      'a-.com',
      'a..com',
      '',
      '   ',
      '*.',
      tooLong,
      `${'a'.repeat(64)}.com`,
      'example.com/path',
      'ex@mple.com',
    ])
      expect(SplitRuleRequest.safeParse({ domain, via: 'direct' }).success, domain).toBe(false);
    for (const via of ['both', '', 'proxy'])
      expect(SplitRuleRequest.safeParse({ domain: 'example.com', via }).success, via).toBe(false);
  });
});

describe('splitRuleFor', () => {
  const rules: SplitRule[] = [
    { domain: 'example.com', via: 'direct' },
    { domain: 'video.example.com', via: 'tunnel' },
    { domain: 'cn', via: 'direct' },
  ];

  it('takes the rule of the name or its nearest parent', () => {
    expect(splitRuleFor(rules, 'example.com')?.via).toBe('direct');
    expect(splitRuleFor(rules, 'www.example.com')?.via).toBe('direct');
    expect(splitRuleFor(rules, 'video.example.com')?.via).toBe('tunnel');
    expect(splitRuleFor(rules, 'cdn.video.example.com')?.domain).toBe('video.example.com');
    expect(splitRuleFor(rules, 'www.gov.cn')?.domain).toBe('cn');
    // The longest match whatever the rules' order.
    expect(splitRuleFor([...rules].reverse(), 'cdn.video.example.com')?.via).toBe('tunnel');
  });

  it('takes names in any letter case, with or without the root’s dot', () => {
    expect(splitRuleFor(rules, 'WWW.Example.COM.')?.domain).toBe('example.com');
    expect(splitRuleFor(rules, 'Video.Example.Com')?.via).toBe('tunnel');
  });

  it('covers no name that merely ends with the same letters', () => {
    expect(splitRuleFor(rules, 'notexample.com')).toBeNull();
    expect(splitRuleFor(rules, 'myvideo.example.com')?.domain).toBe('example.com');
    expect(splitRuleFor(rules, 'example.co')).toBeNull();
    expect(splitRuleFor(rules, 'com')).toBeNull();
    expect(splitRuleFor([], 'example.com')).toBeNull();
  });
});

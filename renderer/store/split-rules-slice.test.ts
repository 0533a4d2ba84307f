// The split rules by domain and by program through a fake transport whose engine keeps them in
// memory (parsing what it is sent with the contracts' schemas, as the local API does): listed,
// added as the engine answers them, a mistyped one refused before anything is sent, removed, and
// the engine's refusals said beside the field.
import { describe, expect, it } from 'vitest';
import {
  SplitRuleQuery,
  SplitRuleRequest,
  splitRuleTarget,
  type SplitRule,
} from '../../contracts/split-rules.js';
import { FaceCallError } from '../transport/face-call-error.js';
import type { FakeTransport } from '../transport/transport.fake.js';
import { signedInEngine } from './engine-answers.fake.js';
import { createEngineStore, type EngineStore } from './engine-store.js';
import { PROGRAM_RULES_UNSUPPORTED } from './split-rules-slice.js';

/** Lets every pending promise of the store settle. */
const settle = () => new Promise((r) => setTimeout(r, 0));

async function upAndRead(engine: FakeTransport): Promise<EngineStore> {
  const store = createEngineStore(engine);
  store.getState().actions.start();
  engine.link('up');
  await settle();
  engine.calls.length = 0;
  return store;
}

/** An engine keeping its split rules in memory: domains first, then programs, each sorted. */
function splitEngine(initial: SplitRule[] = []) {
  const engine = signedInEngine();
  let rules = [...initial];
  const order = (r: SplitRule) => `${'domain' in r ? 0 : 1} ${splitRuleTarget(r)}`;
  engine
    .answer('listSplitRules', () => ({ rules: [...rules] }))
    .answer('addSplitRule', ({ body }) => {
      const rule = SplitRuleRequest.parse(body) as SplitRule;
      const key = splitRuleTarget(rule);
      rules = [...rules.filter((r) => splitRuleTarget(r) !== key), rule].sort((a, b) =>
        order(a).localeCompare(order(b)),
      );
      return rule;
    })
    .answer('removeSplitRule', ({ query }) => {
      const key = splitRuleTarget(SplitRuleQuery.parse(query));
      if (!rules.some((r) => splitRuleTarget(r) === key))
        throw new FaceCallError({
          code: 'split-rule-not-found',
          message: `no split rule for ${key}`,
        });
      rules = rules.filter((r) => splitRuleTarget(r) !== key);
      return undefined;
    });
  return engine;
}

const CN: SplitRule = { domain: 'example.cn', via: 'direct' };
const FIREFOX: SplitRule = { app: '/usr/bin/firefox', via: 'tunnel' };

describe('split rules', () => {
  it('are read from the engine, none to begin with', async () => {
    const store = await upAndRead(splitEngine());
    expect(store.getState().splitRules).toBeNull();
    await store.getState().actions.loadSplitRules();
    expect(store.getState().splitRules).toEqual([]);

    const withRules = await upAndRead(splitEngine([CN, FIREFOX]));
    await withRules.getState().actions.loadSplitRules();
    expect(withRules.getState().splitRules).toEqual([CN, FIREFOX]);
  });

  it('a failed read is said in words, the list left unread', async () => {
    const engine = splitEngine().refuse(
      'listSplitRules',
      'internal',
      'the state file is unreadable',
    );
    const store = await upAndRead(engine);
    await store.getState().actions.loadSplitRules();
    expect(store.getState().splitRules).toBeNull();
    expect(store.getState().error?.words).toBe('The state file is unreadable.');
  });

  it('adds a domain as the engine keeps it, and lists the rules again', async () => {
    const engine = splitEngine([FIREFOX]);
    const store = await upAndRead(engine);
    await store.getState().actions.loadSplitRules();
    engine.calls.length = 0;
    expect(await store.getState().actions.addSplitRule('domain', ' *.Example.CN ', 'direct')).toBe(
      true,
    );
    expect(engine.calls).toEqual([
      { id: 'addSplitRule', payload: { body: { domain: 'example.cn', via: 'direct' } } },
      { id: 'listSplitRules', payload: {} },
    ]);
    expect(store.getState().splitRules).toEqual([CN, FIREFOX]);
    expect(store.getState().fieldErrors).toEqual([]);
    expect(store.getState().busy.splitRules).toBeUndefined();
  });

  it('adds a program, and replaces the rule of the same domain', async () => {
    const engine = splitEngine([CN]);
    const store = await upAndRead(engine);
    expect(await store.getState().actions.addSplitRule('app', ' /usr/bin/firefox', 'tunnel')).toBe(
      true,
    );
    expect(engine.calls[0]).toEqual({
      id: 'addSplitRule',
      payload: { body: { app: '/usr/bin/firefox', via: 'tunnel' } },
    });
    expect(await store.getState().actions.addSplitRule('domain', 'example.cn.', 'tunnel')).toBe(
      true,
    );
    expect(store.getState().splitRules).toEqual([{ domain: 'example.cn', via: 'tunnel' }, FIREFOX]);
  });

  it('keeps the engine’s answer when the list cannot be read again', async () => {
    const engine = splitEngine([FIREFOX]);
    const store = await upAndRead(engine);
    await store.getState().actions.loadSplitRules();
    engine.answer('addSplitRule', () => CN);
    engine.refuse('listSplitRules', 'unreachable', 'no answer');
    expect(await store.getState().actions.addSplitRule('domain', 'EXAMPLE.cn', 'direct')).toBe(
      true,
    );
    expect(store.getState().splitRules).toEqual([FIREFOX, CN]);
  });

  it('refuses a mistyped domain or program path at its field, sending nothing', async () => {
    const engine = splitEngine();
    const store = await upAndRead(engine);
    const { addSplitRule } = store.getState().actions;
    for (const bad of ['', '   ', 'exa mple.com', '-bad-.com', 'https://example.com/', 'a..b']) {
      expect(await addSplitRule('domain', bad, 'direct')).toBe(false);
      expect(store.getState().fieldErrors).toHaveLength(1);
      expect(store.getState().fieldErrors[0]!.field).toBe('domain');
    }
    expect(store.getState().fieldErrors[0]!.message).toMatch(/^That is not a domain name\./);
    for (const bad of ['', 'usr/bin/firefox', '/usr/../bin/sh', 'firefox']) {
      expect(await addSplitRule('app', bad, 'tunnel')).toBe(false);
      expect(store.getState().fieldErrors).toEqual([
        { field: 'app', message: expect.stringMatching(/full path/) },
      ]);
    }
    expect(engine.calls).toEqual([]);
    expect(store.getState().error).toBeNull();
  });

  it('shows the engine’s refusal beside the field in words, not as a banner', async () => {
    const engine = splitEngine().refuse(
      'addSplitRule',
      'config-invalid',
      'there is no program at /opt/nothing',
      [{ field: 'app', message: 'the path of a program on this host' }],
    );
    const store = await upAndRead(engine);
    // A refusal of another field (DNS's) stays shown.
    store.setState({ fieldErrors: [{ field: 'dns', message: 'not an address' }] });
    expect(await store.getState().actions.addSplitRule('app', '/opt/nothing', 'direct')).toBe(
      false,
    );
    expect(store.getState().fieldErrors).toEqual([
      { field: 'dns', message: 'not an address' },
      { field: 'app', message: 'There is no program at /opt/nothing.' },
    ]);
    expect(store.getState().error).toBeNull();

    // Programs cannot be put on a way here (no cgroup v2): said in the app's words.
    engine.refuse('addSplitRule', 'not-supported', 'split rules by program are not supported here');
    await store.getState().actions.addSplitRule('app', '/usr/bin/firefox', 'direct');
    expect(store.getState().fieldErrors).toContainEqual({
      field: 'app',
      message: PROGRAM_RULES_UNSUPPORTED,
    });

    // The engine's schema refusing the request: its words for the field.
    engine.refuse('addSplitRule', 'validation-failed', 'invalid request body', [
      { field: 'domain', message: 'a domain name: labels of letters, digits and dashes' },
    ]);
    await store.getState().actions.addSplitRule('domain', 'example.com', 'direct');
    expect(store.getState().fieldErrors).toContainEqual({
      field: 'domain',
      message: 'a domain name: labels of letters, digits and dashes',
    });
    // Taken at last: the refusal goes.
    engine.answer('addSplitRule', () => CN).answer('listSplitRules', () => ({ rules: [CN] }));
    expect(await store.getState().actions.addSplitRule('domain', 'example.cn', 'direct')).toBe(
      true,
    );
    expect(store.getState().fieldErrors).toEqual([{ field: 'dns', message: 'not an address' }]);
  });

  it('removes a rule by its domain or program, and lists the rules again', async () => {
    const engine = splitEngine([CN, FIREFOX]);
    const store = await upAndRead(engine);
    await store.getState().actions.loadSplitRules();
    engine.calls.length = 0;
    await store.getState().actions.removeSplitRule(CN);
    expect(engine.calls).toEqual([
      { id: 'removeSplitRule', payload: { query: { domain: 'example.cn' } } },
      { id: 'listSplitRules', payload: {} },
    ]);
    expect(store.getState().splitRules).toEqual([FIREFOX]);
    await store.getState().actions.removeSplitRule(FIREFOX);
    expect(engine.calls[2]).toEqual({
      id: 'removeSplitRule',
      payload: { query: { app: '/usr/bin/firefox' } },
    });
    expect(store.getState().splitRules).toEqual([]);
    expect(store.getState().error).toBeNull();
  });

  it('a rule removed meanwhile: said in words, and the list read again', async () => {
    const engine = splitEngine([FIREFOX]);
    const store = await upAndRead(engine);
    store.setState({ splitRules: [CN, FIREFOX] });
    await store.getState().actions.removeSplitRule(CN);
    expect(store.getState().error?.words).toBe(
      'That split rule is no longer there. The list shows the rules in force.',
    );
    expect(store.getState().splitRules).toEqual([FIREFOX]);
  });

  it('one change at a time: a second while one is under way is not sent', async () => {
    const engine = splitEngine();
    let release!: () => void;
    engine.answer(
      'addSplitRule',
      () => new Promise<SplitRule>((resolve) => (release = () => resolve(CN))),
    );
    const store = await upAndRead(engine);
    const first = store.getState().actions.addSplitRule('domain', 'example.cn', 'direct');
    await settle();
    expect(store.getState().busy.splitRules).toBe(true);
    expect(await store.getState().actions.addSplitRule('domain', 'example.org', 'direct')).toBe(
      false,
    );
    expect(engine.ids()).toEqual(['addSplitRule']);
    release();
    expect(await first).toBe(true);
  });
});

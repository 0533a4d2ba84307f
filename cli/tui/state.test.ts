// The terminal UI's state and keys without a terminal: what a status, a region list, the
// arrows and an operation's end do to what the screen shows.
import { describe, expect, it } from 'vitest';
import { CLIENT_CONFIG_DEFAULTS, idleStatus, type LocalStatus } from '../../contracts/index.js';
import { translator } from '../../contracts/i18n/translator.js';
import { dnsKeyOf, helpText, intentOf, keysOf, mainHelp, rulesHelp, rulesKeyOf } from './keymap.js';
import { windowStart } from './region-list.js';
import { fitEnd, ruleCells } from './split-rules.js';
import {
  INITIAL_STATE,
  reduce,
  rulesStep,
  selectedRow,
  selectedRule,
  sparkline,
  visibleNotices,
  type RegionsAnswer,
  type TuiAction,
  type TuiState,
} from './state.js';

const REGIONS: RegionsAnswer = {
  regions: [
    {
      id: 'global',
      name: 'Global',
      area: 'global',
      country: null,
      load: 0.4,
      nodes_healthy: 2,
      platforms_verified: [],
      allowed: true,
      entry: false,
      latency: '48ms',
    },
    {
      id: 'asia-east',
      name: 'Asia East (Tokyo)',
      area: 'asia',
      country: 'JP',
      load: 0.2,
      nodes_healthy: 1,
      platforms_verified: [],
      allowed: true,
      entry: false,
      latency: null,
    },
    {
      id: 'us-west',
      name: 'US West',
      area: 'north-america',
      country: 'US',
      load: 0,
      nodes_healthy: 0,
      platforms_verified: [],
      allowed: false,
      entry: false,
      latency: null,
    },
  ],
  rules: [{ name: 'work', area: 'asia', strategy: 'lowest-latency' }],
};

function connected(node: string, latency: string, region = 'asia-east'): LocalStatus {
  return {
    ...idleStatus(true, true),
    status: 'connected',
    latency,
    region,
    node: { id: node, region, endpoint: '198.51.100.1:51820' },
    protocol: 'wireguard',
  };
}

const run = (...actions: TuiAction[]): TuiState => actions.reduce(reduce, INITIAL_STATE);

describe('terminal UI state', () => {
  it('lists regions then rules, each with what connect takes', () => {
    const s = run({ type: 'regions', answer: REGIONS });
    expect(s.regions?.map((r) => [r.id, r.kind, r.latency, r.allowed])).toEqual([
      ['global', 'region', '48ms', true],
      ['asia-east', 'region', null, true],
      ['us-west', 'region', null, false],
      ['work', 'rule', null, true],
    ]);
    expect(s.regions?.[3]).toMatchObject({ strategy: 'lowest-latency', area: 'asia' });
  });

  it('puts the cursor on the current region once, then leaves it to the arrows', () => {
    const s = run(
      { type: 'regions', answer: REGIONS },
      { type: 'status', status: connected('tokyo-1', '12ms') },
    );
    expect(selectedRow(s)?.id).toBe('asia-east');
    const moved = run(
      { type: 'regions', answer: REGIONS },
      { type: 'status', status: connected('tokyo-1', '12ms') },
      { type: 'move', by: -1 },
      { type: 'status', status: connected('tokyo-2', '14ms') },
      { type: 'regions', answer: REGIONS },
    );
    expect(selectedRow(moved)?.id).toBe('global');
  });

  it('keeps the cursor within the list', () => {
    const s = run(
      { type: 'regions', answer: REGIONS },
      { type: 'move', by: -3 },
      { type: 'move', by: 1 },
    );
    expect(s.cursor).toBe(1);
    expect(run({ type: 'regions', answer: REGIONS }, { type: 'move', by: 10 }).cursor).toBe(3);
    expect(run({ type: 'move', by: 1 }).cursor).toBe(0);
  });

  it('an older operation ending leaves the newer one showing', () => {
    const s = run(
      { type: 'started', op: 1, label: 'Connecting' },
      { type: 'started', op: 2, label: 'Disconnecting' },
      { type: 'finished', op: 1, outcome: { kind: 'error', text: 'superseded', hints: [] } },
    );
    expect(s.pending?.label).toBe('Disconnecting');
    expect(s.outcome?.text).toBe('superseded');
    expect(reduce(s, { type: 'finished', op: 2, outcome: null }).pending).toBeNull();
  });

  it('shows the status notices and the one-off ones, each once', () => {
    const notice = { code: 'failover', message: 'moved from a to b' };
    const s = run(
      { type: 'status', status: { ...connected('b', '10ms'), notices: [notice] } },
      { type: 'notice', notice },
      { type: 'notice', notice: { code: 'key-rotated', message: 'the key was rotated' } },
    );
    expect(visibleNotices(s).map((n) => n.code)).toEqual(['failover', 'key-rotated']);
  });

  it('keeps the configuration the engine answered', () => {
    const config = { ...CLIENT_CONFIG_DEFAULTS, kill_switch: false };
    expect(run({ type: 'config', config }).config?.kill_switch).toBe(false);
  });
});

describe('split rules panel', () => {
  const RULES = [
    { domain: 'example.com', via: 'direct' as const },
    { domain: 'video.example', via: 'tunnel' as const },
    { app: '/usr/bin/firefox', via: 'tunnel' as const },
  ];

  it('opens reading the rules, lists the engine’s, and closes', () => {
    const open = run({ type: 'rules-open' });
    expect(open.splitRules).toEqual({ rules: null, failure: null, cursor: 0, draft: null });
    expect(rulesStep(open)).toBe('list');
    const listed = reduce(open, { type: 'split-rules', rules: RULES });
    expect(selectedRule(listed)).toEqual(RULES[0]);
    expect(reduce(listed, { type: 'rules-close' }).splitRules).toBeNull();
    expect(rulesStep(INITIAL_STATE)).toBeNull();
  });

  it('keeps the cursor within the rules, on the one just added when told', () => {
    const s = run(
      { type: 'rules-open' },
      { type: 'split-rules', rules: RULES },
      { type: 'rules-move', by: 5 },
    );
    expect(selectedRule(s)).toEqual(RULES[2]);
    const fewer = reduce(s, { type: 'split-rules', rules: RULES.slice(0, 1) });
    expect(fewer.splitRules?.cursor).toBe(0);
    const added = reduce(fewer, {
      type: 'split-rules',
      rules: RULES,
      select: { domain: 'video.example' },
    });
    expect(selectedRule(added)).toEqual(RULES[1]);
    expect(reduce(added, { type: 'rules-move', by: -9 }).splitRules?.cursor).toBe(0);
  });

  it('a rule being added: its steps, and nothing while the panel is closed', () => {
    const s = run(
      { type: 'rules-open' },
      { type: 'rule-draft', draft: { step: 'target', text: 'exa', problem: null } },
    );
    expect(rulesStep(s)).toBe('target');
    const via = reduce(s, {
      type: 'rule-draft',
      draft: { step: 'via', target: { domain: 'example.com' } },
    });
    expect(rulesStep(via)).toBe('via');
    // An answer arriving after the panel closed leaves it closed.
    expect(run({ type: 'split-rules', rules: RULES }).splitRules).toBeNull();
    expect(run({ type: 'rules-move', by: 1 }).splitRules).toBeNull();
  });
});

describe('region list window', () => {
  it('keeps the selected row in sight, the list within its rows', () => {
    expect(windowStart(5, 4, 12)).toBe(0);
    expect(windowStart(30, 0, 12)).toBe(0);
    expect(windowStart(30, 15, 12)).toBe(9);
    expect(windowStart(30, 29, 12)).toBe(18);
  });
});

describe('split rule rows', () => {
  it('kind, what it is for, way and what the way does; a long path keeps its end', () => {
    expect(ruleCells({ domain: 'example.com', via: 'direct' })).toEqual([
      'domain ',
      'example.com'.padEnd(48),
      'direct ',
      'around the tunnel',
    ]);
    const path = `/opt/${'x'.repeat(60)}/bin/run`;
    const [kind, target, via] = ruleCells({ app: path, via: 'tunnel' });
    expect([kind, via]).toEqual(['program', 'tunnel ']);
    expect(target).toHaveLength(48);
    expect(target).toMatch(/^…x+\/bin\/run$/);
    expect(fitEnd('abc', 5)).toBe('abc  ');
  });
});

describe('sparkline', () => {
  it('draws the readings from the lowest to the highest, the last `width` of them', () => {
    expect(sparkline([10, 20, 30], 10)).toBe('▁▅█');
    expect(sparkline([5, 5], 10)).toBe('▄▄');
    expect(sparkline([1, 2, 3, 4], 2)).toBe('▁█');
    expect(sparkline([], 10)).toBe('');
  });
});

describe('terminal UI keys', () => {
  it('maps the letters, arrows and Enter to what they ask for', () => {
    expect(intentOf('c', {})).toBe('connect');
    expect(intentOf('D', {})).toBe('disconnect');
    expect(intentOf('k', {})).toBe('kill-switch');
    expect(intentOf('s', {})).toBe('split');
    expect(intentOf('u', {})).toBe('split-rules');
    expect(intentOf('n', {})).toBe('dns');
    expect(intentOf('r', {})).toBe('refresh');
    expect(intentOf('g', {})).toBe('graphical');
    expect(intentOf('q', {})).toBe('quit');
    expect(intentOf('', { upArrow: true })).toBe('up');
    expect(intentOf('', { downArrow: true })).toBe('down');
    expect(intentOf('\r', { return: true })).toBe('switch');
    expect(intentOf('x', {})).toBeNull();
    expect(intentOf('c', { ctrl: true })).toBeNull();
  });

  it('types an address, erases, applies and cancels while DNS is typed', () => {
    expect(dnsKeyOf('9', {})).toEqual({ kind: 'type', text: '9' });
    expect(dnsKeyOf('2001:db8::1', {})).toEqual({ kind: 'type', text: '2001:db8::1' });
    expect(dnsKeyOf(' ', {})).toBeNull();
    expect(dnsKeyOf('', { delete: true })).toEqual({ kind: 'erase' });
    expect(dnsKeyOf('', { backspace: true })).toEqual({ kind: 'erase' });
    expect(dnsKeyOf('\r', { return: true })).toEqual({ kind: 'submit' });
    expect(dnsKeyOf('', { escape: true })).toEqual({ kind: 'cancel' });
  });

  it('in the split rules: a adds, the arrows select, x or Delete removes, Esc closes', () => {
    expect(rulesKeyOf('a', {}, 'list')).toEqual({ kind: 'add' });
    expect(rulesKeyOf('', { upArrow: true }, 'list')).toEqual({ kind: 'move', by: -1 });
    expect(rulesKeyOf('', { downArrow: true }, 'list')).toEqual({ kind: 'move', by: 1 });
    expect(rulesKeyOf('x', {}, 'list')).toEqual({ kind: 'remove' });
    expect(rulesKeyOf('', { delete: true }, 'list')).toEqual({ kind: 'remove' });
    expect(rulesKeyOf('', { escape: true, meta: true }, 'list')).toEqual({ kind: 'close' });
    expect(rulesKeyOf('u', {}, 'list')).toEqual({ kind: 'close' });
    // The main keys do nothing meanwhile.
    expect(rulesKeyOf('c', {}, 'list')).toBeNull();
    expect(rulesKeyOf('q', {}, 'list')).toBeNull();
  });

  it('in a rule’s prompts: a domain or a path typed, then d or t', () => {
    expect(rulesKeyOf('x', {}, 'target')).toEqual({ kind: 'type', text: 'x' });
    expect(rulesKeyOf('/opt/My App/run', {}, 'target')).toEqual({
      kind: 'type',
      text: '/opt/My App/run',
    });
    expect(rulesKeyOf('a\u001b[0m', {}, 'target')).toEqual({ kind: 'type', text: 'a[0m' });
    expect(rulesKeyOf('', { delete: true }, 'target')).toEqual({ kind: 'erase' });
    expect(rulesKeyOf('\r', { return: true }, 'target')).toEqual({ kind: 'submit' });
    expect(rulesKeyOf('', { escape: true, meta: true }, 'target')).toEqual({ kind: 'cancel' });
    expect(rulesKeyOf('', { upArrow: true }, 'target')).toBeNull();
    expect(rulesKeyOf('d', {}, 'via')).toEqual({ kind: 'via', via: 'direct' });
    expect(rulesKeyOf('T', {}, 'via')).toEqual({ kind: 'via', via: 'tunnel' });
    expect(rulesKeyOf('', { escape: true, meta: true }, 'via')).toEqual({ kind: 'cancel' });
    expect(rulesKeyOf('x', {}, 'via')).toBeNull();
  });

  it('takes keys that arrive in one read one by one', () => {
    expect(keysOf('9.9\r', {})).toEqual([
      ['9', {}],
      ['.', {}],
      ['9', {}],
      ['\r', { return: true }],
    ]);
    expect(keysOf('ab\u007f', {})).toEqual([
      ['a', {}],
      ['b', {}],
      ['', { delete: true }],
    ]);
    expect(keysOf('k', {})).toEqual([['k', {}]]);
    expect(keysOf('', { upArrow: true })).toEqual([['', { upArrow: true }]]);
  });

  it('lists every key on the help line', () => {
    const t = translator('en');
    expect(helpText(mainHelp(t))).toBe(
      'c connect  d disconnect  ↑↓ region  ⏎ switch  k kill switch  s split  u rules  n dns  r latency  g graphical  q quit',
    );
    expect(helpText(rulesHelp(t, 'list'))).toBe('a add  ↑↓ rule  x remove  esc close');
    expect(helpText(rulesHelp(t, 'via'))).toBe('d direct  t tunnel  esc cancel');
  });
});

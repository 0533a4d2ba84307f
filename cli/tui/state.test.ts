// The terminal UI's state and keys without a terminal: what a status, a region list, the
// arrows and an operation's end do to what the screen shows.
import { describe, expect, it } from 'vitest';
import { CLIENT_CONFIG_DEFAULTS, idleStatus, type LocalStatus } from '../../contracts/index.js';
import { dnsKeyOf, helpText, HELP, intentOf, keysOf } from './keymap.js';
import { windowStart } from './region-list.js';
import {
  INITIAL_STATE,
  reduce,
  selectedRow,
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
    expect(s.regions?.[3]?.detail).toBe('rule: lowest-latency in asia');
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

describe('region list window', () => {
  it('keeps the selected row in sight, the list within its rows', () => {
    expect(windowStart(5, 4, 12)).toBe(0);
    expect(windowStart(30, 0, 12)).toBe(0);
    expect(windowStart(30, 15, 12)).toBe(9);
    expect(windowStart(30, 29, 12)).toBe(18);
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
    expect(helpText(HELP)).toBe(
      'c connect  d disconnect  ↑↓ region  ⏎ switch  k kill switch  s split  n dns  r latency  g graphical  q quit',
    );
  });
});

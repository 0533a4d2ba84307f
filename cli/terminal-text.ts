// Text for a terminal: what netcli shows comes partly from outside (the control plane's names,
// problem details, notices and routing reasons, passed on by the engine), and a terminal obeys
// control characters in it: a window title set, the screen cleared, the clipboard written (OSC
// 52), a forged line, text turned right to left. These remove every one of them; JSON escapes
// them instead, so that --json stays the same value.

/**
 * Escape sequences (ECMA-48), removed whole rather than just their ESC, which would leave
 * "]0;pwned" on the screen: the string controls (OSC, DCS, SOS, PM, APC; 7-bit and 8-bit) up to
 * their terminator (BEL or ST) or the end of the line; CSI with its parameters; any other ESC
 * with its intermediates and final.
 */
const ESCAPE_SEQUENCE = new RegExp(
  [
    '(?:\\x1b[\\]PX^_]|[\\x90\\x98\\x9d\\x9e\\x9f])[^\\x07\\x1b\\x9c\\n]*(?:\\x07|\\x1b\\\\|\\x9c)?',
    '(?:\\x1b\\[|\\x9b)[\\x30-\\x3f]*[\\x20-\\x2f]*[\\x40-\\x7e]?',
    '\\x1b[\\x20-\\x2f]*[\\x30-\\x7e]?',
  ].join('|'),
  'g',
);

/** C0 but newline and tab, DEL, C1. */
// eslint-disable-next-line no-control-regex -- control characters are what it removes
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;

/**
 * Unicode's bidirectional controls: embeddings and overrides (U+202A-202E), isolates
 * (U+2066-2069), the marks (U+200E, U+200F, U+061C). They reorder what follows on the screen.
 */
const BIDI_CONTROL = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** What a line may not hold: a break would let a name start a line of its own. */
const LINE_BREAK = /\r\n|[\n\r\t\v\f\u0085\u2028\u2029]/g;

/** `text` without escape sequences and control characters; its newlines and tabs kept. */
export function plainText(text: string): string {
  return text.replace(ESCAPE_SEQUENCE, '').replace(CONTROL, '').replace(BIDI_CONTROL, '');
}

/** `text` as one line: as plainText, and every line break or tab in it a space. */
export function plainLine(text: string): string {
  return plainText(text.replace(LINE_BREAK, ' '));
}

/**
 * Characters JSON.stringify writes as they are but a terminal (or a JavaScript reader) may
 * obey: DEL, C1, the bidi controls, the line and paragraph separators. JSON.stringify already
 * escapes C0.
 */
const JSON_UNSAFE = /[\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g;

/**
 * `value` as JSON (indented by 2 unless told) and a newline, with every control escaped
 * (`\u001b`): the same JSON value, and nothing in it a terminal obeys. These characters occur
 * in JSON text only inside strings, where an escape reads as the character.
 */
export function terminalJson(value: unknown, options: { indent?: number } = {}): string {
  const text = JSON.stringify(value ?? null, null, options.indent ?? 2);
  return `${text.replace(JSON_UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}\n`;
}

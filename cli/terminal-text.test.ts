// The screen netcli's output passes: what a control plane (or someone on its path) puts into a
// name or a detail must not become a command to the terminal, and netcli's own lines stay whole.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { plainLine, plainText, terminalJson } from './terminal-text.js';
import { CONTROLS } from './testing/terminal-controls.js';

/** Texts rich in the pieces of escape sequences, mixed with any other characters. */
const texts = fc
  .array(
    fc.oneof(
      fc.constantFrom('\x1b', '[', ']', 'P', '_', '\\', '\x07', '\x9b', '\x9c', '\x9d', '\x90'),
      fc.constantFrom('0', ';', '2J', '\n', '\r', '\t', '\u202e', '\u2069', 'a', 'é', '東'),
      fc.string({ unit: 'binary', maxLength: 4 }),
    ),
    { maxLength: 40 },
  )
  .map((parts) => parts.join(''));

describe('plainText', () => {
  it('removes escape sequences whole: title, clear screen, clipboard, reset, charset, DCS', () => {
    expect(plainText('a\x1b]0;pwned title\x07b')).toBe('ab');
    expect(plainText('a\x1b]0;pwned\x1b\\b')).toBe('ab');
    expect(plainText('a\x1b[2J\x1b[Hb\x1b[1;31mc\x1b[0m')).toBe('abc');
    expect(plainText('a\x1b]52;c;Y3VybCBldmlsIHwgc2g=\x07b')).toBe('ab');
    expect(plainText('a\x1bcb\x1b(0c\x1b#8d')).toBe('abcd');
    expect(plainText('a\x1bP+q544e\x1b\\b')).toBe('ab');
    expect(plainText('a\x1b_apc\x1b\\b\x1b^pm\x1b\\c\x1bXsos\x1b\\d')).toBe('abcd');
    expect(plainText('a\x1b[?1049h\x1b[38;5;196mb')).toBe('ab');
  });

  it('removes the 8-bit forms (C1) whole, and every other C1 control', () => {
    expect(plainText('a\x9b2Jb')).toBe('ab');
    expect(plainText('a\x9d0;pwned\x9cb')).toBe('ab');
    expect(plainText('a\x9d0;pwned\x07b')).toBe('ab');
    expect(plainText('a\x90q\x9cb')).toBe('ab');
    expect(plainText('a\x85b\x84c\x8dd')).toBe('abcd');
  });

  it('removes the rest of C0, DEL and the bidi controls; keeps newlines, tabs and other text', () => {
    expect(plainText('a\rb\x08c\x07d\x00e\x7ff\x0bg\x0ch')).toBe('abcdefgh');
    expect(plainText('x\u202egnp.exe\u2066y\u2069\u200e\u200f\u061cz')).toBe('xgnp.exeyz');
    expect(plainText('one\n\ttwo\n')).toBe('one\n\ttwo\n');
    const kept = 'Zürich · 東京 · Москва · ⠋ → €4/month — “quoted” 🙂';
    expect(plainText(kept)).toBe(kept);
  });

  it('an unterminated string control ends at the line, not at the end of the text', () => {
    expect(plainText('a\x1b]0;pwned\nnext line\n')).toBe('a\nnext line\n');
    expect(plainText('trailing \x1b')).toBe('trailing ');
    expect(plainText('trailing \x1b[12')).toBe('trailing ');
  });

  it('leaves no control in any text', () => {
    fc.assert(
      fc.property(texts, (s) => {
        expect(plainText(s)).not.toMatch(CONTROLS);
      }),
      { numRuns: 2_000 },
    );
  });
});

describe('plainLine', () => {
  it('keeps a line one line: a line break or tab in it is a space', () => {
    expect(plainLine('asia\nConnected to global\r\n\tx')).toBe('asia Connected to global  x');
    expect(plainLine('a\x1b]0;pwned\nb\x07c')).toBe('ac');
  });

  it('leaves no control and no line break in any text', () => {
    fc.assert(
      fc.property(texts, (s) => {
        expect(plainLine(s)).not.toMatch(CONTROLS);
        expect(plainLine(s)).not.toMatch(/[\n\t]/);
      }),
      { numRuns: 2_000 },
    );
  });
});

describe('terminalJson', () => {
  it('is the same JSON value, with every control escaped instead of written', () => {
    const value = {
      name: 'evil\x1b]0;pwned\x07\x9b2J\u202e\u2066\x7f\u2028',
      list: ['\n', '\x00'],
      n: 1,
    };
    const text = terminalJson(value);
    expect(text).not.toMatch(CONTROLS);
    expect(JSON.parse(text)).toEqual(value);
    expect(text).toContain(
      '"name": "evil\\u001b]0;pwned\\u0007\\u009b2J\\u202e\\u2066\\u007f\\u2028"',
    );
  });

  it('writes other text as it is, indented or on one line', () => {
    expect(terminalJson({ city: 'Zürich', s: '東京' })).toBe(
      '{\n  "city": "Zürich",\n  "s": "東京"\n}\n',
    );
    expect(terminalJson({ a: [1] }, { indent: 0 })).toBe('{"a":[1]}\n');
  });

  it('round-trips any value without a control in the text', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const text = terminalJson(v);
        expect(text).not.toMatch(CONTROLS);
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(v)));
      }),
      { numRuns: 500 },
    );
  });
});

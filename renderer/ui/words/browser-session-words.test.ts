// The browsers signed in, in words: this one first and named so, the others by when they signed
// in, each with its times; the rule sessions follow.
import { describe, expect, it } from 'vitest';
import { browserSessionRows, sessionRuleWords, timeOfDay } from './browser-session-words.js';

const session = (id: string, created: string, current: boolean) => ({
  id,
  created_at: `2026-03-01T${created.length === 5 ? `${created}:00` : created}.000Z`,
  last_seen_at: '2026-03-01T09:30:00.000Z',
  expires_at: '2026-03-01T20:00:00.000Z',
  current,
});

describe('browser session words', () => {
  const time = timeOfDay('en-GB', 'UTC');

  it('this browser first, then the others newest first, each with its times', () => {
    const rows = browserSessionRows(
      [session('a', '07:00', false), session('b', '08:00', true), session('c', '09:15', false)],
      time,
    );
    expect(rows.map((r) => [r.id, r.title])).toEqual([
      ['b', 'This browser'],
      ['c', 'Browser signed in at 09:15'],
      ['a', 'Browser signed in at 07:00'],
    ]);
    expect(rows[0]!.detail).toBe('Signed in 08:00 · last used 09:30 · ends by 20:00');
    expect(rows.map((r) => r.endLabel)).toEqual([
      'Sign out this browser',
      'End the browser signed in at 09:15',
      'End the browser signed in at 07:00',
    ]);
  });

  it('browsers that signed in within the same minute are told apart by the second', () => {
    const rows = browserSessionRows(
      [
        session('a', '09:15:07', false),
        session('b', '09:15:42', false),
        session('c', '08:00', true),
      ],
      time,
    );
    expect(rows.map((r) => r.title)).toEqual([
      'This browser',
      'Browser signed in at 09:15:42',
      'Browser signed in at 09:15:07',
    ]);
    expect(rows[2]!.endLabel).toBe('End the browser signed in at 09:15:07');
    expect(rows[2]!.detail).toBe('Signed in 09:15:07 · last used 09:30 · ends by 20:00');
  });

  it('browsers that signed in within the same second are numbered in the order they did', () => {
    const at = (ms: string) => ({
      ...session('x', '09:15:42', false),
      created_at: `2026-03-01T09:15:42.${ms}Z`,
    });
    const rows = browserSessionRows(
      [{ ...at('700'), id: 'late' }, { ...at('100'), id: 'early' }, session('c', '08:00', true)],
      time,
    );
    expect(rows.map((r) => [r.id, r.title])).toEqual([
      ['c', 'This browser'],
      ['late', 'Browser signed in at 09:15:42 (2)'],
      ['early', 'Browser signed in at 09:15:42 (1)'],
    ]);
    expect(new Set(rows.map((r) => r.endLabel)).size).toBe(3);
    expect(rows[1]!.detail).toBe('Signed in 09:15:42 · last used 09:30 · ends by 20:00');
  });

  it('says how long a browser stays signed in', () => {
    expect(sessionRuleWords()).toBe(
      'A browser stays signed in until it goes unused for 30 minutes, and for 12 hours at most.',
    );
  });
});

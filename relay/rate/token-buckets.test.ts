// Token buckets on a fake clock: a burst then a rate, per key and not across keys; a key is kept
// only while its bucket refills (or its owner says it is in use); a full table refuses a new key,
// and a flood of new keys into a full table walks it at most every 100 ms.
import { describe, expect, it } from 'vitest';
import { TokenBucket, TokenBuckets } from './token-buckets.js';

const takes = (take: () => boolean, n: number) =>
  Array.from({ length: n }, take).filter(Boolean).length;

describe('TokenBucket', () => {
  it('gives its burst, then its rate, and refills to its burst only', () => {
    const b = new TokenBucket({ perSecond: 10, burst: 5 });
    expect(takes(() => b.take(0), 100)).toBe(5);
    expect(takes(() => b.take(300), 100)).toBe(3);
    expect(takes(() => b.take(60_000), 100)).toBe(5);
    // A clock that goes back gives nothing.
    expect(b.take(0)).toBe(false);
  });

  it('refuses a rate that is not a number above 0', () => {
    expect(() => new TokenBucket({ perSecond: 0, burst: 5 })).toThrow(/perSecond/);
    expect(() => new TokenBucket({ perSecond: 1, burst: Number.NaN })).toThrow(/burst/);
  });
});

describe('TokenBuckets', () => {
  it('gives each key its burst and rate, whatever another key takes', () => {
    const t = new TokenBuckets({ perSecond: 10, burst: 5, maxKeys: 10 });
    expect(takes(() => t.take('a', 0), 100)).toBe(5);
    expect(takes(() => t.take('b', 0), 3)).toBe(3);
    expect(takes(() => t.take('a', 300), 100)).toBe(3);
  });

  it('holds a key only while its bucket refills, or while its owner uses it', () => {
    const t = new TokenBuckets(
      { perSecond: 10, burst: 5, maxKeys: 10 },
      () => ({ open: 0 }),
      (s) => s.open > 0,
    );
    t.take('a', 0);
    t.entry('b', 0)!.open++;
    t.take('c', 0);
    t.take('c', 0);
    expect(t.size).toBe(3);
    // a is full again after 100 ms, c after 200 ms; b holds something open.
    t.sweep(150);
    expect(t.held('a')).toBeUndefined();
    expect(t.held('c')).toBeDefined();
    expect(t.size).toBe(2);
    t.sweep(200);
    expect(t.size).toBe(1);
    t.held('b')!.open--;
    t.sweep(200);
    expect(t.size).toBe(0);
  });

  it('refuses a new key while the table is full of keys in use, sweeping it at most every 100 ms', () => {
    const t = new TokenBuckets({ perSecond: 10, burst: 5, maxKeys: 2 });
    expect(t.take('a', 0)).toBe(true);
    expect(t.take('b', 0)).toBe(true);
    expect(t.take('c', 50)).toBe(false);
    // a and b are full again at 100 ms, but the last sweep was at 50: not before 150.
    expect(t.take('c', 120)).toBe(false);
    expect(t.take('c', 150)).toBe(true);
    expect(t.size).toBe(1);
  });
});

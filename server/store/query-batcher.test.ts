// QueryBatcher: the first call goes at once, calls made meanwhile share the next statement,
// every caller gets its own result, and a failed statement fails only its own calls.
import { describe, expect, it } from 'vitest';
import { QueryBatcher } from './query-batcher.js';

function gatedDoubler() {
  const statements: number[][] = [];
  const gates: (() => void)[] = [];
  const batcher = new QueryBatcher<number, number>(async (inputs) => {
    statements.push(inputs);
    await new Promise<void>((open) => gates.push(open));
    if (inputs.includes(13)) throw new Error('unlucky');
    return inputs.map((n) => n * 2);
  }, 3);
  return { batcher, statements, openNext: () => gates.shift()?.() };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('QueryBatcher', () => {
  it('sends the first call at once and the calls made meanwhile together, in order', async () => {
    const { batcher, statements, openNext } = gatedDoubler();
    const first = batcher.call(1);
    expect(statements).toEqual([[1]]);
    const later = [2, 3, 4, 5].map((n) => batcher.call(n));
    openNext();
    expect(await first).toBe(2);
    await tick();
    expect(statements).toEqual([[1], [2, 3, 4]]); // at most 3 per statement
    openNext();
    await tick();
    expect(statements).toEqual([[1], [2, 3, 4], [5]]);
    openNext();
    expect(await Promise.all(later)).toEqual([4, 6, 8, 10]);
  });

  it('fails the calls of a failed statement only, and carries on', async () => {
    const { batcher, openNext } = gatedDoubler();
    const a = batcher.call(1);
    const b = [13, 2].map((n) => batcher.call(n));
    openNext();
    expect(await a).toBe(2);
    await tick();
    openNext();
    await expect(b[0]).rejects.toThrow('unlucky');
    await expect(b[1]).rejects.toThrow('unlucky');
    const c = batcher.call(7);
    openNext();
    expect(await c).toBe(14);
  });

  it('fails the calls when a statement answers the wrong number of results', async () => {
    const batcher = new QueryBatcher<number, number>(async () => []);
    await expect(batcher.call(1)).rejects.toThrow('wrong number');
  });
});

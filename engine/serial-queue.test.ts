import { describe, expect, it } from 'vitest';
import { SerialQueue } from './serial-queue.js';

describe('SerialQueue', () => {
  it('runs one task at a time, in order, and goes on after one fails', async () => {
    const queue = new SerialQueue();
    const seen: string[] = [];
    const task =
      (name: string, ms: number, fail = false) =>
      async () => {
        seen.push(`${name} start`);
        await new Promise((r) => setTimeout(r, ms));
        seen.push(`${name} end`);
        if (fail) throw new Error(name);
        return name;
      };
    const a = queue.run(task('a', 20));
    const b = queue.run(task('b', 5, true));
    const c = queue.run(task('c', 1));
    await expect(a).resolves.toBe('a');
    await expect(b).rejects.toThrow('b');
    await expect(c).resolves.toBe('c');
    expect(seen).toEqual(['a start', 'a end', 'b start', 'b end', 'c start', 'c end']);
  });
});

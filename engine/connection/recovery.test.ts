import { describe, expect, it } from 'vitest';

import { Recovery } from './recovery.js';

describe('recovery', () => {
  it('tries until an attempt succeeds, passing over the nodes marked unreachable', async () => {
    const seen: string[][] = [];
    const r = new Recovery({
      attempt: async (unreachable) => {
        seen.push(unreachable);
        if (seen.length < 3) throw new Error('no node answered');
        return 'recovered';
      },
      timing: { backoffMs: [0, 5] },
    });
    r.markUnreachable('node_a');
    await r.start();
    expect(seen).toEqual([['node_a'], ['node_a'], ['node_a']]);
    expect(r.attempts).toBe(3);
    expect(r.running).toBe(false);
  });

  it('forgets an unreachable node after a while', () => {
    let now = 0;
    const r = new Recovery({
      attempt: async () => 'recovered',
      timing: { unreachableForMs: 1_000 },
      now: () => now,
    });
    r.markUnreachable('node_a');
    now = 500;
    r.markUnreachable('node_b');
    expect(r.unreachable()).toEqual(['node_a', 'node_b']);
    now = 1_200;
    expect(r.unreachable()).toEqual(['node_b']);
  });

  it('stops between attempts when told, and goes at once when hurried', async () => {
    let attempts = 0;
    const r = new Recovery({
      attempt: async () => {
        attempts += 1;
        throw new Error('no node answered');
      },
      timing: { backoffMs: [0, 60_000] },
    });
    const done = r.start();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(attempts).toBe(1); // waiting a minute for the next
    r.hurry();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(attempts).toBe(2);
    r.stop();
    await done;
    expect(r.running).toBe(false);
    expect(attempts).toBe(2);
  });
});

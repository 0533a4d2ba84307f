import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

import type { CommandOutput } from './command.js';
import { appliedTable, NftFirewall, updateTableCommands, type NftObject } from './nftables.js';

const TABLE = { family: 'inet', name: 'ferry' } as const;
const big = (elem: string[]): NftObject => ({
  set: { name: 'big', type: 'ipv4_addr', flags: ['interval'], elem },
});
const small = (elem: string[]): NftObject => ({ set: { name: 'small', type: 'ipv4_addr', elem } });
const chain = (name: string): NftObject => ({
  chain: { name, type: 'filter', hook: 'output', prio: 0, policy: 'accept' },
});
const rule = (chainName: string, set: string): NftObject => ({
  rule: {
    chain: chainName,
    expr: [
      {
        match: {
          op: '==',
          left: { payload: { protocol: 'ip', field: 'daddr' } },
          right: `@${set}`,
        },
      },
      { accept: null },
    ],
  },
});

describe('updating a table in place', () => {
  it('leaves an unchanged set out of the transaction, and replaces everything else', () => {
    const before = [
      big(['1.0.0.0', '2.0.0.0']),
      small(['9.9.9.9']),
      chain('out'),
      rule('out', 'big'),
    ];
    const after = [
      big(['1.0.0.0', '2.0.0.0']),
      small(['8.8.8.8']),
      chain('guard'),
      rule('guard', 'small'),
    ];
    const commands = updateTableCommands(TABLE, appliedTable(before), after);
    const text = commands.map((c) => JSON.stringify(c));
    expect(text[0]).toBe('{"add":{"table":{"family":"inet","name":"ferry"}}}');
    expect(text[1]).toBe('{"flush":{"table":{"family":"inet","name":"ferry"}}}');
    expect(commands).toContainEqual({
      delete: { chain: { family: 'inet', table: 'ferry', name: 'out' } },
    });
    expect(commands).toContainEqual({
      delete: { set: { family: 'inet', table: 'ferry', name: 'small' } },
    });
    expect(commands).not.toContainEqual({
      delete: { set: { family: 'inet', table: 'ferry', name: 'big' } },
    });
    expect(text.some((t) => t.includes('"2.0.0.0"'))).toBe(false);
    expect(text.some((t) => t.includes('"8.8.8.8"'))).toBe(true);
    expect(text.at(-1)).toContain('"chain":"guard"');
  });

  it('sends a set again when anything of it changed', () => {
    const before = [big(['1.0.0.0'])];
    const commands = updateTableCommands(TABLE, appliedTable(before), [
      big(['1.0.0.0', '3.0.0.0']),
    ]);
    expect(commands.map((c) => JSON.stringify(c)).some((t) => t.includes('"3.0.0.0"'))).toBe(true);
    expect(commands).toContainEqual({
      delete: { set: { family: 'inet', table: 'ferry', name: 'big' } },
    });
  });
});

describe('the nft firewall', () => {
  function recorder(fail: (batch: unknown) => boolean = () => false) {
    const batches: { nftables: Record<string, unknown>[] }[] = [];
    const run = async (_tool: string, args: readonly string[]): Promise<CommandOutput> => {
      const batch = JSON.parse(readFileSync(args[args.indexOf('-f') + 1]!, 'utf8'));
      batches.push(batch);
      return fail(batch)
        ? { exitCode: 1, stdout: '', stderr: 'Error: No such file or directory' }
        : { exitCode: 0, stdout: '', stderr: '' };
    };
    return { batches, run };
  }

  it('replaces its own table in place after the first time, and whole after a remove', async () => {
    const r = recorder();
    const fw = new NftFirewall(r.run);
    const body = [big(['1.0.0.0']), chain('out'), rule('out', 'big')];
    await fw.apply(TABLE, body);
    await fw.apply(TABLE, body);
    await fw.remove(TABLE);
    await fw.apply(TABLE, body);
    const kinds = r.batches.map((b) => Object.keys(b.nftables[1]!)[0]);
    expect(kinds).toEqual(['delete', 'flush', 'delete', 'delete']);
  });

  it('falls back to replacing the table whole when the table changed behind its back', async () => {
    const r = recorder((b) => JSON.stringify(b).includes('"flush"'));
    const fw = new NftFirewall(r.run);
    const body = [big(['1.0.0.0']), chain('out'), rule('out', 'big')];
    await fw.apply(TABLE, body);
    await fw.apply(TABLE, body);
    expect(r.batches.map((b) => Object.keys(b.nftables[1]!)[0])).toEqual([
      'delete',
      'flush',
      'delete',
    ]);
  });
});

// NftFirewall.inspect without touching the host: the argv it hands nft, how it reads nft's JSON
// listing (captured from nftables 1.0.6), a missing table as null and any other failure as an
// error that names no address. (The seams' contract runs it for real in a namespace.)
import { describe, expect, it } from 'vitest';

import { FerryError } from '../../contracts/engine-errors.js';
import type { CommandOutput } from './command.js';
import { NftFirewall, tableView } from './nftables.js';

const TABLE = { family: 'inet', name: 'ferry' } as const;
const inTable = { family: 'inet', table: 'ferry' };

// `nft -j list table inet ferry`, trimmed to a few objects of each kind.
const LISTING = JSON.stringify({
  nftables: [
    { metainfo: { version: '1.0.6', release_name: 'Lester Gooch #5', json_schema_version: 1 } },
    { table: { family: 'inet', name: 'ferry', handle: 2 } },
    {
      set: {
        ...inTable,
        name: 'split_route4',
        type: 'ipv4_addr',
        handle: 1,
        flags: ['interval'],
        elem: [
          { prefix: { addr: '198.18.0.0', len: 15 } },
          { range: ['203.0.113.0', '203.0.113.99'] },
        ],
      },
    },
    { set: { ...inTable, name: 'dns4', type: 'ipv4_addr', handle: 12, elem: ['10.64.0.1'] } },
    { set: { ...inTable, name: 'dns6', type: 'ipv6_addr', handle: 13 } },
    {
      chain: {
        ...inTable,
        name: 'split_route',
        handle: 4,
        type: 'route',
        hook: 'output',
        prio: -150,
        policy: 'accept',
      },
    },
    {
      chain: {
        ...inTable,
        name: 'guard_out',
        handle: 8,
        type: 'filter',
        hook: 'output',
        prio: 0,
        policy: 'accept',
      },
    },
    {
      rule: {
        ...inTable,
        chain: 'guard_out',
        handle: 14,
        expr: [
          { match: { op: '==', left: { meta: { key: 'oifname' } }, right: 'lo' } },
          { accept: null },
        ],
      },
    },
    {
      rule: {
        ...inTable,
        chain: 'guard_out',
        handle: 30,
        expr: [{ counter: { packets: 3, bytes: 180 } }, { drop: null }],
      },
    },
  ],
});

function runner(reply: Partial<CommandOutput>) {
  const calls: string[][] = [];
  const run = async (tool: string, args: readonly string[]): Promise<CommandOutput> => {
    calls.push([tool, ...args]);
    return { exitCode: 0, stdout: '', stderr: '', ...reply };
  };
  return { calls, run };
}

describe('NftFirewall.inspect', () => {
  it('lists the one table and reads its chains, sets and last rules', async () => {
    const { calls, run } = runner({ stdout: LISTING });
    const view = await new NftFirewall(run).inspect(TABLE);
    expect(calls).toEqual([['nft', '-j', 'list', 'table', 'inet', 'ferry']]);
    expect(view).toEqual({
      chains: [
        { name: 'split_route', hook: 'output', policy: 'accept', rules: 0, lastRule: null },
        {
          name: 'guard_out',
          hook: 'output',
          policy: 'accept',
          rules: 2,
          lastRule: [{ counter: { packets: 3, bytes: 180 } }, { drop: null }],
        },
      ],
      sets: [
        { name: 'split_route4', elements: 2 },
        { name: 'dns4', elements: 1 },
        { name: 'dns6', elements: 0 },
      ],
    });
  });

  it('says null for a table that is not there, and fails on anything else', async () => {
    const missing = runner({
      exitCode: 1,
      stderr: 'Error: No such file or directory\nlist table inet ferry\n                ^^^^^\n',
    });
    expect(await new NftFirewall(missing.run).inspect(TABLE)).toBeNull();
    const denied = runner({
      exitCode: 1,
      stderr: 'Error: Could not process rule: Operation not permitted (10.64.0.1)\n',
    });
    const e = await new NftFirewall(denied.run).inspect(TABLE).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(FerryError);
    expect((e as FerryError).message).not.toContain('10.64.0.1');
    await expect(
      new NftFirewall(denied.run).inspect({ family: 'inet', name: 'x y' }),
    ).rejects.toThrow(TypeError);
  });

  it('reads an applied body the same way (the fake’s view)', () => {
    expect(
      tableView([
        { chain: { name: 'guard_out', type: 'filter', hook: 'output', prio: 0, policy: 'accept' } },
        { set: { name: 'dns4', type: 'ipv4_addr', elem: ['10.64.0.1'] } },
        { rule: { chain: 'guard_out', expr: [{ counter: null }, { drop: null }] } },
      ]),
    ).toEqual({
      chains: [
        {
          name: 'guard_out',
          hook: 'output',
          policy: 'accept',
          rules: 1,
          lastRule: [{ counter: null }, { drop: null }],
        },
      ],
      sets: [{ name: 'dns4', elements: 1 }],
    });
  });
});

// The Linux implementations without touching the host: the argv they hand to ip and nft, how
// they read ip's and nft's JSON, which failures count as "already done", and error messages
// that name no address. (e2e/netns/engine-os.test.ts runs them for real in a namespace.)
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

import { FerryError } from '../../contracts/engine-errors.js';
import { checkOutput, redactAddresses, runCommand, type CommandOutput } from './command.js';
import { NftFirewall } from './nftables.js';
import { LinuxLinks } from './links.js';
import { LinuxRoutes } from './routes.js';

interface Call {
  tool: string;
  args: string[];
  /** nft's batch file, read while it exists. */
  batch?: unknown;
}

/** A runner that records each call and answers from `replies` in order (default: success). */
function recorder(replies: Partial<CommandOutput>[] = []) {
  const calls: Call[] = [];
  const run = async (tool: string, args: readonly string[]): Promise<CommandOutput> => {
    const call: Call = { tool, args: [...args] };
    const f = args.indexOf('-f');
    if (tool === 'nft' && f >= 0) call.batch = JSON.parse(readFileSync(args[f + 1]!, 'utf8'));
    calls.push(call);
    return { exitCode: 0, stdout: '', stderr: '', ...replies.shift() };
  };
  return { calls, run };
}

async function failure(p: Promise<unknown>): Promise<FerryError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(FerryError);
  return e as FerryError;
}

// Captured from iproute2 6.1 (`ip -d -j address show dev t0`), trimmed.
const IP_ADDRESS_SHOW = JSON.stringify([
  {
    ifindex: 2,
    ifname: 'ferry0',
    flags: ['NO-CARRIER', 'POINTOPOINT', 'MULTICAST', 'NOARP', 'UP'],
    mtu: 1420,
    linkinfo: { info_kind: 'tun', info_data: { type: 'tun', persist: true } },
    addr_info: [
      { family: 'inet', local: '10.64.0.2', prefixlen: 32, scope: 'global' },
      { family: 'inet6', local: 'fd66:6572:7279::2', prefixlen: 128, scope: 'global' },
    ],
  },
]);

describe('LinuxLinks', () => {
  it('hands ip argv arrays, never a command line', async () => {
    const { calls, run } = recorder();
    const links = new LinuxLinks(run);
    await links.create('ferry0', 'tun');
    await links.create('wg0', 'wireguard');
    await links.setAddress('ferry0', '10.64.0.2');
    await links.setAddress('ferry0', 'fd66:6572:7279::2/128');
    await links.removeAddress('ferry0', '10.64.0.2/32');
    await links.setMtu('ferry0', 1420);
    await links.setUp('ferry0', true);
    await links.delete('ferry0');
    expect(calls.map((c) => [c.tool, ...c.args].join(' '))).toEqual([
      'ip tuntap add dev ferry0 mode tun',
      'ip link add dev wg0 type wireguard',
      'ip -4 address replace 10.64.0.2/32 dev ferry0',
      'ip -6 address replace fd66:6572:7279::2/128 dev ferry0',
      'ip -4 address delete 10.64.0.2/32 dev ferry0',
      'ip link set dev ferry0 mtu 1420',
      'ip link set dev ferry0 up',
      'ip link delete dev ferry0',
    ]);
  });

  it("reads ip's JSON", async () => {
    const { run } = recorder([{ stdout: IP_ADDRESS_SHOW }]);
    expect(await new LinuxLinks(run).get('ferry0')).toEqual({
      name: 'ferry0',
      kind: 'tun',
      mtu: 1420,
      up: true,
      addresses: ['10.64.0.2/32', 'fd66:6572:7279::2/128'],
    });
  });

  it('takes a missing link or address as already gone, and any other failure as one', async () => {
    const { run } = recorder([
      { exitCode: 1, stderr: 'Cannot find device "ferry0"\n' },
      { exitCode: 1, stderr: 'Device "ferry0" does not exist.\n' },
      { exitCode: 2, stderr: 'Error: ipv6: address not found.\n' },
      { exitCode: 2, stderr: 'RTNETLINK answers: Operation not permitted\n' },
    ]);
    const links = new LinuxLinks(run);
    await links.delete('ferry0');
    expect(await links.get('ferry0')).toBeNull();
    await links.removeAddress('ferry0', 'fd66:6572:7279::2/128');
    const e = await failure(links.setUp('ferry0', true));
    expect(e.code).toBe('os-command-failed');
    expect(e.message).toBe(
      'could not bring ferry0 up: ip exited with 2: RTNETLINK answers: Operation not permitted',
    );
  });
});

describe('LinuxRoutes', () => {
  it('hands ip the route and rule argv of a full tunnel', async () => {
    const { calls, run } = recorder();
    const routes = new LinuxRoutes(run);
    await routes.add({
      destination: '198.51.100.0/24',
      via: '10.64.0.1',
      dev: 'ferry0',
      table: 51820,
      metric: 5,
      src: '10.64.0.2',
    });
    await routes.replace({ destination: '::/0', dev: 'ferry0', table: 51820 });
    await routes.add({ destination: '203.0.113.9', type: 'blackhole' });
    await routes.delete({ destination: '0.0.0.0/0', table: 51820 });
    await routes.addRule({
      family: 4,
      priority: 100,
      table: 51820,
      fwmark: 0xca6c,
      notFwmark: true,
    });
    await routes.addRule({ family: 6, priority: 99, table: 'main', suppressPrefixLength: 0 });
    await routes.addRule({
      family: 4,
      priority: 98,
      to: '10.0.0.0/8',
      table: 'main',
      suppressPrefixLength: 0,
    });
    await routes.deleteRule({ family: 4, priority: 101, table: 7, fwmark: 0x10, fwmask: 0xff });
    expect(calls.map((c) => [c.tool, ...c.args].join(' '))).toEqual([
      'ip -4 route add 198.51.100.0/24 via 10.64.0.1 dev ferry0 table 51820 metric 5 src 10.64.0.2',
      'ip -6 route replace ::/0 dev ferry0 table 51820',
      'ip -4 route add blackhole 203.0.113.9',
      'ip -4 route delete 0.0.0.0/0 table 51820',
      'ip -4 rule add priority 100 not fwmark 0xca6c table 51820',
      'ip -6 rule add priority 99 table main suppress_prefixlength 0',
      'ip -4 rule add priority 98 to 10.0.0.0/8 table main suppress_prefixlength 0',
      'ip -4 rule delete priority 101 fwmark 0x10/0xff table 7',
    ]);
  });

  it("reads ip's JSON of routes and rules", async () => {
    // Captured from iproute2 6.1.
    const { run } = recorder([
      {
        stdout: JSON.stringify([
          { dst: 'default', dev: 'ferry0', scope: 'link', flags: [] },
          { type: 'throw', dst: '10.6.0.0/16', flags: [] },
          { dst: '10.5.0.1', gateway: '10.9.0.1', dev: 'ferry0', prefsrc: '10.9.0.2', metric: 5 },
        ]),
      },
      {
        stdout: JSON.stringify([
          { priority: 0, src: 'all', table: 'local' },
          { priority: 98, src: 'all', dst: '10.0.0.0', dstlen: 8, table: 'main' },
          { priority: 99, src: 'all', table: 'main', suppress_prefixlen: 0 },
          { priority: 99, src: 'all', dst: '192.0.2.7', table: 'main' },
          { priority: 100, not: null, src: 'all', fwmark: '0xca6c', table: '51820' },
          { priority: 101, src: 'all', fwmark: '0x10', fwmask: '0xff', table: '51820' },
        ]),
      },
    ]);
    const routes = new LinuxRoutes(run);
    expect(await routes.list(51820, 4)).toEqual([
      { destination: '0.0.0.0/0', type: 'unicast', dev: 'ferry0', table: 51820 },
      { destination: '10.6.0.0/16', type: 'throw', table: 51820 },
      {
        destination: '10.5.0.1/32',
        type: 'unicast',
        dev: 'ferry0',
        via: '10.9.0.1',
        src: '10.9.0.2',
        metric: 5,
        table: 51820,
      },
    ]);
    expect((await routes.listRules(4)).slice(1)).toEqual([
      { family: 4, priority: 98, to: '10.0.0.0/8', table: 'main' },
      { family: 4, priority: 99, table: 'main', suppressPrefixLength: 0 },
      { family: 4, priority: 99, to: '192.0.2.7/32', table: 'main' },
      { family: 4, priority: 100, table: 51820, fwmark: 0xca6c, notFwmark: true },
      { family: 4, priority: 101, table: 51820, fwmark: 0x10, fwmask: 0xff },
    ]);
  });

  it('takes a missing route or rule as already gone', async () => {
    const { run } = recorder([
      { exitCode: 2, stderr: 'RTNETLINK answers: No such process\n' },
      { exitCode: 2, stderr: 'RTNETLINK answers: No such file or directory\n' },
      { exitCode: 2, stderr: 'RTNETLINK answers: File exists\n' },
    ]);
    const routes = new LinuxRoutes(run);
    await routes.delete({ destination: '198.51.100.0/24', table: 7 });
    await routes.deleteRule({ family: 4, priority: 100, table: 7 });
    const e = await failure(routes.addRule({ family: 4, priority: 100, table: 7 }));
    expect(e.message).toBe(
      'could not add a routing rule: ip exited with 2: RTNETLINK answers: File exists',
    );
  });

  it('refuses the kernel’s own tables', async () => {
    const { calls, run } = recorder();
    await expect(
      new LinuxRoutes(run).replace({ destination: '0.0.0.0/0', dev: 'ferry0', table: 254 }),
    ).rejects.toThrow(TypeError);
    expect(calls).toEqual([]);
  });
});

describe('NftFirewall', () => {
  const table = { family: 'inet', name: 'ferry' } as const;

  it('replaces the table in one transaction, confined to the table, through a private file', async () => {
    const { calls, run } = recorder();
    await new NftFirewall(run).apply(table, [
      { chain: { name: 'output', type: 'filter', hook: 'output', prio: 0, policy: 'drop' } },
      { rule: { chain: 'output', expr: [{ accept: null }] } },
    ]);
    expect(calls).toHaveLength(1);
    const [call] = calls;
    expect(call!.args.slice(0, 2)).toEqual(['-j', '-f']);
    expect(call!.batch).toEqual({
      nftables: [
        { add: { table: { family: 'inet', name: 'ferry' } } },
        { delete: { table: { family: 'inet', name: 'ferry' } } },
        { add: { table: { family: 'inet', name: 'ferry' } } },
        {
          add: {
            chain: {
              name: 'output',
              type: 'filter',
              hook: 'output',
              prio: 0,
              policy: 'drop',
              family: 'inet',
              table: 'ferry',
            },
          },
        },
        {
          add: {
            rule: { chain: 'output', expr: [{ accept: null }], family: 'inet', table: 'ferry' },
          },
        },
      ],
    });
    expect(existsSync(call!.args[2]!)).toBe(false);
  });

  it('patches the table in one transaction confined to it, and replaces it whole next time', async () => {
    const { calls, run } = recorder();
    const fw = new NftFirewall(run);
    const body = [{ set: { name: 'tunnels', type: 'ifname' } }];
    await fw.apply(table, body);
    await fw.patch(table, [
      { add: { element: { name: 'tunnels', elem: ['wg0'] } } },
      { delete: { element: { name: 'limited4_5', elem: ['10.64.0.2'] } } },
    ]);
    await fw.apply(table, body);
    expect(calls[1]!.batch).toEqual({
      nftables: [
        { add: { element: { name: 'tunnels', elem: ['wg0'], family: 'inet', table: 'ferry' } } },
        {
          delete: {
            element: { name: 'limited4_5', elem: ['10.64.0.2'], family: 'inet', table: 'ferry' },
          },
        },
      ],
    });
    // Not an update of what the first apply made: the patch changed the table since.
    expect((calls[2]!.batch as { nftables: object[] }).nftables.slice(0, 2)).toEqual([
      { add: { table } },
      { delete: { table } },
    ]);
    await expect(fw.patch(table, [{ add: { table: { name: 'other' } } }] as never)).rejects.toThrow(
      TypeError,
    );
    expect(calls).toHaveLength(3);
  });

  it('removes the table idempotently in one transaction', async () => {
    const { calls, run } = recorder();
    await new NftFirewall(run).remove(table);
    expect(calls[0]!.batch).toEqual({
      nftables: [{ add: { table } }, { delete: { table } }],
    });
  });

  it('reads whether the table exists', async () => {
    const listing = (tables: object[]) =>
      JSON.stringify({
        nftables: [{ metainfo: { version: '1.0.6' } }, ...tables.map((t) => ({ table: t }))],
      });
    const { run } = recorder([
      { stdout: listing([{ family: 'ip', name: 'ferry', handle: 1 }]) },
      { stdout: listing([{ family: 'inet', name: 'ferry', handle: 2 }]) },
    ]);
    const fw = new NftFirewall(run);
    expect(await fw.exists(table)).toBe(false);
    expect(await fw.exists(table)).toBe(true);
  });

  it('reports a refused batch without the addresses nft quotes', async () => {
    const { run } = recorder([
      {
        exitCode: 1,
        stderr:
          'internal:0:0-0: Error: Could not process rule: No such file or directory ip daddr 192.0.2.7 fd00::7\n',
      },
    ]);
    const e = await failure(new NftFirewall(run).apply(table, []));
    expect(e.message).toBe(
      'could not apply the ferry firewall table: nft exited with 1: internal:0:0-0: Error: ' +
        'Could not process rule: No such file or directory ip daddr <address> <address>',
    );
    expect(String(e.cause)).not.toMatch(/192\.0\.2|fd00/);
  });
});

describe('commands', () => {
  it('run with an argv, report exit and stderr, and fail only when the tool cannot start', async () => {
    const out = await runCommand('sh', ['-c', 'echo out; echo "$1" >&2; exit 3', 'sh', 'a b;c']);
    expect(out).toEqual({ exitCode: 3, stdout: 'out\n', stderr: 'a b;c\n' });
    const e = await failure(runCommand('ferry-no-such-tool', []));
    expect(e.message).toBe('ferry-no-such-tool is not installed (Debian: the iproute2 package)');
  });

  it('say that a tool was stopped', () => {
    expect(() => checkOutput({ exitCode: null, stdout: '', stderr: '' }, 'nft', 'apply')).toThrow(
      'could not apply: nft was stopped (timeout)',
    );
  });

  it('redact IPv4 and IPv6 addresses and prefixes', () => {
    expect(
      redactAddresses(
        'via 10.64.0.1 to 198.51.100.0/24 and fd66:6572:7279::2/128, ::1, 2001:db8::',
      ),
    ).toBe('via <address> to <address> and <address>, <address>, <address>');
    expect(redactAddresses('::ffff:192.0.2.1 fe80::1%ferry0')).not.toMatch(/192|fe80/);
    expect(redactAddresses('Error: Nexthop has invalid gateway.')).toBe(
      'Error: Nexthop has invalid gateway.',
    );
  });
});

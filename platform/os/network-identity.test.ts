import { describe, expect, it } from 'vitest';

import type { CommandRunner } from './command.js';
import { LinuxNetworkIdentity, networkPrefix } from './network-identity.js';

/** A runner that answers `ip` from a table of argv -> stdout, recording what it was asked. */
function runner(answers: Record<string, unknown>): CommandRunner & { asked: string[] } {
  const asked: string[] = [];
  const run = (async (tool: string, args: readonly string[]) => {
    const key = `${tool} ${args.join(' ')}`;
    asked.push(key);
    return key in answers
      ? { exitCode: 0, stdout: JSON.stringify(answers[key]), stderr: '' }
      : { exitCode: 1, stdout: '', stderr: 'Cannot find device' };
  }) as CommandRunner & { asked: string[] };
  run.asked = asked;
  return run;
}

const ROUTE = 'ip -4 -j route show default';
const NEIGH = 'ip -4 -j neigh show 192.168.1.1 dev wlan0';
const ADDR = 'ip -4 -j address show dev wlan0';

describe('LinuxNetworkIdentity', () => {
  it('names the network by its gateway’s hardware address and the gateway link’s prefix', async () => {
    const run = runner({
      [ROUTE]: [
        { dst: 'default', gateway: '10.0.0.1', dev: 'eth1', metric: 600 },
        { dst: 'default', gateway: '192.168.1.1', dev: 'wlan0', metric: 100 },
      ],
      [NEIGH]: [{ dst: '192.168.1.1', lladdr: 'AA:BB:CC:00:11:22', state: ['REACHABLE'] }],
      [ADDR]: [
        {
          addr_info: [
            { family: 'inet', local: '10.9.9.9', prefixlen: 8 },
            { family: 'inet', local: '192.168.1.37', prefixlen: 24 },
          ],
        },
      ],
    });
    expect(await new LinuxNetworkIdentity(run).read()).toEqual({
      gatewayMac: 'aa:bb:cc:00:11:22',
      prefix: '192.168.1.0/24',
    });
  });

  it('is null without a default route, or when no address of the link holds the gateway', async () => {
    expect(await new LinuxNetworkIdentity(runner({ [ROUTE]: [] })).read()).toBeNull();
    const elsewhere = runner({
      [ROUTE]: [{ dst: 'default', gateway: '192.168.1.1', dev: 'wlan0' }],
      [NEIGH]: [],
      [ADDR]: [{ addr_info: [{ family: 'inet', local: '10.9.9.9', prefixlen: 8 }] }],
    });
    expect(await new LinuxNetworkIdentity(elsewhere).read()).toBeNull();
  });

  it('keeps the prefix when the gateway’s hardware address is not known yet', async () => {
    const run = runner({
      [ROUTE]: [{ dst: 'default', gateway: '192.168.1.1', dev: 'wlan0' }],
      [NEIGH]: [],
      [ADDR]: [{ addr_info: [{ family: 'inet', local: '192.168.1.37', prefixlen: 24 }] }],
    });
    expect(await new LinuxNetworkIdentity(run).read()).toEqual({
      gatewayMac: null,
      prefix: '192.168.1.0/24',
    });
  });

  it('computes prefixes, and refuses what is not an IPv4 address and length', () => {
    expect(networkPrefix('198.18.5.12', 24)).toBe('198.18.5.0/24');
    expect(networkPrefix('10.1.2.3', 8)).toBe('10.0.0.0/8');
    expect(networkPrefix('fe80::1', 64)).toBeNull();
    expect(networkPrefix('10.1.2.3', 40)).toBeNull();
  });
});

// The relay's firewall on platform/os's fakes: forwarding on and the whole table in one
// transaction, devices kept from the uplink's subnets, tunnel interfaces and rate tiers patched in
// one transaction per change, nothing changed when the uplink cannot be read.
import { describe, expect, it } from 'vitest';

import { createFakeRelayOs } from '../os.fake.js';
import { RelayFirewall, type FirewallOptions } from './firewall.js';

const TABLE = { family: 'inet', name: 'ferry_wg0' } as const;
const options: FirewallOptions = {
  table: TABLE.name,
  uplink: 'eth0',
  ipv4Cidr: '10.64.0.0/10',
  ipv6Cidr: 'fd66:6572:7279::/48',
  probePort: 51884,
  controlPlane: null,
  allowedNetworks: ['10.20.0.0/16'],
};
const prefix = (cidr: string) => {
  const [addr, len] = cidr.split('/');
  return { prefix: { addr, len: Number(len) } };
};

async function created() {
  const os = createFakeRelayOs('eth0', ['203.0.113.7/24', '2001:db8:5::7/64']);
  const fw = await RelayFirewall.create(os, options);
  return { os, fw };
}

describe('the relay firewall', () => {
  it('turns forwarding on, then puts its whole table in force in one transaction', async () => {
    const { os } = await created();
    expect(os.journal.ops()).toEqual(['links.get', 'sysctl.set', 'sysctl.set', 'firewall.apply']);
    expect(os.sysctl.values).toEqual(
      new Map([
        ['net.ipv4.ip_forward', '1'],
        ['net.ipv6.conf.all.forwarding', '1'],
      ]),
    );
    const view = (await os.firewall.inspect(TABLE))!;
    expect(view.chains.map((c) => [c.name, c.hook]).sort()).toEqual([
      ['closed', null],
      ['forward', 'forward'],
      ['from_tunnels', null],
      ['input', 'input'],
      ['postrouting', 'postrouting'],
    ]);
    expect(os.firewall.elements(TABLE, 'tunnels')).toEqual([]);
    // The last word on what devices send to the host and to closed ranges is a drop.
    for (const chain of ['closed', 'from_tunnels'])
      expect(view.chains.find((c) => c.name === chain)!.lastRule).toEqual([{ drop: null }]);
  });

  it('keeps devices from the uplink’s own subnets, beside the private ranges, but not from allowed ones', async () => {
    const { os } = await created();
    expect(os.firewall.elements(TABLE, 'blocked_v4')).toContainEqual(prefix('203.0.113.0/24'));
    expect(os.firewall.elements(TABLE, 'blocked_v4')).toContainEqual(prefix('10.0.0.0/8'));
    expect(os.firewall.elements(TABLE, 'blocked_v6')).toContainEqual(prefix('2001:db8:5::/64'));
    expect(os.firewall.elements(TABLE, 'allowed_v4')).toEqual([prefix('10.20.0.0/16')]);
    expect(os.firewall.elements(TABLE, 'allowed_v6')).toEqual([]);
  });

  it('changes nothing when the uplink is not there', async () => {
    const os = createFakeRelayOs('eth1');
    await expect(RelayFirewall.create(os, options)).rejects.toThrow(
      'the uplink eth0 does not exist',
    );
    expect(os.journal.ops()).toEqual(['links.get']);
    expect(await os.firewall.exists(TABLE)).toBe(false);
  });

  it('learns tunnel interfaces, and moves addresses between rate tiers, one transaction each', async () => {
    const { os, fw } = await created();
    await fw.addTunnelInterface('wg0');
    await fw.addTunnelInterface('wg0s1');
    expect(os.firewall.elements(TABLE, 'tunnels')).toEqual(['wg0', 'wg0s1']);

    const patches = () => os.journal.ops().filter((op) => op === 'firewall.patch').length;
    const before = patches();
    await fw.setLimit(['10.64.0.2', 'fd66:6572:7279::2', '10.64.0.3'], 20);
    // The tier's sets and rules, then its addresses.
    expect(patches() - before).toBe(2);
    expect(os.firewall.elements(TABLE, 'limited4_20')).toEqual(['10.64.0.2', '10.64.0.3']);
    expect(os.firewall.elements(TABLE, 'limited6_20')).toEqual(['fd66:6572:7279::2']);

    await fw.setLimit(['10.64.0.2'], 50);
    expect(os.firewall.elements(TABLE, 'limited4_20')).toEqual(['10.64.0.3']);
    expect(os.firewall.elements(TABLE, 'limited4_50')).toEqual(['10.64.0.2']);

    await fw.setLimit(['10.64.0.2', '10.64.0.3', 'fd66:6572:7279::2'], null);
    expect(os.firewall.elements(TABLE, 'limited4_20')).toEqual([]);
    expect(os.firewall.elements(TABLE, 'limited4_50')).toEqual([]);
    expect(os.firewall.elements(TABLE, 'limited6_20')).toEqual([]);

    // Addresses already where they are asked to be: no transaction at all.
    const settled = patches();
    await fw.setLimit(['10.64.0.2'], null);
    expect(patches()).toBe(settled);
  });

  it('removes its table on close, and a table already gone is no failure', async () => {
    const { os, fw } = await created();
    await fw.close();
    expect(await os.firewall.exists(TABLE)).toBe(false);
    os.firewall.failNext('remove');
    await fw.close();
  });
});

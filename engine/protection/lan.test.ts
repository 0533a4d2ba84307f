import { describe, expect, it } from 'vitest';

import { prefixElements } from '../split/nft-elements.js';
import { dhcpLinks, lanCidrs, lanElements } from './lan.js';

const link = (name: string, addresses: string[]) => ({
  name,
  kind: null,
  mtu: 1500,
  up: true,
  addresses,
});

describe('the LAN', () => {
  it('is the subnets of the host’s links, not loopback’s or a tunnel’s, with link scope', () => {
    const lan = lanCidrs([
      link('lo', ['127.0.0.1/8', '::1/128']),
      link('eth0', ['192.168.1.23/24', 'fd12:3456::17/64', 'fe80::1/64']),
      link('fytmain0a1b2c', ['10.64.0.2/32']),
      link('wlan0', ['10.1.2.3/32']),
    ]);
    expect(lan.v4).toEqual([
      '169.254.0.0/16',
      '224.0.0.0/4',
      '255.255.255.255/32',
      '192.168.1.0/24',
    ]);
    expect(lan.v6).toEqual(['fe80::/10', 'ff00::/8', 'fd12:3456::/64']);
  });

  it('takes only the private, link-local and ULA parts of a subnet: a rogue lease claims nothing public', () => {
    const lan = lanCidrs([
      // TunnelCrack's LocalNet: a DHCP lease of a /15 that holds foreign addresses.
      link('eth0', ['198.18.3.7/15', '2001:db8:5::17/64']),
      // A prefix wider than a private range: only the private range of it.
      link('eth1', ['10.1.2.3/7', '172.20.0.9/11']),
      link('eth2', ['0.0.0.1/0', 'fd00::1/7']),
    ]);
    expect(lan.v4).toEqual([
      '169.254.0.0/16',
      '224.0.0.0/4',
      '255.255.255.255/32',
      '10.0.0.0/8',
      '172.16.0.0/12',
      '10.0.0.0/8',
      '172.16.0.0/12',
      '192.168.0.0/16',
      '169.254.0.0/16',
    ]);
    expect(lan.v6).toEqual(['fe80::/10', 'ff00::/8', 'fc00::/7']);
  });

  it('drops prefixes inside others and duplicates: nft refuses overlapping elements', () => {
    expect(
      prefixElements([
        '169.254.0.0/16',
        '169.254.3.0/24',
        '10.0.0.0/8',
        '10.0.0.0/8',
        '1.2.3.4/32',
      ]),
    ).toEqual([
      { prefix: { addr: '169.254.0.0', len: 16 } },
      { prefix: { addr: '10.0.0.0', len: 8 } },
      '1.2.3.4',
    ]);
    expect(lanElements({ v4: [], v6: ['fe80::/10', 'fe80::/64'] }).v6).toEqual([
      { prefix: { addr: 'fe80::', len: 10 } },
    ]);
  });

  it('lets DHCP out by every link but loopback and the tunnels, with its IPv4 subnets', () => {
    expect(
      dhcpLinks([
        link('lo', ['127.0.0.1/8']),
        link('eth0', ['198.18.3.7/24', '10.1.2.3/32', 'fe80::1/64']),
        link('wlan0', []),
        link('fytmain0a1b2c', ['10.64.0.2/32']),
        // A name that could read as more than a name gets no rule (and breaks no other).
        link('odd"name', ['192.168.9.1/24']),
      ]),
    ).toEqual([
      { name: 'eth0', v4: ['198.18.3.0/24'] },
      { name: 'wlan0', v4: [] },
    ]);
  });
});

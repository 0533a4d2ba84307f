import { describe, expect, it } from 'vitest';

import { lanCidrs, lanElements, prefixElements } from './lan.js';

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
      link('eth0', ['192.168.1.23/24', '2001:db8:5::17/64', 'fe80::1/64']),
      link('fytmain0a1b2c', ['10.64.0.2/32']),
      link('wlan0', ['10.1.2.3/32']),
    ]);
    expect(lan.v4).toEqual([
      '169.254.0.0/16',
      '224.0.0.0/4',
      '255.255.255.255/32',
      '192.168.1.0/24',
    ]);
    expect(lan.v6).toEqual(['fe80::/10', 'ff00::/8', '2001:db8:5::/64']);
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
});

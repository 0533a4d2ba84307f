// The relay's destination networks: what `--allow-network` takes and refuses, the uplink's
// subnets from its addresses, and the reduction to disjoint prefixes nftables needs.
import ipaddr from 'ipaddr.js';
import { describe, expect, it } from 'vitest';
import {
  BLOCKED_IPV4,
  BLOCKED_IPV6,
  disjoint,
  parseAllowedNetwork,
  subnetsOf,
} from './networks.js';

describe('parseAllowedNetwork', () => {
  it('takes a network in canonical form, and an address alone as one host', () => {
    expect(parseAllowedNetwork('10.120.5.0/24')).toBe('10.120.5.0/24');
    expect(parseAllowedNetwork(' 172.31.0.0/16 ')).toBe('172.31.0.0/16');
    expect(parseAllowedNetwork('10.0.0.7')).toBe('10.0.0.7/32');
    expect(parseAllowedNetwork('FD00:0::/8')).toBe('fd00::/8');
  });

  it('refuses what is not a network, host bits, every address, and ranges never opened', () => {
    for (const [input, why] of [
      ['', /not an IPv4 or IPv6 network/],
      ['vpc', /not an IPv4 or IPv6 network/],
      ['10.0.0.0/8/1', /not an IPv4 or IPv6 network/],
      ['10.1', /not an IPv4 or IPv6 network/],
      ['fe80::1%eth0', /not an IPv4 or IPv6 network/],
      ['10.0.0.0/33', /from 1 to 32/],
      ['10.0.0.0/x', /from 1 to 32/],
      ['10.120.5.1/24', /host bits set.*10\.120\.5\.0\/24/],
      ['0.0.0.0/0', /every address/],
      ['::/0', /every address/],
      ['169.254.169.254', /linkLocal/],
      ['169.254.0.0/16', /linkLocal/],
      ['fe80::/10', /linkLocal/],
      ['127.0.0.0/8', /loopback/],
      ['224.0.0.0/4', /multicast/],
      ['::ffff:10.0.0.0/104', /ipv4Mapped/],
    ] as const)
      expect(() => parseAllowedNetwork(input), input).toThrow(why);
  });
});

describe('subnetsOf', () => {
  it("names the subnet of each of an interface's addresses", () => {
    expect(
      subnetsOf([
        { family: 'inet', local: '198.18.7.12', prefixlen: 24 },
        { family: 'inet', local: '203.0.113.9', prefixlen: 32 },
        { family: 'inet6', local: '2001:db8:7::12', prefixlen: 64 },
        { family: 'inet6', local: 'fe80::1c2b:3ff:fe4d:5e6f', prefixlen: 64 },
        { family: 'link', local: 'whatever', prefixlen: 0 },
      ]),
    ).toEqual(['198.18.7.0/24', '203.0.113.9/32', '2001:db8:7::/64', 'fe80::/64']);
  });
});

describe('disjoint', () => {
  it('keeps each network once, without those inside another, by family', () => {
    expect(
      disjoint([...BLOCKED_IPV4, '10.1.2.0/24', '198.18.7.0/24', ...BLOCKED_IPV6, 'fe80::/64']),
    ).toEqual({
      v4: [...BLOCKED_IPV4, '198.18.7.0/24'],
      v6: [...BLOCKED_IPV6],
    });
    expect(disjoint(['10.0.0.0/8', '10.0.0.0/8', '11.0.0.0/8'])).toEqual({
      v4: ['10.0.0.0/8', '11.0.0.0/8'],
      v6: [],
    });
  });

  it('leaves the test internet and the documentation ranges alone', () => {
    const { v4, v6 } = disjoint([...BLOCKED_IPV4, ...BLOCKED_IPV6]);
    expect(v4).toHaveLength(BLOCKED_IPV4.length);
    expect(v6).toHaveLength(BLOCKED_IPV6.length);
    for (const [cidr, internet] of [
      ['198.18.0.0/15', true],
      ['203.0.113.0/24', true],
      ['2001:db8::/32', true],
      ['10.64.0.0/10', false],
      ['169.254.169.254/32', false],
      ['fd66:6572:7279::/48', false],
    ] as const)
      expect(disjoint([...BLOCKED_IPV4, ...BLOCKED_IPV6, cidr]), cidr).toEqual(
        internet
          ? {
              v4: cidr.includes(':') ? v4 : [...v4, cidr],
              v6: cidr.includes(':') ? [...v6, cidr] : v6,
            }
          : { v4, v6 },
      );
  });
});

describe('the blocked ranges', () => {
  const blocked = (address: string) => {
    const a = ipaddr.parse(address);
    return [...BLOCKED_IPV4, ...BLOCKED_IPV6].some((c) => {
      const r = ipaddr.parseCIDR(c);
      return r[0].kind() === a.kind() && a.match(r);
    });
  };

  it('hold the IPv6 prefixes that lead to private IPv4: NAT64 and 6to4', () => {
    // On a dual-stack cloud a NAT64 gateway or a 6to4 relay turns these into IPv4 packets to
    // the addresses they embed: the VPC, the metadata service.
    for (const address of [
      '64:ff9b::a00:1', // 10.0.0.1 through NAT64's well-known prefix
      '64:ff9b::a9fe:a9fe', // 169.254.169.254
      '64:ff9b::c0a8:101', // 192.168.1.1
      '64:ff9b:1::a00:1', // the local-use NAT64 prefix
      '2002:a00:1::1', // 10.0.0.1 through 6to4
      '2002:a9fe:a9fe::1', // 169.254.169.254
      '::ffff:10.0.0.1',
      '169.254.169.254',
      'fd00::1',
    ])
      expect(blocked(address), address).toBe(true);
    for (const address of ['198.18.0.1', '2001:db8::1', '2606:4700::1111', '1.1.1.1'])
      expect(blocked(address), address).toBe(false);
  });
});

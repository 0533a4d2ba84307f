// What a user may type for a service (networks, domains, names), in canonical form or refused
// with the reason, and the shipped services.
import { describe, expect, it } from 'vitest';
import {
  AddDestinationSetRequest,
  BUILTIN_DESTINATION_SETS,
  DestinationDomain,
  StartTunnelRequest,
  parseDestinationCidr,
} from './service-tunnels.js';

describe('service networks', () => {
  it.each([
    ['203.0.113.0/24', '203.0.113.0/24'],
    [' 10.20.0.0/16 ', '10.20.0.0/16'],
    ['198.51.100.7', '198.51.100.7/32'],
    ['2001:db8::/32', '2001:db8::/32'],
    ['2001:DB8:0:0::/48', '2001:db8::/48'],
    ['2001:db8::1', '2001:db8::1/128'],
    ['10.120.7.0/24', '10.120.7.0/24'],
  ])('takes %s as %s', (typed, canonical) => {
    expect(parseDestinationCidr(typed)).toEqual({ ok: true, cidr: canonical });
  });

  it.each([
    ['10.20.1.5/16', /host bits set/],
    ['198.51.100.7/24', /^(?!.*198\.51).*host bits set/],
    ['0.0.0.0/0', /every address/],
    ['::/0', /every address/],
    ['10.0.0.0/33', /1 to 32/],
    ['10.0.0.0/-1', /1 to 32/],
    ['10.0.0.0/8/8', /not a network/],
    ['10.0.0', /not an IPv4 or IPv6/],
    ['010.0.0.1', /not an IPv4 or IPv6/],
    ['intranet.example.com', /not an IPv4 or IPv6/],
    ['127.0.0.0/8', /loopback/],
    ['224.0.0.0/4', /multicast/],
    ['169.254.0.0/16', /linkLocal/],
    ['fe80::1%eth0', /not an IPv4 or IPv6/],
    ['::ffff:10.0.0.1', /ipv4Mapped/],
    ['', /not a network/],
  ])('refuses %s', (typed, why) => {
    const r = parseDestinationCidr(typed);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toMatch(why);
  });
});

describe('service domains and requests', () => {
  it('takes domain names in lower case and refuses what is not one', () => {
    expect(DestinationDomain.parse('Intranet.Example.COM')).toBe('intranet.example.com');
    expect(DestinationDomain.parse('a-b.c9.io')).toBe('a-b.c9.io');
    for (const bad of ['localhost', '10.0.0.1', '-a.example.com', 'a..b', 'a b.com', 'x.123'])
      expect(DestinationDomain.safeParse(bad).success, bad).toBe(false);
  });

  it('needs a network or a domain, and names each bad field with what it takes', () => {
    expect(
      AddDestinationSetRequest.parse({
        name: 'Office',
        cidrs: ['10.20.1.5'],
        domains: ['Wiki.Corp.Example'],
      }),
    ).toEqual({ name: 'office', cidrs: ['10.20.1.5/32'], domains: ['wiki.corp.example'] });
    expect(AddDestinationSetRequest.safeParse({ name: 'office' }).success).toBe(false);
    const r = AddDestinationSetRequest.safeParse({
      name: 'office',
      cidrs: ['10.0.0.0/8', '10.20.1.5/16'],
      extra: 1,
    });
    expect(r.success).toBe(false);
    const issues = r.error!.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    expect(issues).toContainEqual(expect.stringMatching(/^cidrs\.1: .*host bits.*CIDR notation/));
    expect(issues.some((i) => /extra/.test(i))).toBe(true);
  });

  it('takes a tunnel start with a tag and a service in any letter case', () => {
    expect(
      StartTunnelRequest.parse({ service: 'GitHub', tag: 'Work', region: 'asia-east' }),
    ).toEqual({ service: 'github', tag: 'work', region: 'asia-east' });
    expect(StartTunnelRequest.safeParse({ service: 'github', tag: 'no spaces' }).success).toBe(
      false,
    );
  });

  it('ships a few office services, by domain', () => {
    const names = BUILTIN_DESTINATION_SETS.map((s) => s.name);
    expect(names).toEqual(expect.arrayContaining(['github', 'slack', 'microsoft-365']));
    expect(new Set(names).size).toBe(names.length);
    for (const s of BUILTIN_DESTINATION_SETS) {
      expect(s.builtin).toBe(true);
      expect(s.cidrs.length + s.domains.length).toBeGreaterThan(0);
    }
  });
});

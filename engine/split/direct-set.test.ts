// The direct set: the home country, the private ranges and the LAN leave directly; the tunnel's
// own block and the DNS resolver never do, even inside them.
import { describe, expect, it } from 'vitest';
import { directSet } from './direct-set.js';
import { parseAddress } from './address-space.js';
import { contains, fromCidrs, toCidrs } from './intervals.js';

const HOME = fromCidrs(['1.1.1.0/24', '203.0.113.0/24', '2001:db8::/32']);

function direct(set: ReturnType<typeof directSet>, ip: string): boolean {
  const a = parseAddress(ip)!;
  return a.family === 'ipv4' ? contains(set.v4, a.value) : contains(set.v6, a.value);
}

describe('directSet', () => {
  it('holds the home country, the private ranges and the LAN', () => {
    const set = directSet({ home: HOME, lan: ['198.51.100.23/24'], alwaysTunneled: [] });
    for (const ip of ['1.1.1.1', '203.0.113.77', '2001:db8::1', '198.51.100.200'])
      expect(direct(set, ip), ip).toBe(true);
    for (const ip of ['10.1.2.3', '172.31.0.1', '192.168.1.1', '100.100.1.1', '169.254.9.9'])
      expect(direct(set, ip), ip).toBe(true);
    for (const ip of ['fd12::1', 'fe80::1']) expect(direct(set, ip), ip).toBe(true);
    // Abroad, and what never takes a route (see PRIVATE_RANGES).
    for (const ip of [
      '8.8.8.8',
      '172.32.0.1',
      '2606:4700::1111',
      '127.0.0.1',
      '224.0.0.251',
      '::1',
    ])
      expect(direct(set, ip), ip).toBe(false);
    expect(toCidrs(set.v4)).toEqual([
      '1.1.1.0/24',
      '10.0.0.0/8',
      '100.64.0.0/10',
      '169.254.0.0/16',
      '172.16.0.0/12',
      '192.168.0.0/16',
      '198.51.100.0/24',
      '203.0.113.0/24',
    ]);
    expect(toCidrs(set.v6)).toEqual(['2001:db8::/32', 'fc00::/7', 'fe80::/10']);
  });

  it('carves the tunnel block and the DNS resolver out, wherever they fall', () => {
    const set = directSet({
      home: HOME,
      lan: ['192.168.1.0/24'],
      alwaysTunneled: ['10.64.0.0/10', '10.64.0.1', '1.1.1.1', '192.168.1.53', 'fd00:64::/64'],
    });
    expect(direct(set, '10.64.0.1')).toBe(false);
    expect(direct(set, '10.127.255.255')).toBe(false);
    expect(direct(set, '10.63.255.255')).toBe(true);
    expect(direct(set, '10.128.0.0')).toBe(true);
    expect(direct(set, '1.1.1.1')).toBe(false);
    expect(direct(set, '1.1.1.2')).toBe(true);
    expect(direct(set, '192.168.1.53')).toBe(false);
    expect(direct(set, '192.168.1.54')).toBe(true);
    expect(direct(set, 'fd00:64::1')).toBe(false);
    expect(direct(set, 'fd00:65::1')).toBe(true);
    expect(toCidrs(set.v4).filter((c) => c.startsWith('10.'))).toEqual([
      '10.0.0.0/10',
      '10.128.0.0/9',
    ]);
    expect(toCidrs(set.v4).filter((c) => c.startsWith('1.1.1.'))).toEqual([
      '1.1.1.0/32',
      '1.1.1.2/31',
      '1.1.1.4/30',
      '1.1.1.8/29',
      '1.1.1.16/28',
      '1.1.1.32/27',
      '1.1.1.64/26',
      '1.1.1.128/25',
    ]);
  });

  it('fails closed on an entry that is not a network', () => {
    expect(() => directSet({ home: HOME, lan: [], alwaysTunneled: ['10.64.0.1', 'dns'] })).toThrow(
      TypeError,
    );
    expect(() => directSet({ home: HOME, lan: ['eth0'], alwaysTunneled: [] })).toThrow(TypeError);
  });
});

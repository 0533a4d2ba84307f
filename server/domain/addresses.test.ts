// Tunnel addresses are unique per device sequence and stay inside the tunnel ranges.
import { describe, expect, it } from 'vitest';
import { tunnelAddresses } from './addresses.js';

describe('tunnelAddresses', () => {
  it('starts after the gateway and counts up', () => {
    expect(tunnelAddresses(1)).toEqual({ ipv4: '10.64.0.2', ipv6: 'fd66:6572:7279::2' });
    expect(tunnelAddresses(254)).toEqual({ ipv4: '10.64.0.255', ipv6: 'fd66:6572:7279::ff' });
    expect(tunnelAddresses(255)).toEqual({ ipv4: '10.64.1.0', ipv6: 'fd66:6572:7279::100' });
    // 70,000 + 1 = 0x11171: the address spills into the next 16-bit group.
    expect(tunnelAddresses(70_000).ipv6).toBe('fd66:6572:7279::1:1171');
  });

  it('refuses sequences outside the pool', () => {
    expect(() => tunnelAddresses(0)).toThrow(RangeError);
    expect(() => tunnelAddresses(2 ** 22)).toThrow(RangeError);
    expect(tunnelAddresses(2 ** 22 - 3).ipv4).toBe('10.127.255.254');
  });
});

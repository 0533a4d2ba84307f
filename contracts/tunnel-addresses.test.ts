// Shards: which block of 65,536 addresses (and so which interface and port) a device is in.
import { describe, expect, it } from 'vitest';
import { shardOf, shardRoutes, tunnelOffset } from './tunnel-addresses.js';

describe('tunnel address shards', () => {
  it('puts each block of 65,536 addresses in its own shard', () => {
    expect(tunnelOffset('10.64.0.2')).toBe(2);
    expect(shardOf('10.64.0.2')).toBe(0);
    expect(shardOf('10.64.255.255')).toBe(0);
    expect(shardOf('10.65.0.0')).toBe(1);
    expect(shardOf('10.127.255.254')).toBe(63);
  });

  it('names the routes of a shard', () => {
    expect(shardRoutes(0)).toEqual({ ipv4: '10.64.0.0/16', ipv6: 'fd66:6572:7279::0:0/112' });
    expect(shardRoutes(1)).toEqual({ ipv4: '10.65.0.0/16', ipv6: 'fd66:6572:7279::1:0/112' });
  });

  it('refuses addresses outside the device range', () => {
    expect(() => tunnelOffset('10.128.0.1')).toThrow(RangeError);
    expect(() => tunnelOffset('192.168.1.1')).toThrow(RangeError);
    expect(() => tunnelOffset('10.64.0')).toThrow(RangeError);
  });
});

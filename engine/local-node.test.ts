// Telling this machine's own addresses from a node elsewhere.
import { describe, expect, it } from 'vitest';
import { isThisMachine, localAddresses } from './local-node.js';

describe('isThisMachine', () => {
  it('knows loopback and the interfaces’ addresses', async () => {
    expect(localAddresses().has('127.0.0.1')).toBe(true);
    expect(await isThisMachine('127.0.0.1')).toBe(true);
    expect(await isThisMachine('localhost')).toBe(true);
    expect(await isThisMachine('198.51.100.7', () => new Set(['198.51.100.7']))).toBe(true);
  });
  it('says no for other addresses and for names that do not resolve', async () => {
    expect(await isThisMachine('192.0.2.10', () => new Set(['198.51.100.7']))).toBe(false);
    expect(await isThisMachine('no-such-host.invalid')).toBe(false);
  });
});

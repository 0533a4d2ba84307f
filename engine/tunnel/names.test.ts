// Tunnel interface names: ours by their prefix, unique, and short enough for the kernel.
import { describe, expect, it } from 'vitest';

import { isTunnelInterfaceName, TUNNEL_INTERFACE_PREFIX, tunnelInterfaceName } from './names.js';

describe('tunnel interface names', () => {
  it('carry the prefix, the label and a random part, within 15 characters', () => {
    const fixed = (n: number) => Buffer.alloc(n, 0xab);
    expect(tunnelInterfaceName('main', fixed)).toBe(`${TUNNEL_INTERFACE_PREFIX}mainababab`);
    const long = tunnelInterfaceName('Netflix-Streaming tag');
    expect(long.length).toBeLessThanOrEqual(15);
    expect(long).toMatch(/^fytnetfli[0-9a-f]{6}$/);
    expect(tunnelInterfaceName().length).toBe(9);
  });

  it('differ from one call to the next (/run/wireguard is shared by all namespaces)', () => {
    const names = new Set(Array.from({ length: 200 }, () => tunnelInterfaceName('main')));
    expect(names.size).toBe(200);
  });

  it('are told apart from other interfaces', () => {
    expect(isTunnelInterfaceName(tunnelInterfaceName('svc'))).toBe(true);
    for (const other of [
      'eth0',
      'wg0',
      'fy1a2b3cc0',
      'fy1a2b3c-inet',
      'fytx-1',
      'fyt0123456789abc',
    ])
      expect(isTunnelInterfaceName(other), other).toBe(false);
  });
});

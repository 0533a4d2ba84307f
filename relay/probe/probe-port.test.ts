// The probe responder's port: the default past the WireGuard shards, none when asked, and never
// a shard's port or the Ferry port.
import { describe, expect, it } from 'vitest';
import { MAX_SHARDS } from '../../contracts/index.js';
import { defaultProbePort, probePortOf } from './probe-port.js';

describe('the probe port', () => {
  it('is the first port past the WireGuard shards unless given; null is none', () => {
    expect(defaultProbePort(51820)).toBe(51820 + MAX_SHARDS);
    expect(probePortOf({ wireguardPort: 51820 })).toBe(51820 + MAX_SHARDS);
    expect(probePortOf({ wireguardPort: 51820, probePort: 4000 })).toBe(4000);
    expect(probePortOf({ wireguardPort: 51820, probePort: null })).toBeNull();
  });

  it('refuses a shard’s port, the Ferry port, and a default beyond 65535', () => {
    expect(() => probePortOf({ wireguardPort: 51820, probePort: 51821 })).toThrow(
      /one of the WireGuard shards' ports \(51820-/,
    );
    expect(() => probePortOf({ wireguardPort: 51820, probePort: 51900, ferryPort: 51900 })).toThrow(
      '--probe-port 51900 is the Ferry port',
    );
    expect(() => probePortOf({ wireguardPort: 65500 })).toThrow(/no room for the probe port/);
  });
});

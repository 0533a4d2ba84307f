// The value sets parse any letter case into their canonical spelling and name the allowed values.
import { describe, expect, it } from 'vitest';
import { ConnectRequest } from './control-api.js';
import { PublicKey } from './values.js';

describe('the connect request', () => {
  it("parses the spec's exact body", () => {
    const parsed = ConnectRequest.parse({
      encryption: 'AES-256-GCM',
      protocol: 'WireGuard',
      region: 'auto',
      usage: 'remote-work',
    });
    expect(parsed).toEqual({
      encryption: 'AES-256-GCM',
      protocol: 'wireguard',
      region: 'auto',
      usage: 'remote-work',
    });
  });

  it('canonicalises letter case', () => {
    expect(
      ConnectRequest.parse({
        encryption: 'chacha20-POLY1305',
        protocol: 'FERRY',
        region: 'Asia-East',
        usage: 'STREAMING',
      }),
    ).toEqual({
      encryption: 'ChaCha20-Poly1305',
      protocol: 'ferry',
      region: 'asia-east',
      usage: 'streaming',
    });
  });

  it('rejects unknown fields and wrong values', () => {
    expect(ConnectRequest.safeParse({ color: 'red' }).success).toBe(false);
    expect(ConnectRequest.safeParse({ protocol: 'openvpn' }).success).toBe(false);
    expect(ConnectRequest.safeParse({ protocol: 7 }).success).toBe(false);
  });
});

describe('public keys', () => {
  it('accept base64 of exactly 32 bytes', () => {
    expect(PublicKey.safeParse(Buffer.alloc(32, 7).toString('base64')).success).toBe(true);
    expect(PublicKey.safeParse(Buffer.alloc(31, 7).toString('base64')).success).toBe(false);
    expect(PublicKey.safeParse(Buffer.alloc(33, 7).toString('base64')).success).toBe(false);
    expect(PublicKey.safeParse('not a key').success).toBe(false);
  });
});

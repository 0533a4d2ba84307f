// QUIC Initial keys against RFC 9001 Appendix A, and a sealed Initial (one and two packets of
// CRYPTO data) read back to its ClientHello.
import { randomBytes } from 'node:crypto';

import { describe, expect, it } from 'vitest';

import {
  clientInitialKeys,
  headerMask,
  helloFromCrypto,
  openInitial,
  sealInitial,
} from './quic-initial.js';
import { helloMessage } from './censor-test-kit.js';

describe('QUIC Initial', () => {
  it("derives RFC 9001 A.1's client keys and A.2's header mask", () => {
    const keys = clientInitialKeys(Buffer.from('8394c8f03e515708', 'hex'));
    expect(keys.key.toString('hex')).toBe('1f369613dd76d5467730efcbe3b1a22d');
    expect(keys.iv.toString('hex')).toBe('fa044b2f42a3fd3b46fb255c');
    expect(keys.hp.toString('hex')).toBe('9f50449e04a0e810283a1e9933adedd2');
    const mask = headerMask(keys.hp, Buffer.from('d1b1c98dd7689fb8ec11d242b123dc9b', 'hex'));
    expect(mask.toString('hex')).toBe('437b9aec36');
  });

  it('opens a sealed Initial to its ClientHello, also one split over two packets', () => {
    const dcid = randomBytes(8);
    const one = openInitial(sealInitial(dcid, randomBytes(8), 0, helloMessage('blocked.example')));
    expect(one).toBeDefined();
    expect(helloFromCrypto(one!.crypto)?.serverName).toBe('blocked.example');

    const big = helloMessage('split.example', 1500);
    const a = openInitial(sealInitial(dcid, Buffer.alloc(0), 0, big.subarray(0, 1000)));
    const b = openInitial(sealInitial(dcid, Buffer.alloc(0), 1, big.subarray(1000), 1000));
    expect(a!.packetNumber).toBe(0);
    expect(b!.packetNumber).toBe(1);
    expect(helloFromCrypto(a!.crypto)).toBeUndefined();
    expect(helloFromCrypto([...b!.crypto, ...a!.crypto])?.serverName).toBe('split.example');
  });

  it('reads nothing into other datagrams, or an Initial whose bytes were changed', () => {
    expect(openInitial(randomBytes(1200))).toBeUndefined();
    expect(openInitial(Buffer.alloc(0))).toBeUndefined();
    const sealed = sealInitial(randomBytes(8), randomBytes(8), 0, helloMessage('x.example'));
    sealed[sealed.length - 30] = sealed[sealed.length - 30]! ^ 1;
    expect(openInitial(sealed)).toBeUndefined();
  });
});

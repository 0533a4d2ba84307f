// The native client's options as the connect answer and the plan decide them.
import { describe, expect, it } from 'vitest';

import { loadHelloTemplate } from '../../native/hello-template.js';
import { validateClientOptions } from '../../native/tunnel-types.js';
import { FerryError } from '../errors.js';
import { ferryClientOptions } from './ferry.js';
import { TEST_KEYS, testAnswer, testPlan } from './plans.fake.js';

describe('the Ferry client options', () => {
  it('come from the answer: node port and key, cipher, keepalive, rekey time, and our mark', () => {
    const o = ferryClientOptions(testPlan('ferry', { transport: 'tcp' }), 0x6665);
    expect(o).toEqual({
      interfaceName: 'fytmain0a1b2c',
      address: '10.64.0.7/32',
      mtu: 1380,
      privateKey: TEST_KEYS.devicePrivate,
      serverHost: '192.0.2.10',
      serverPort: 51900,
      serverPublicKey: TEST_KEYS.nodeFerry,
      cipher: 'chacha20-poly1305',
      transport: 'tcp',
      keepaliveSeconds: 25,
      rekeySeconds: 120,
      fwmark: 0x6665,
    });
    expect(() => validateClientOptions(o)).not.toThrow();
  });

  it('map AES-256-GCM, default to UDP, and keep keepalives in the data plane’s range', () => {
    const answer = testAnswer('ferry', { cipher: 'AES-256-GCM' });
    answer.tunnel = { ...answer.tunnel, keepalive: 300 };
    const o = ferryClientOptions(testPlan('ferry', { answer }), 1);
    expect(o).toMatchObject({ cipher: 'aes-256-gcm', transport: 'udp', keepaliveSeconds: 60 });
  });

  it('tls: the node’s TLS port, its cover site’s name in a hello of the shipped browser template', () => {
    const answer = testAnswer('ferry');
    answer.node = { ...answer.node, tls_port: 443, tls_server_name: 'cover.example' };
    const o = ferryClientOptions(testPlan('ferry', { answer, transport: 'tls' }), 0x6665);
    expect(o).toMatchObject({
      serverPort: 443,
      transport: 'tls',
      serverPublicKey: TEST_KEYS.nodeFerry,
    });
    expect(o.tls?.serverName).toBe('cover.example');
    expect(o.tls?.hello).toEqual(loadHelloTemplate());
    expect(() => validateClientOptions(o)).not.toThrow();
    // Raced: UDP to the node's Ferry port beside it.
    const raced = ferryClientOptions(
      testPlan('ferry', { answer, transport: 'tls', raceUdp: true }),
      0x6665,
    );
    expect(raced).toMatchObject({ serverPort: 443, raceUdpPort: answer.node.ferry_port });
    expect(() => validateClientOptions(raced)).not.toThrow();
    expect(() => validateClientOptions({ ...raced, transport: 'udp', tls: undefined })).toThrow(
      /raceUdpPort races UDP beside transport tcp or tls/,
    );
    // A node without a TLS port cannot be reached over TLS (the plan never asks it to).
    const plain = testPlan('ferry', { transport: 'tls' });
    expect(() => ferryClientOptions(plain, 1)).toThrow(/offers no TLS endpoint/);
  });

  it('are refused for a node without a Ferry endpoint', () => {
    const answer = testAnswer('ferry');
    answer.node = { ...answer.node, ferry_port: null, ferry_public_key: null };
    const e = (() => {
      try {
        return ferryClientOptions(testPlan('ferry', { answer }), 1);
      } catch (x) {
        return x;
      }
    })();
    expect(e).toBeInstanceOf(FerryError);
    expect((e as FerryError).code).toBe('tunnel-failed');
  });
});

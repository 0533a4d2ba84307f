import { describe, expect, it } from 'vitest';

import type { ConnectResponse } from '../../contracts/index.js';
import {
  STREAM_ATTEMPT_MS,
  UDP_ATTEMPT_MS,
  connectProtocol,
  nodeTransports,
  transportPlan,
} from './plan.js';

type Node = ConnectResponse['node'];
const node = (extra: Partial<Node> = {}): Node => ({
  id: 'hk-1',
  region: 'asia-east',
  endpoint_host: '198.18.5.11',
  wireguard_port: 51820,
  wireguard_public_key: 'wg',
  ferry_port: 51900,
  ferry_public_key: 'fy',
  tls_port: 443,
  tls_server_name: 'cover.example',
  ...extra,
});
const order = (p: ReturnType<typeof transportPlan>) =>
  p.attempts.map(
    (a) =>
      `${a.protocol}/${a.transport}${a.race ? `+${a.race}` : ''}${a.timeoutMs ? `@${a.timeoutMs}` : ''}`,
  );

describe('transportPlan', () => {
  it('auto: UDP first, then the web’s look-alike, then Ferry over TCP; each but the last bounded', () => {
    const plan = transportPlan({
      protocol: 'wireguard',
      node: node(),
      obfuscation: 'auto',
      remembered: null,
    });
    expect(order(plan)).toEqual([
      `wireguard/udp@${UDP_ATTEMPT_MS}`,
      `ferry/tls@${STREAM_ATTEMPT_MS}`,
      'ferry/tcp',
    ]);
    expect(plan).toMatchObject({ by: 'autopilot', remembered: null });
  });

  it('auto, Ferry: UDP raced beside TLS in one session (also where UDP worked before), then TCP', () => {
    for (const remembered of [null, 'udp'] as const) {
      const plan = transportPlan({
        protocol: 'ferry',
        node: node(),
        obfuscation: 'auto',
        remembered,
      });
      expect(order(plan)).toEqual([`ferry/tls+udp@${STREAM_ATTEMPT_MS}`, 'ferry/tcp']);
    }
    // Where TLS worked before: TLS alone first (UDP is tried again while connected, now and then).
    const tls = transportPlan({
      protocol: 'ferry',
      node: node(),
      obfuscation: 'auto',
      remembered: 'tls',
    });
    expect(order(tls)).toEqual([
      `ferry/tls@${STREAM_ATTEMPT_MS}`,
      `ferry/udp@${UDP_ATTEMPT_MS}`,
      'ferry/tcp',
    ]);
    // A setting names one transport: no race.
    expect(
      order(
        transportPlan({ protocol: 'ferry', node: node(), obfuscation: 'tls', remembered: null }),
      ),
    ).toEqual(['ferry/tls']);
  });

  it('auto: starts with what worked on this network, then the rest in their order', () => {
    const plan = transportPlan({
      protocol: 'wireguard',
      node: node(),
      obfuscation: 'auto',
      remembered: 'tls',
    });
    expect(order(plan)).toEqual([
      `ferry/tls@${STREAM_ATTEMPT_MS}`,
      `wireguard/udp@${UDP_ATTEMPT_MS}`,
      'ferry/tcp',
    ]);
    expect(plan.remembered).toBe('tls');
  });

  it('a switch while connected: a throttled UDP left out (what it ran into kept), or UDP first again', () => {
    const seen = [{ transport: 'udp' as const, blockage: 'udp-throttled' as const }];
    const leave = transportPlan({
      protocol: 'wireguard',
      node: node(),
      obfuscation: 'auto',
      remembered: 'udp',
      change: { kind: 'leave-udp', seen },
    });
    expect(order(leave)).toEqual([`ferry/tls@${STREAM_ATTEMPT_MS}`, 'ferry/tcp']);
    expect(leave).toMatchObject({ remembered: 'udp', retried: null, seen });
    // A node with UDP only keeps it: a trickle is better than nothing.
    const udpOnly = transportPlan({
      protocol: 'wireguard',
      node: node({ ferry_port: null, ferry_public_key: null }),
      obfuscation: 'auto',
      remembered: null,
      change: { kind: 'leave-udp', seen },
    });
    expect(order(udpOnly)).toEqual(['wireguard/udp']);
    const retry = transportPlan({
      protocol: 'wireguard',
      node: node(),
      obfuscation: 'auto',
      remembered: 'tls',
      change: { kind: 'retry-udp' },
    });
    expect(order(retry)).toEqual([
      `wireguard/udp@${UDP_ATTEMPT_MS}`,
      `ferry/tls@${STREAM_ATTEMPT_MS}`,
      'ferry/tcp',
    ]);
    expect(retry).toMatchObject({ remembered: null, retried: 'udp', seen: [] });
  });

  it('auto: only what the node offers; a remembered transport it lacks is passed over', () => {
    const noTls = node({ tls_port: null, tls_server_name: null });
    const plan = transportPlan({
      protocol: 'ferry',
      node: noTls,
      obfuscation: 'auto',
      remembered: 'tls',
    });
    expect(order(plan)).toEqual(['ferry/tcp+udp']);
    expect(plan.remembered).toBeNull();
    const wgOnly = node({ ferry_port: null, ferry_public_key: null });
    expect(
      order(
        transportPlan({
          protocol: 'wireguard',
          node: wgOnly,
          obfuscation: 'auto',
          remembered: null,
        }),
      ),
    ).toEqual(['wireguard/udp']);
    // An older control plane names no TLS port at all.
    const older = node();
    delete older.tls_port;
    delete older.tls_server_name;
    expect([...nodeTransports(older)]).toEqual(['udp', 'tcp']);
  });

  it('a setting names one transport: off UDP, on and tcp Ferry over TCP, tls Ferry inside TLS', () => {
    const plan = (obfuscation: 'off' | 'on' | 'tcp' | 'tls') =>
      order(transportPlan({ protocol: 'wireguard', node: node(), obfuscation, remembered: 'tls' }));
    expect(plan('off')).toEqual(['wireguard/udp']);
    expect(plan('on')).toEqual(['ferry/tcp']);
    expect(plan('tcp')).toEqual(['ferry/tcp']);
    expect(plan('tls')).toEqual(['ferry/tls']);
    expect(
      transportPlan({ protocol: 'ferry', node: node(), obfuscation: 'tls', remembered: null }).by,
    ).toBe('setting');
  });

  it('refuses a setting the node cannot serve, saying what to do (WireGuard-only nodes keep UDP for on)', () => {
    const noTls = node({ tls_port: null, tls_server_name: null });
    expect(() =>
      transportPlan({ protocol: 'ferry', node: noTls, obfuscation: 'tls', remembered: null }),
    ).toThrow(
      expect.objectContaining({
        code: 'not-supported',
        message: expect.stringMatching(/hk-1 offers no TLS.*obfuscation to auto/),
      }),
    );
    const wgOnly = node({ ferry_port: null, ferry_public_key: null });
    expect(
      order(
        transportPlan({ protocol: 'wireguard', node: wgOnly, obfuscation: 'on', remembered: null }),
      ),
    ).toEqual(['wireguard/udp']);
  });
});

describe('connectProtocol', () => {
  it('asks for Ferry at once only where the tunnel starts with Ferry anyway', () => {
    expect(connectProtocol('wireguard', 'auto', null)).toBe('wireguard');
    expect(connectProtocol('wireguard', 'auto', 'udp')).toBe('wireguard');
    expect(connectProtocol('wireguard', 'auto', 'tls')).toBe('ferry');
    expect(connectProtocol('wireguard', 'auto', 'tcp')).toBe('ferry');
    expect(connectProtocol('wireguard', 'on', null)).toBe('ferry');
    expect(connectProtocol('wireguard', 'tls', null)).toBe('ferry');
    expect(connectProtocol('wireguard', 'off', 'tls')).toBe('wireguard');
    expect(connectProtocol('ferry', 'off', null)).toBe('ferry');
    // Away from a throttled UDP: Ferry; UDP again: the user's protocol.
    expect(connectProtocol('wireguard', 'auto', 'udp', { kind: 'leave-udp', seen: [] })).toBe(
      'ferry',
    );
    expect(connectProtocol('wireguard', 'auto', 'tls', { kind: 'retry-udp' })).toBe('wireguard');
  });
});

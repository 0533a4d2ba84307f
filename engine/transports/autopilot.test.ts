import { describe, expect, it } from 'vitest';

import { FerryError } from '../../contracts/index.js';
import { blockageOf, isPathFailure, transportReason } from './autopilot.js';
import type { TransportAttempt, TransportPlan } from './plan.js';

const udp: TransportAttempt = { protocol: 'ferry', transport: 'udp', timeoutMs: 2500 };
const tls: TransportAttempt = { protocol: 'ferry', transport: 'tls', timeoutMs: 4000 };
const tcp: TransportAttempt = { protocol: 'ferry', transport: 'tcp' };
const unanswered = new FerryError('node-unreachable', 'no answer');
const nothingCrossed = new FerryError('tunnel-timeout', 'answered, nothing crossed');
const auto = (remembered: TransportPlan['remembered'] = null): TransportPlan => ({
  attempts: [udp, tls, tcp],
  by: 'autopilot',
  obfuscation: 'auto',
  remembered,
  retried: null,
  seen: [],
});

describe('the autopilot’s judgement', () => {
  it('tries the next transport after a path failure only', () => {
    expect(isPathFailure(unanswered)).toBe(true);
    expect(isPathFailure(nothingCrossed)).toBe(true);
    expect(isPathFailure(new FerryError('not-supported', 'x'))).toBe(false);
    expect(isPathFailure(new FerryError('cancelled', 'x'))).toBe(false);
    expect(isPathFailure(new Error('x'))).toBe(false);
  });

  it('classifies what each transport ran into', () => {
    expect(blockageOf({ attempt: udp, error: unanswered })).toBe('udp-unanswered');
    expect(blockageOf({ attempt: udp, error: nothingCrossed })).toBe('udp-throttled');
    expect(blockageOf({ attempt: tcp, error: unanswered })).toBe('tcp-silenced');
    expect(blockageOf({ attempt: tls, error: nothingCrossed })).toBe('tcp-stalled');
    expect(blockageOf({ attempt: tls, error: new Error('boom') })).toBe('failed');
    // What the data plane saw of the last TCP or TLS connection.
    const saw = (outcome: string) =>
      new FerryError('node-unreachable', 'no answer', { extra: { stream_outcome: outcome } });
    expect(blockageOf({ attempt: tls, error: saw('reset') })).toBe('tls-reset');
    expect(blockageOf({ attempt: tcp, error: saw('reset') })).toBe('tcp-reset');
    expect(blockageOf({ attempt: tcp, error: saw('refused') })).toBe('tcp-reset');
    expect(blockageOf({ attempt: tls, error: saw('connect-timeout') })).toBe('tcp-unanswered');
    expect(blockageOf({ attempt: tls, error: saw('silent') })).toBe('tcp-silenced');
    expect(blockageOf({ attempt: tls, error: saw('closed') })).toBe('tcp-silenced');
    expect(blockageOf({ attempt: tls, error: saw('answered') })).toBe('failed');
  });

  it('says why, in codes and in words', () => {
    expect(transportReason(auto(), 'udp', [])).toEqual({
      code: 'first-choice',
      blocked: [],
      message: 'using UDP, the first the autopilot tried',
    });
    expect(transportReason(auto('tls'), 'tls', [])).toMatchObject({
      code: 'remembered',
      message: 'TLS worked on this network before: using it',
    });
    const fallback = transportReason(auto(), 'tls', [{ attempt: udp, error: unanswered }]);
    expect(fallback).toEqual({
      code: 'fallback',
      blocked: [{ transport: 'udp', blockage: 'udp-unanswered' }],
      message: 'UDP looks blocked on this network: using TLS',
    });
    expect(
      transportReason(auto(), 'tcp', [
        { attempt: udp, error: unanswered },
        { attempt: tls, error: unanswered },
      ]).message,
    ).toBe(
      'UDP looks blocked on this network; TCP to the server went silent after its first packet: using TCP',
    );
    expect(transportReason({ ...auto(), by: 'setting', attempts: [tls] }, 'tls', []).code).toBe(
      'chosen',
    );
    expect(transportReason({ ...auto(), attempts: [udp] }, 'udp', []).code).toBe('only-offered');
    // UDP tried again while connected, and through: said so.
    expect(transportReason({ ...auto('tls'), retried: 'udp' }, 'udp', [])).toEqual({
      code: 'retried',
      blocked: [],
      message: 'UDP gets through on this network again: using it',
    });
    // Away from a throttled UDP: what the tunnel it replaces ran into comes first.
    const seen = [{ transport: 'udp' as const, blockage: 'udp-throttled' as const }];
    expect(transportReason({ ...auto(), attempts: [tls, tcp], seen }, 'tls', [])).toEqual({
      code: 'fallback',
      blocked: seen,
      message: 'UDP is throttled on this network: using TLS',
    });
  });
});

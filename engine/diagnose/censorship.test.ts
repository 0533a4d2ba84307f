import { describe, expect, it } from 'vitest';

import type { LocalStatus, Transport } from '../../contracts/index.js';
import { checkCensorship, type CensorshipDeps } from './censorship.js';

const connected = (
  transport: Transport,
  reason: NonNullable<LocalStatus['transport_reason']>,
): CensorshipDeps['status'] => ({ status: 'connected', transport, transport_reason: reason });
const idle: CensorshipDeps['status'] = {
  status: 'disconnected',
  transport: null,
  transport_reason: null,
};
const check = (status: CensorshipDeps['status'], remembered: Transport | null = null) =>
  checkCensorship({ status, obfuscation: 'auto', remembered: async () => remembered });

describe('the censorship check', () => {
  it('connected: says what the autopilot saw, in words, with what to do', async () => {
    expect(
      await check(connected('udp', { code: 'first-choice', blocked: [], message: 'using UDP' })),
    ).toMatchObject({ verdict: 'ok', summary: 'no sign of interference: UDP gets through' });
    const fell = await check(
      connected('tls', {
        code: 'fallback',
        blocked: [{ transport: 'udp', blockage: 'udp-unanswered' }],
        message: 'UDP looks blocked on this network: using TLS',
      }),
    );
    expect(fell).toMatchObject({
      verdict: 'warning',
      summary: 'this network interferes: UDP looks blocked on this network: using TLS',
    });
    expect(fell.fix).toMatch(/obfuscation tls/);
    expect(
      await check(
        connected('tcp', {
          code: 'remembered',
          blocked: [],
          message: 'TCP worked on this network before: using it',
        }),
      ),
    ).toMatchObject({ verdict: 'warning', summary: expect.stringMatching(/blocked faster/) });
  });

  it('with the transport set by hand: the autopilot is off, nothing to judge', async () => {
    const r = await checkCensorship({
      status: connected('tls', { code: 'chosen', blocked: [], message: 'x' }),
      obfuscation: 'tls',
      remembered: async () => null,
    });
    expect(r).toMatchObject({
      verdict: 'skipped',
      summary: expect.stringMatching(/obfuscation is tls/),
    });
  });

  it('disconnected: what got through on this network before', async () => {
    expect(await check(idle)).toMatchObject({ verdict: 'skipped' });
    expect(await check(idle, 'udp')).toMatchObject({ verdict: 'ok' });
    expect(await check(idle, 'tls')).toMatchObject({
      verdict: 'warning',
      summary:
        'faster transports were blocked on this network before: the next connect starts with TLS',
    });
    const broken = await checkCensorship({
      status: idle,
      obfuscation: 'auto',
      remembered: async () => {
        throw new Error('damaged memory');
      },
    });
    expect(broken.verdict).toBe('skipped');
  });
});

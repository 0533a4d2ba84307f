import { describe, expect, it } from 'vitest';

import { translator } from '../../contracts/i18n/translator.js';
import { noticeText } from '../../contracts/words/notices.js';
import { transportNotice } from './notices.js';
import type { TransportAttempt, TransportPlan } from './plan.js';

const tls: TransportAttempt = { protocol: 'ferry', transport: 'tls' };
const tcp: TransportAttempt = { protocol: 'ferry', transport: 'tcp' };
const udp: TransportAttempt = { protocol: 'wireguard', transport: 'udp' };
const setting = (
  obfuscation: TransportPlan['obfuscation'],
  a: TransportAttempt,
): TransportPlan => ({
  attempts: [a],
  by: 'setting',
  obfuscation,
  remembered: null,
  retried: null,
  seen: [],
});
const auto: TransportPlan = {
  attempts: [udp, tls, tcp],
  by: 'autopilot',
  obfuscation: 'auto',
  remembered: null,
  retried: null,
  seen: [],
};
const chosen = { code: 'chosen' as const, blocked: [], message: 'x' };

describe('the transport notice', () => {
  it('is none over UDP', () => {
    expect(
      transportNotice('wireguard', udp, auto, { code: 'first-choice', blocked: [], message: 'x' }),
    ).toBeNull();
  });

  it('names the setting that chose the transport, and WireGuard standing aside', () => {
    expect(transportNotice('ferry', tcp, setting('tcp', tcp), chosen)).toEqual({
      code: 'obfuscated',
      message: 'obfuscation is tcp: connected over TCP',
      params: { transport: 'tcp', reason: 'chosen', setting: 'tcp' },
    });
    expect(transportNotice('ferry', tcp, setting('on', tcp), chosen)?.message).toBe(
      'obfuscation is on: connected over TCP',
    );
    expect(transportNotice('wireguard', tls, setting('tls', tls), chosen)?.message).toBe(
      'obfuscation is tls: connected with Ferry inside TLS, which hides the tunnel (WireGuard cannot); your protocol setting stays wireguard',
    );
  });

  it('says what the autopilot fell back from, or remembered', () => {
    const fallback = {
      code: 'fallback' as const,
      blocked: [{ transport: 'udp' as const, blockage: 'udp-unanswered' as const }],
      message: 'UDP looks blocked on this network: using TLS',
    };
    expect(transportNotice('ferry', tls, auto, fallback)).toEqual({
      code: 'udp-blocked',
      message: 'UDP looks blocked on this network: using TLS',
      params: { transport: 'tls', reason: 'fallback', blocked: 'udp:udp-unanswered' },
    });
    const tlsReset = {
      code: 'fallback' as const,
      blocked: [{ transport: 'tls' as const, blockage: 'tls-reset' as const }],
      message: 'the TLS hello was reset: using TCP',
    };
    expect(transportNotice('ferry', tcp, auto, tlsReset)?.code).toBe('transport-fallback');
    const remembered = {
      code: 'remembered' as const,
      blocked: [],
      message: 'TLS worked on this network before: using it',
    };
    expect(transportNotice('wireguard', tls, { ...auto, remembered: 'tls' }, remembered)).toEqual({
      code: 'transport-remembered',
      message:
        'TLS worked on this network before: using it; WireGuard has no TLS transport: Ferry inside TLS stands in for it, and your protocol setting stays wireguard',
      params: { transport: 'tls', reason: 'remembered', stand_in: 'wireguard' },
    });
  });

  it('gives the faces its facts, which they word in every language', () => {
    const notice = transportNotice('wireguard', tls, auto, {
      code: 'fallback',
      blocked: [{ transport: 'udp', blockage: 'udp-unanswered' }],
      message: 'UDP looks blocked on this network: using TLS',
    })!;
    expect(notice.code).toBe('udp-blocked');
    expect(noticeText(notice)).toBe(
      'Tunnel transport: UDP looks blocked on this network: using TLS. WireGuard has no TLS transport: Ferry over TLS stands in for it, and your protocol setting stays WireGuard.',
    );
    const ru = noticeText(notice, translator('ru'));
    expect(ru).toContain('Транспорт туннеля');
    expect(ru).toContain('TLS');
  });
});

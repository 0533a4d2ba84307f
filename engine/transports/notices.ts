// The notice of a connect whose tunnel is not what the user's settings alone would give: a
// transport other than UDP that the autopilot fell back to or remembered, one the obfuscation
// setting names, and WireGuard standing aside for Ferry (the protocol setting stays).
import {
  TRANSPORT_NAMES,
  type Notice,
  type Protocol,
  type TransportReason,
} from '../../contracts/index.js';
import type { TransportAttempt, TransportPlan } from './plan.js';

const CARRIAGE = { tcp: 'Ferry over TCP', tls: 'Ferry inside TLS' } as const;

export function transportNotice(
  asked: Protocol,
  attempt: TransportAttempt,
  plan: TransportPlan,
  reason: TransportReason,
): Notice | null {
  if (attempt.transport === 'udp') return null;
  const carriage = CARRIAGE[attempt.transport];
  const standIn =
    asked === 'wireguard'
      ? `; WireGuard has no ${TRANSPORT_NAMES[attempt.transport]} transport: ${carriage} stands in for it, and your protocol setting stays wireguard`
      : '';
  // The facts, for the faces' own words (contracts/words/notices.ts noticeText).
  const blocked = reason.blocked.map((b) => `${b.transport}:${b.blockage}`).join(',');
  const params: Record<string, string> = {
    transport: attempt.transport,
    reason: reason.code,
    ...(blocked ? { blocked } : {}),
    ...(asked === 'wireguard' ? { stand_in: 'wireguard' } : {}),
  };
  if (plan.by === 'setting') {
    const setting = plan.obfuscation;
    params.setting = setting;
    return asked === 'wireguard'
      ? {
          code: 'obfuscated',
          message: `obfuscation is ${setting}: connected with ${carriage}, which hides the tunnel (WireGuard cannot); your protocol setting stays wireguard`,
          params,
        }
      : {
          code: 'obfuscated',
          message: `obfuscation is ${setting}: connected ${attempt.transport === 'tls' ? 'inside TLS' : 'over TCP'}`,
          params,
        };
  }
  if (reason.code === 'fallback') {
    const udpFailed = reason.blocked.some((b) => b.transport === 'udp');
    return {
      code: udpFailed ? 'udp-blocked' : 'transport-fallback',
      message: `${reason.message}${standIn}`,
      params,
    };
  }
  return { code: 'transport-remembered', message: `${reason.message}${standIn}`, params };
}

// What protects the connection right now, in words (the engine's ProtectionStatus).
import type { ProtectionStatus } from '../../../contracts/local-api.js';

export function killSwitchWords(p: ProtectionStatus): string {
  const lockdown = p.lockdown ? ', also while disconnected' : '';
  switch (p.kill_switch) {
    case 'active':
      return `Active: traffic outside the tunnel is blocked${lockdown}`;
    case 'armed':
      return `On: blocks traffic outside the tunnel from the next connect${lockdown}`;
    default:
      return 'Off: traffic may leave outside the tunnel';
  }
}

export function dnsWords(p: ProtectionStatus): string {
  return p.dns.length > 0
    ? `${p.dns.join(', ')} (through the tunnel)`
    : 'Your system’s own (not through Ferry)';
}

/** `live`: a tunnel is up or being made; without one, nothing is split or tunneled. */
export function splitWords(p: ProtectionStatus, live: boolean): string {
  if (!live && p.split !== 'by-country') return 'Not in effect: no tunnel is up';
  switch (p.split) {
    case 'by-country':
      return `Only cross-border traffic goes through the tunnel${p.home_country ? ` (home: ${p.home_country})` : ''}`;
    case 'unavailable':
      return 'All traffic goes through the tunnel (home country unknown)';
    default:
      return 'All traffic goes through the tunnel';
  }
}

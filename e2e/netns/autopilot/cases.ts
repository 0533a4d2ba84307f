// The censor's cases the transport autopilot is tested and measured under (issue 20): each
// profile alone, udp-block + fet + prober + tls-fingerprint, every profile but port-block on the
// TLS port, and udp-block with the TLS port blocked; what the censor does in each, and the
// transport the autopilot ends up on. e2e/netns/autopilot/*.test.ts (a file per case) and
// scripts/bench/censorship take them from here.
import { BORDER_PROFILES } from '../censor/profiles.js';
import type { AutopilotCase } from './autopilot-kit.js';

/** The relay's TLS port (the web's), and the WireGuard port a case may block. */
export const TLS_PORT = 443;
export const WIREGUARD_PORT = 51820;

export const AUTOPILOT_CASES = {
  'udp-block': { censor: { profiles: ['udp-block'] }, transport: 'tls' },
  // Ferry races UDP beside TLS in one session: TLS answers while UDP is dropped.
  'udp-block (Ferry)': { censor: { profiles: ['udp-block'] }, protocol: 'ferry', transport: 'tls' },
  // UDP gets through, then a download past the grace falls to the trickle: the autopilot notices
  // and moves the tunnel to TLS.
  'udp-throttle': {
    censor: { profiles: ['udp-throttle'] },
    startsOn: 'udp',
    transport: 'tls',
    reason: /^UDP is throttled on this network: using TLS$/,
  },
  fet: { censor: { profiles: ['fet'] }, transport: 'udp' },
  'sni-block': {
    censor: { profiles: ['sni-block'], sniBlock: ['blocked.example'] },
    transport: 'udp',
  },
  prober: { censor: { profiles: ['prober'] }, transport: 'udp' },
  'tls-fingerprint': { censor: { profiles: ['tls-fingerprint'] }, transport: 'udp' },
  'tcp-budget': {
    censor: { profiles: ['tcp-budget'], hosting: ['198.18.0.0/15'], sniAllow: ['cover.example'] },
    transport: 'udp',
  },
  'port-block (UDP 51820)': {
    censor: { profiles: ['port-block'], port: { protocol: 'udp', port: WIREGUARD_PORT } },
    transport: 'tls',
  },
  'udp-block + fet + prober + tls-fingerprint': {
    censor: { profiles: ['udp-block', 'fet', 'prober', 'tls-fingerprint'] },
    transport: 'tls',
  },
  'every profile but port-block on the TLS port (it takes UDP 51820)': {
    censor: {
      profiles: BORDER_PROFILES,
      sniBlock: ['blocked.example'],
      hosting: ['198.18.0.0/15'],
      sniAllow: ['cover.example'],
      port: { protocol: 'udp', port: WIREGUARD_PORT },
    },
    transport: 'tls',
  },
  'udp-block + port-block on the TLS port': {
    censor: { profiles: ['udp-block', 'port-block'], port: { protocol: 'tcp', port: TLS_PORT } },
    transport: 'tcp',
    reason:
      /^UDP looks blocked on this network; TCP to the server’s port gets no answer: using TCP$/,
  },
} as const satisfies Record<string, AutopilotCase>;

export type AutopilotCaseName = keyof typeof AUTOPILOT_CASES;

// The autopilot under every profile at once but port-block on the TLS port (port-block takes
// WireGuard's UDP port): the TLS transport, allowlisted by its cover site's name, gets through.
import { describe } from 'vitest';

import { PROFILES } from '../censor/profiles.js';
import { WIREGUARD_PORT, autopilotCase } from './autopilot-kit.js';

describe('the transport autopilot behind the censor', () => {
  autopilotCase('every profile but port-block on the TLS port', {
    censor: {
      profiles: PROFILES,
      sniBlock: ['blocked.example'],
      hosting: ['198.18.0.0/15'],
      sniAllow: ['cover.example'],
      port: { protocol: 'udp', port: WIREGUARD_PORT },
    },
    transport: 'tls',
  });
});

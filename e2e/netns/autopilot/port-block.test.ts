// The autopilot under port-block: WireGuard's UDP port dropped toward every foreign address: WireGuard gets no answer, and the autopilot moves to the TLS transport.
import { describe } from 'vitest';

import { WIREGUARD_PORT, autopilotCase } from './autopilot-kit.js';

describe('the transport autopilot behind the censor', () => {
  autopilotCase('port-block', {
    censor: { profiles: ['port-block'], port: { protocol: 'udp', port: WIREGUARD_PORT } },
    transport: 'tls',
  });
});

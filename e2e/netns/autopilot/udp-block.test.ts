// The autopilot under udp-block: UDP to foreign addresses dropped, so WireGuard and Ferry over UDP
// never answer; the autopilot moves to the TLS transport.
import { describe } from 'vitest';

import { autopilotCase } from './autopilot-kit.js';
import { AUTOPILOT_CASES } from './cases.js';

describe('the transport autopilot behind the censor', () => {
  autopilotCase('udp-block', {
    ...AUTOPILOT_CASES['udp-block'],
    screenshot: {
      name: 'autopilot-udp-blocked',
      reason: 'UDP looks blocked on this network: using TLS.',
    },
  });
});

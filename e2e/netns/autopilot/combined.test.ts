// The autopilot under udp-block + fet + prober + tls-fingerprint: udp-block, fet, prober and tls-fingerprint together: only a browser-like TLS connection to a site that answers as the cover site gets through.
import { describe } from 'vitest';

import { autopilotCase } from './autopilot-kit.js';

describe('the transport autopilot behind the censor', () => {
  autopilotCase('udp-block + fet + prober + tls-fingerprint', {
    censor: { profiles: ['udp-block', 'fet', 'prober', 'tls-fingerprint'] },
    transport: 'tls',
  });
});

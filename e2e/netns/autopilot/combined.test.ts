// The autopilot under udp-block + fet + prober + tls-fingerprint: udp-block, fet, prober and tls-fingerprint together: only a browser-like TLS connection to a site that answers as the cover site gets through.
import { describe } from 'vitest';

import { autopilotCase } from './autopilot-kit.js';
import { AUTOPILOT_CASES } from './cases.js';

describe('the transport autopilot behind the censor', () => {
  autopilotCase(
    'udp-block + fet + prober + tls-fingerprint',
    AUTOPILOT_CASES['udp-block + fet + prober + tls-fingerprint'],
  );
});

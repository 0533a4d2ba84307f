// The autopilot under every profile at once but port-block on the TLS port (port-block takes
// WireGuard's UDP port): the TLS transport, allowlisted by its cover site's name, gets through.
import { describe } from 'vitest';

import { autopilotCase } from './autopilot-kit.js';
import { AUTOPILOT_CASES } from './cases.js';

describe('the transport autopilot behind the censor', () => {
  autopilotCase(
    'every profile but port-block on the TLS port (it takes UDP 51820)',
    AUTOPILOT_CASES['every profile but port-block on the TLS port (it takes UDP 51820)'],
  );
});

// The autopilot under port-block: WireGuard's UDP port dropped toward every foreign address: WireGuard gets no answer, and the autopilot moves to the TLS transport.
import { describe } from 'vitest';

import { autopilotCase } from './autopilot-kit.js';
import { AUTOPILOT_CASES } from './cases.js';

describe('the transport autopilot behind the censor', () => {
  autopilotCase('port-block (UDP 51820)', AUTOPILOT_CASES['port-block (UDP 51820)']);
});

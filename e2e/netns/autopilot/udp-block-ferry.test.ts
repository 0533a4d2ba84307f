// The autopilot under udp-block with Ferry as the protocol: one session races UDP beside TLS,
// UDP is dropped, TLS answers; the next connect starts with TLS.
import { describe } from 'vitest';

import { autopilotCase } from './autopilot-kit.js';
import { AUTOPILOT_CASES } from './cases.js';

describe('the transport autopilot behind the censor', () => {
  autopilotCase('udp-block (Ferry)', AUTOPILOT_CASES['udp-block (Ferry)']);
});

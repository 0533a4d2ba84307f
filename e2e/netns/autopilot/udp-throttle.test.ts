// The autopilot under udp-throttle: UDP flows to foreign addresses cut to a trickle after 10 s.
// The first connect gets through over UDP; a download past the grace falls to the trickle, and
// the autopilot moves the tunnel to TLS while connected.
import { describe } from 'vitest';

import { autopilotCase } from './autopilot-kit.js';
import { AUTOPILOT_CASES } from './cases.js';

describe('the transport autopilot behind the censor', () => {
  autopilotCase('udp-throttle', AUTOPILOT_CASES['udp-throttle']);
});

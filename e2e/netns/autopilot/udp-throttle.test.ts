// The autopilot under udp-throttle: UDP flows to foreign addresses cut to a trickle after 10 s: the tunnel's light traffic fits it, and the autopilot stays on UDP (it does not yet notice a throttled tunnel while connected).
import { describe } from 'vitest';

import { autopilotCase } from './autopilot-kit.js';
import { AUTOPILOT_CASES } from './cases.js';

describe('the transport autopilot behind the censor', () => {
  autopilotCase('udp-throttle', AUTOPILOT_CASES['udp-throttle']);
});

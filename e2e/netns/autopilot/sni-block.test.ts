// The autopilot under sni-block: TLS hellos, QUIC Initials and DNS answers for a blocked name: not the cover site's, so nothing of the tunnel's is touched.
import { describe } from 'vitest';

import { autopilotCase } from './autopilot-kit.js';
import { AUTOPILOT_CASES } from './cases.js';

describe('the transport autopilot behind the censor', () => {
  autopilotCase('sni-block', AUTOPILOT_CASES['sni-block']);
});

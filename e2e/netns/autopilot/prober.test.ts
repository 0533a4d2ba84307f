// The autopilot under prober: Every foreign TCP endpoint that carries data is probed; the tunnel runs over UDP, and the relay's TLS port answers as the cover site.
import { describe } from 'vitest';

import { autopilotCase } from './autopilot-kit.js';
import { AUTOPILOT_CASES } from './cases.js';

describe('the transport autopilot behind the censor', () => {
  autopilotCase('prober', AUTOPILOT_CASES['prober']);
});

// The autopilot under tls-fingerprint: TLS hellos whose JA4 is not a current browser's are reset: UDP is untouched.
import { describe } from 'vitest';

import { autopilotCase } from './autopilot-kit.js';
import { AUTOPILOT_CASES } from './cases.js';

describe('the transport autopilot behind the censor', () => {
  autopilotCase('tls-fingerprint', AUTOPILOT_CASES['tls-fingerprint']);
});

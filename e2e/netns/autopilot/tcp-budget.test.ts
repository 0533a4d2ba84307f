// The autopilot under tcp-budget: TCP to the relay's hosting prefix stalls after 16 KB unless the hello names an allowlisted site (the cover site's is): UDP is untouched.
import { describe } from 'vitest';

import { autopilotCase } from './autopilot-kit.js';
import { AUTOPILOT_CASES } from './cases.js';

describe('the transport autopilot behind the censor', () => {
  autopilotCase('tcp-budget', AUTOPILOT_CASES['tcp-budget']);
});

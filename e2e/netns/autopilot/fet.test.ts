// The autopilot under fet: Wu et al.'s rule on the first data packet of foreign TCP: UDP is untouched, the autopilot's first choice.
import { describe } from 'vitest';

import { autopilotCase } from './autopilot-kit.js';
import { AUTOPILOT_CASES } from './cases.js';

describe('the transport autopilot behind the censor', () => {
  autopilotCase('fet', AUTOPILOT_CASES['fet']);
});

// The autopilot under fet: Wu et al.'s rule on the first data packet of foreign TCP: UDP is untouched, the autopilot's first choice.
import { describe } from 'vitest';

import { autopilotCase } from './autopilot-kit.js';

describe('the transport autopilot behind the censor', () => {
  autopilotCase('fet', {
    censor: { profiles: ['fet'] },
    transport: 'udp',
  });
});

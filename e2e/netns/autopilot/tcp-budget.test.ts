// The autopilot under tcp-budget: TCP to the relay's hosting prefix stalls after 16 KB unless the hello names an allowlisted site (the cover site's is): UDP is untouched.
import { describe } from 'vitest';

import { autopilotCase } from './autopilot-kit.js';

describe('the transport autopilot behind the censor', () => {
  autopilotCase('tcp-budget', {
    censor: { profiles: ['tcp-budget'], hosting: ['198.18.0.0/15'], sniAllow: ['cover.example'] },
    transport: 'udp',
  });
});

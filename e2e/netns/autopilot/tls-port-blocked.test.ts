// The autopilot where UDP is cut and the TLS port is dropped too (udp-block and port-block on TCP
// 443): it says what it saw of each (UDP unanswered, TLS's SYN unanswered) and ends on Ferry over
// TCP, which neither profile touches.
import { describe } from 'vitest';

import { autopilotCase } from './autopilot-kit.js';
import { AUTOPILOT_CASES } from './cases.js';

describe('the transport autopilot behind the censor', () => {
  autopilotCase(
    'udp-block + port-block on the TLS port',
    AUTOPILOT_CASES['udp-block + port-block on the TLS port'],
  );
});

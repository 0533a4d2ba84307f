// The autopilot where UDP is cut and the TLS port is dropped too (udp-block and port-block on TCP
// 443): it says what it saw of each (UDP unanswered, TLS's SYN unanswered) and ends on Ferry over
// TCP, which neither profile touches.
import { describe } from 'vitest';

import { TLS_PORT, autopilotCase } from './autopilot-kit.js';

describe('the transport autopilot behind the censor', () => {
  autopilotCase('udp-block + port-block on the TLS port', {
    censor: { profiles: ['udp-block', 'port-block'], port: { protocol: 'tcp', port: TLS_PORT } },
    transport: 'tcp',
    reason:
      /^UDP looks blocked on this network; TCP to the server’s port gets no answer: using TCP$/,
  });
});

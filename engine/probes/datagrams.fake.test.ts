// The fake datagrams keep the seam's contract (the real sockets run it in datagrams.test.ts).
import { describe } from 'vitest';

import { datagramsContract } from './datagrams.contract.js';
import { FakeDatagrams } from './datagrams.fake.js';

describe('FakeDatagrams', () => {
  datagramsContract(() => {
    const datagrams = new FakeDatagrams();
    return {
      datagrams,
      async responder() {
        const r = datagrams.responder('contract');
        return {
          address: r.target.host,
          port: r.target.port,
          key: Buffer.from(r.target.key as string, 'base64'),
          received: () => r.received,
        };
      },
      async silentPeer() {
        return { address: '192.0.2.200', port: 9 };
      },
    };
  });
});

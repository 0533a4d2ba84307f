// The EngineApi contract (engine-api.contract.ts) on the real Engine: the control plane in
// process (SQLite), a scripted tunnel manager and fake OS effects at the seams.
import { afterAll, afterEach, beforeAll, beforeEach, describe } from 'vitest';

import { startControlPlane } from '../server/testing/control-plane-harness.js';
import { injectFetch } from '../server/testing/inject-fetch.js';
import { engineApiContract } from './engine-api.contract.js';
import { EngineFixture, TEST_SERVICE } from './testing/engine-fixture.js';

const fx = new EngineFixture({
  prefix: 'ferry-engine-contract-',
  startControlPlane: () => startControlPlane('sqlite'),
  fetchOf: (h) => injectFetch(h.plane.app),
  engine: { deviceName: () => 'contract laptop' },
});
beforeAll(() => fx.startControlPlane());
afterAll(() => fx.closeControlPlane());
beforeEach(() => fx.start());
afterEach(() => fx.stop());

describe('Engine', () => {
  engineApiContract(() => ({
    engine: fx.engine,
    endpoint: `${TEST_SERVICE}/api/v1`,
    service: TEST_SERVICE,
  }));
});

// The EngineApi contract (engine-api.contract.ts) on FakeEngine: the faces' tests run on it, so it
// must do what the real Engine does (engine.contract.test.ts runs the same cases there).
import { beforeEach, describe } from 'vitest';

import { engineApiContract } from './engine-api.contract.js';
import { FakeEngine } from './engine.fake.js';

let engine: FakeEngine;
beforeEach(() => {
  engine = new FakeEngine();
});

describe('FakeEngine', () => {
  engineApiContract(() => ({
    engine,
    endpoint: 'https://control-plane.test/api/v1',
    service: 'https://control-plane.test',
  }));
});

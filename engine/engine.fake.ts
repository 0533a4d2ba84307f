// The fake EngineApi for the tests of the engine host and the faces (engine/testing/fake-engine/:
// the engine, its accounts, catalog, diagnostics and control plane as data), kept to the real
// Engine by the EngineApi contract (engine.fake.test.ts, engine.contract.test.ts).
export { FakeEngine } from './testing/fake-engine/fake-engine.js';
export { FAKE_DEVICE_LIMIT, FAKE_EXIT, FAKE_REGIONS } from './testing/fake-engine/fake-world.js';

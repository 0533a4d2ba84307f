// How the engine store is put together: zustand's slice pattern. Each slice is made from the
// whole store's set and get (a status that signs out also clears the account's part) and
// returns its part of the replica with its actions; createEngineStore puts them side by side.
import type { StateCreator, StoreApi } from 'zustand/vanilla';
import type { EngineTransport } from '../transport/engine-transport.js';
import type { Calls } from './calls.js';
import type { EngineState } from './engine-store.js';

export type SetEngine = StoreApi<EngineState>['setState'];
export type GetEngine = StoreApi<EngineState>['getState'];

/** A slice: its part of the replica and, under `actions`, its own actions. */
export type EngineSlice<T> = StateCreator<EngineState, [], [], T>;

/** What every slice asks the engine through, and how its calls show busy and errors. */
export interface SliceDeps {
  transport: EngineTransport;
  calls: Calls;
}

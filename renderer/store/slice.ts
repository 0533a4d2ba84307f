// How the engine store is put together: zustand's slice pattern. Each slice is made from the
// whole store's set and get (a status that signs out also clears the account's part) and
// returns its part of the replica with its actions; createEngineStore puts them side by side.
import type { StateCreator, StoreApi } from 'zustand/vanilla';
import type { EngineTransport } from '../transport/engine-transport.js';
import type { Calls } from './calls.js';
import type { EngineStoreState } from './engine-store.js';

export type SetEngine = StoreApi<EngineStoreState>['setState'];
export type GetEngine = StoreApi<EngineStoreState>['getState'];

/** A slice: its part of the replica and, under `actions`, its own actions. */
export type EngineSlice<T> = StateCreator<EngineStoreState, [], [], T>;

/** What every slice asks the engine through, and how its calls show busy and errors. */
export interface SliceDeps {
  transport: EngineTransport;
  calls: Calls;
}

// How screens reach the store: one provider at the root, a selector hook and the actions.
import { createContext, useContext, type ReactNode } from 'react';
import { useStore } from 'zustand';
import type { EngineActions, EngineStoreState, EngineStore } from '../store/engine-store.js';

const StoreContext = createContext<EngineStore | null>(null);

export function EngineStoreProvider(props: { store: EngineStore; children: ReactNode }) {
  return <StoreContext.Provider value={props.store}>{props.children}</StoreContext.Provider>;
}

function useEngineStore(): EngineStore {
  const store = useContext(StoreContext);
  if (!store) throw new Error('a screen is rendered outside EngineStoreProvider');
  return store;
}

/** A slice of the replica. Select stable values (fields of the state), not new objects. */
export function useEngine<T>(selector: (s: EngineStoreState) => T): T {
  return useStore(useEngineStore(), selector);
}

export function useActions(): EngineActions {
  return useStore(useEngineStore(), (s) => s.actions);
}

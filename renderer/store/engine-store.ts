// The renderer's replica of the engine: what the engine last said (status from its events,
// configuration, regions, account, diagnostics; the latency history is the status's own) and
// the last error in words. The engine is authoritative: every action asks it and keeps its
// answer, never a guess.
//
// One store made of slices (zustand's slice pattern), each a module with its own part and
// actions: the link to the engine (link-slice), the connection (connection-slice, its status
// through status-feed), the settings (settings-slice), the account (account-slice) and
// diagnostics (diagnostics-slice), the split rules by domain and by program (split-rules-slice)
// and, in the web graphical mode, the browsers signed in (browser-sessions-slice); calls.ts holds
// what their calls share (busy, errors).
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { EngineTransport } from '../transport/engine-transport.js';
import {
  createAccountSlice,
  EMPTY_ACCOUNT,
  type AccountActions,
  type AccountReplica,
} from './account-slice.js';
import {
  createBrowserSessionsSlice,
  EMPTY_BROWSER_SESSIONS,
  type BrowserSessionsActions,
  type BrowserSessionsReplica,
} from './browser-sessions-slice.js';
import {
  createCalls,
  createCallsSlice,
  EMPTY_CALLS,
  type CallsActions,
  type CallsReplica,
} from './calls.js';
import {
  createConnectionSlice,
  EMPTY_CONNECTION,
  type ConnectionActions,
  type ConnectionReplica,
} from './connection-slice.js';
import {
  createDiagnosticsSlice,
  EMPTY_DIAGNOSTICS,
  type DiagnosticsActions,
  type DiagnosticsReplica,
} from './diagnostics-slice.js';
import { createLinkSlice, EMPTY_LINK, type LinkActions, type LinkReplica } from './link-slice.js';
import {
  createConfigQueue,
  createSettingsSlice,
  EMPTY_SETTINGS,
  type SettingsActions,
  type SettingsReplica,
} from './settings-slice.js';
import {
  createSplitRulesSlice,
  EMPTY_SPLIT_RULES,
  type SplitRulesActions,
  type SplitRulesReplica,
} from './split-rules-slice.js';
import { createStatusFeed } from './status-feed.js';

export type { Account, AddDeviceInput } from './account-slice.js';
export type { BusyKey } from './calls.js';
export type { ConnectFacts, Regions } from './connection-slice.js';
export type { Link } from './link-slice.js';
export type { ConfigFeedback } from './settings-slice.js';
export type { SplitRuleKind } from './split-rules-slice.js';

/** Every slice's part of the replica (each documented in its slice). */
export interface EngineReplica
  extends
    LinkReplica,
    ConnectionReplica,
    SettingsReplica,
    AccountReplica,
    DiagnosticsReplica,
    SplitRulesReplica,
    BrowserSessionsReplica,
    CallsReplica {}

/** Every slice's actions (each documented in its slice). */
export interface EngineActions
  extends
    LinkActions,
    ConnectionActions,
    SettingsActions,
    AccountActions,
    DiagnosticsActions,
    SplitRulesActions,
    BrowserSessionsActions,
    CallsActions {}

/** The store's whole state, the replica and the actions (the engine's own state is EngineState). */
export type EngineStoreState = EngineReplica & { actions: EngineActions };
export type EngineStore = StoreApi<EngineStoreState>;

export interface EngineStoreOptions {
  /** What the replica holds before the engine is first heard (tests render screens from it). */
  initial?: Partial<EngineReplica>;
}

export const EMPTY_REPLICA: EngineReplica = Object.freeze({
  ...EMPTY_LINK,
  ...EMPTY_CONNECTION,
  ...EMPTY_SETTINGS,
  ...EMPTY_ACCOUNT,
  ...EMPTY_DIAGNOSTICS,
  ...EMPTY_SPLIT_RULES,
  ...EMPTY_BROWSER_SESSIONS,
  ...EMPTY_CALLS,
}) as EngineReplica;

export function createEngineStore(
  transport: EngineTransport,
  options: EngineStoreOptions = {},
): EngineStore {
  /** Config changes go to the engine one after the other; a connect waits for them. */
  const configQueue = createConfigQueue();

  return createStore<EngineStoreState>()((...store) => {
    const [set, get] = store;
    const calls = createCalls(set, get);
    const feed = createStatusFeed({ set, get, transport, calls });
    const deps = { transport, calls };

    const link = createLinkSlice({ ...deps, feed })(...store);
    const connection = createConnectionSlice({ ...deps, feed, configQueue })(...store);
    const settings = createSettingsSlice({ ...deps, configQueue })(...store);
    const account = createAccountSlice(deps)(...store);
    const diagnostics = createDiagnosticsSlice(deps)(...store);
    const splitRules = createSplitRulesSlice(deps)(...store);
    const browsers = createBrowserSessionsSlice(deps)(...store);
    const shared = createCallsSlice()(...store);

    return {
      ...link,
      ...connection,
      ...settings,
      ...account,
      ...diagnostics,
      ...splitRules,
      ...browsers,
      ...shared,
      ...options.initial,
      actions: {
        ...link.actions,
        ...connection.actions,
        ...settings.actions,
        ...account.actions,
        ...diagnostics.actions,
        ...splitRules.actions,
        ...browsers.actions,
        ...shared.actions,
      },
    };
  });
}

// The terminal UI's state as a pure reducer: what the engine last said (status with its latency
// history, configuration, regions, notices) and the little the screen adds of its own (the
// selected row, a DNS value being typed, the split rules' panel, the outcome of the last key).
// Nothing here decides what the connection is.
import type {
  ClientConfig,
  LocalClient,
  LocalStatus,
  Notice,
  SplitRule,
  SplitRuleTarget,
} from '../../contracts/index.js';
import type { Translate } from '../../contracts/i18n/translator.js';
import type { RulesStep } from './keymap.js';

/** A failure in words: what went wrong and what to do (netcli's errors.ts makes them). */
export interface TuiFailure {
  message: string;
  hints: readonly string[];
}

export type RegionsAnswer = Awaited<ReturnType<LocalClient['listRegions']>>;

/** One row of the region list: a region, or a region rule (a name connect takes too). */
export interface RegionRow {
  /** What connect's `region` takes: the region's id or the rule's name. */
  id: string;
  name: string;
  kind: 'region' | 'rule';
  /** The region's id and area (a rule's are its strategy and area, in words as drawn). */
  detail: string;
  /** The region's or the rule's area. */
  area: string;
  /** The rule's strategy (null for a region). */
  strategy: string | null;
  /** "<n>ms" as the engine measured it, null: not measured. */
  latency: string | null;
  /** Mean load of the healthy nodes, 0..1 (null for a rule). */
  load: number | null;
  /** Whether the plan allows it (a rule: always; the engine picks within the plan). */
  allowed: boolean;
  /** Healthy nodes (null for a rule). */
  nodes: number | null;
}

/** The link to the engine: the event stream open, being opened, or broken (and why). */
export type EngineLink =
  { state: 'opening' } | { state: 'up' } | { state: 'down'; failure: TuiFailure };

export interface Outcome {
  kind: 'info' | 'error';
  text: string;
  /** Lines that go on from `text` (a link to open, say). */
  more?: readonly string[];
  /** What to do about it (an error's). */
  hints: readonly string[];
}

/** A split rule being added: what it is for as typed (and why not, if refused), then its way. */
export type RuleDraft =
  | { step: 'target'; text: string; problem: string | null }
  | { step: 'via'; target: SplitRuleTarget };

/** The split rules' panel: the engine's rules, the selected one, a rule being added. */
export interface SplitRulesView {
  /** The rules as the engine last listed them; null: being read. */
  rules: readonly SplitRule[] | null;
  /** Why they could not be read. */
  failure: TuiFailure | null;
  /** The selected rule of `rules`. */
  cursor: number;
  draft: RuleDraft | null;
}

/** How many one-off notices (events) stay on screen. */
const NOTICES_KEPT = 3;

export interface TuiState {
  link: EngineLink;
  /** The engine's last status; null until it said one. */
  status: LocalStatus | null;
  config: ClientConfig | null;
  regions: readonly RegionRow[] | null;
  /** Why the regions could not be read (not signed in, the control plane away...). */
  regionsFailure: TuiFailure | null;
  /** The selected row of `regions`. */
  cursor: number;
  /** Whether the cursor was placed on the current region once (then it is the user's). */
  cursorPlaced: boolean;
  /** Notices the engine sent as events (one-off), newest last. */
  notices: readonly Notice[];
  /** What runs now (the last key's operation), e.g. "Connecting to asia-east". */
  pending: { op: number; label: string } | null;
  outcome: Outcome | null;
  /** The DNS value being typed (null: not typing); `problem` when it is not one. */
  dnsEdit: { text: string; problem: string | null } | null;
  /** The split rules' panel (null: closed). */
  splitRules: SplitRulesView | null;
}

export const INITIAL_STATE: TuiState = Object.freeze({
  link: { state: 'opening' },
  status: null,
  config: null,
  regions: null,
  regionsFailure: null,
  cursor: 0,
  cursorPlaced: false,
  notices: [],
  pending: null,
  outcome: null,
  dnsEdit: null,
  splitRules: null,
}) as TuiState;

export type TuiAction =
  | { type: 'link'; link: EngineLink }
  | { type: 'status'; status: LocalStatus }
  | { type: 'notice'; notice: Notice }
  | { type: 'config'; config: ClientConfig }
  | { type: 'regions'; answer: RegionsAnswer }
  | { type: 'regions-failed'; failure: TuiFailure }
  | { type: 'move'; by: number }
  | { type: 'started'; op: number; label: string }
  | { type: 'finished'; op: number; outcome: Outcome | null }
  | { type: 'dns-edit'; text: string | null; problem?: string | null }
  | { type: 'rules-open' }
  | { type: 'rules-close' }
  /** The engine's rules; `select`: the rule to put the cursor on (the one just added). */
  | { type: 'split-rules'; rules: readonly SplitRule[]; select?: SplitRuleTarget | undefined }
  | { type: 'split-rules-failed'; failure: TuiFailure }
  | { type: 'rules-move'; by: number }
  | { type: 'rule-draft'; draft: RuleDraft | null };

function rowsOf(answer: RegionsAnswer): RegionRow[] {
  return [
    ...answer.regions.map((r) => ({
      id: r.id,
      name: r.name,
      kind: 'region' as const,
      detail: `${r.id}, ${r.area}`,
      area: r.area,
      strategy: null,
      latency: r.latency,
      load: r.load,
      allowed: r.allowed,
      nodes: r.nodes_healthy,
    })),
    ...answer.rules.map((r) => ({
      id: r.name,
      name: r.name,
      kind: 'rule' as const,
      detail: '',
      area: r.area,
      strategy: r.strategy,
      latency: null,
      load: null,
      allowed: true,
      nodes: null,
    })),
  ];
}

const clamp = (i: number, rows: number) => Math.max(0, Math.min(i, Math.max(0, rows - 1)));

/** Whether `rule` is the one for `target` (a domain, or a program). */
export function ruleIsFor(rule: SplitRule, target: SplitRuleTarget): boolean {
  return 'domain' in target
    ? 'domain' in rule && rule.domain === target.domain
    : 'app' in rule && rule.app === target.app;
}

/** The panel changed by `change`; the state as it is while the panel is closed. */
function withPanel(
  state: TuiState,
  change: (panel: SplitRulesView) => Partial<SplitRulesView>,
): TuiState {
  const panel = state.splitRules;
  return panel ? { ...state, splitRules: { ...panel, ...change(panel) } } : state;
}

/** The row of the region the tunnel is in (or is going to), else of the configured region. */
function currentRow(state: TuiState, rows: readonly RegionRow[]): number {
  const wanted = [state.status?.region, state.status?.node?.region, state.config?.region];
  for (const id of wanted) {
    const i = id ? rows.findIndex((r) => r.id === id) : -1;
    if (i >= 0) return i;
  }
  return -1;
}

/** Places the cursor on the current region the first time there is one to place it on. */
function placeCursor(state: TuiState): TuiState {
  if (state.cursorPlaced || !state.regions || state.regions.length === 0) return state;
  const i = currentRow(state, state.regions);
  if (i < 0) return state;
  return { ...state, cursor: i, cursorPlaced: true };
}

export function reduce(state: TuiState, action: TuiAction): TuiState {
  switch (action.type) {
    case 'link':
      return { ...state, link: action.link };
    case 'status':
      return placeCursor({ ...state, status: action.status });
    case 'notice':
      return { ...state, notices: [...state.notices, action.notice].slice(-NOTICES_KEPT) };
    case 'config':
      return placeCursor({ ...state, config: action.config });
    case 'regions': {
      const regions = rowsOf(action.answer);
      return placeCursor({
        ...state,
        regions,
        regionsFailure: null,
        cursor: clamp(state.cursor, regions.length),
      });
    }
    case 'regions-failed':
      return { ...state, regionsFailure: action.failure };
    case 'move': {
      const rows = state.regions?.length ?? 0;
      if (rows === 0) return state;
      return { ...state, cursor: clamp(state.cursor + action.by, rows), cursorPlaced: true };
    }
    case 'started':
      return { ...state, pending: { op: action.op, label: action.label }, outcome: null };
    case 'finished':
      // An older operation ending does not hide what the newer one is doing.
      return {
        ...state,
        pending: state.pending?.op === action.op ? null : state.pending,
        outcome: action.outcome ?? state.outcome,
      };
    case 'dns-edit':
      return {
        ...state,
        dnsEdit:
          action.text === null ? null : { text: action.text, problem: action.problem ?? null },
      };
    case 'rules-open':
      return {
        ...state,
        splitRules: { rules: null, failure: null, cursor: 0, draft: null },
      };
    case 'rules-close':
      return { ...state, splitRules: null };
    case 'split-rules':
      return withPanel(state, (panel) => {
        const { rules, select } = action;
        const chosen = select ? rules.findIndex((r) => ruleIsFor(r, select)) : -1;
        return {
          rules,
          failure: null,
          cursor: chosen >= 0 ? chosen : clamp(panel.cursor, rules.length),
        };
      });
    case 'split-rules-failed':
      return withPanel(state, () => ({ failure: action.failure }));
    case 'rules-move':
      return withPanel(state, (panel) => ({
        cursor: clamp(panel.cursor + action.by, panel.rules?.length ?? 0),
      }));
    case 'rule-draft':
      return withPanel(state, () => ({ draft: action.draft }));
  }
}

/** Where the keys go while the split rules are open; null: they are not. */
export function rulesStep(state: TuiState): RulesStep | null {
  const panel = state.splitRules;
  if (!panel) return null;
  return panel.draft?.step ?? 'list';
}

/** "example.com and its subdomains", "/usr/bin/firefox (and what it starts)". */
export function ruleWords(target: SplitRuleTarget, t: Translate): string {
  return 'domain' in target
    ? t('tui.rules.domainWords', { domain: target.domain })
    : t('tui.rules.programWords', { app: target.app });
}

/** The selected split rule, if there is one. */
export function selectedRule(state: TuiState): SplitRule | undefined {
  return state.splitRules?.rules?.[state.splitRules.cursor];
}

/** The selected row, if there is one. */
export function selectedRow(state: TuiState): RegionRow | undefined {
  return state.regions?.[state.cursor];
}

/** The region's name for an id (the list's words), else the id. */
export function regionName(state: TuiState, id: string | null | undefined): string | null {
  if (!id) return null;
  return state.regions?.find((r) => r.id === id)?.name ?? id;
}

/** Whether the tunnel is in (or going to) this row's region. */
export function isCurrent(state: TuiState, row: RegionRow): boolean {
  const s = state.status;
  if (!s || s.status === 'disconnected') return false;
  return s.region === row.id || (row.kind === 'region' && s.node?.region === row.id);
}

/** The notices to show: the status's own (they hold while true), then the one-off events'. */
export function visibleNotices(state: TuiState): Notice[] {
  const own = state.status?.notices ?? [];
  const key = (n: Notice) => `${n.code}\u0000${n.message}`;
  const seen = new Set(own.map(key));
  return [...own, ...state.notices.filter((n) => !seen.has(key(n)))];
}

const BARS = '▁▂▃▄▅▆▇█';

/** The last `width` readings as bars, from the lowest (▁) to the highest (█) of them. */
export function sparkline(samples: readonly number[], width: number): string {
  const shown = samples.slice(-width);
  if (shown.length === 0) return '';
  const low = Math.min(...shown);
  const high = Math.max(...shown);
  const top = BARS.length - 1;
  return shown
    .map(
      (v) =>
        BARS[high === low ? Math.floor(top / 2) : Math.round(((v - low) / (high - low)) * top)],
    )
    .join('');
}

// The terminal UI's controller: follows the engine's event stream through the one follower
// (contracts/event-follower.ts, which opens it again when the engine comes back), reads the
// configuration and regions again when the status says they may have changed
// (contracts/status-changes.ts), and turns the keys' intents into local API calls. The engine
// is authoritative: a toggle sends the engine's own value flipped and shows what the engine
// answers, never a guess of its own.
// The seam is `TuiClient` (the local API's client, or a fake in tests); failures are put in
// words by `describe` (netcli's errors.ts, handed in by the command).
import {
  followEvents,
  sleepUnlessAborted,
  type Backoff,
  type ClientConfig,
  type LocalClient,
  type LocalStatus,
} from '../../contracts/index.js';
import { checkDnsInput } from '../../contracts/dns-input.js';
import {
  SplitAppPath,
  SplitDomain,
  type SplitRule,
  type SplitRuleRequest,
  type SplitRuleTarget,
} from '../../contracts/split-rules.js';
import { configMayHaveChanged, regionsMayHaveChanged } from '../../contracts/status-changes.js';
import type { Language } from '../../contracts/i18n/languages.js';
import type { Translate } from '../../contracts/i18n/translator.js';
import { configEffectWords } from '../../contracts/words/effects.js';
import { engineStateSentenceWords, protocolWords } from '../../contracts/words/states.js';
import { transportNames } from '../../contracts/words/transports.js';
import type { DnsKey, Intent, RulesKey } from './keymap.js';
import { formatNumber, tuiLanguage, wordsOf, type TuiWords } from './language.js';
import {
  INITIAL_STATE,
  reduce,
  ruleWords,
  selectedRow,
  selectedRule,
  type Outcome,
  type TuiAction,
  type TuiFailure,
  type TuiState,
} from './state.js';

/** The local API calls the terminal UI makes. */
export type TuiClient = Pick<
  LocalClient,
  | 'events'
  | 'connect'
  | 'disconnect'
  | 'getConfig'
  | 'setConfigKey'
  | 'listRegions'
  | 'latencyCheck'
  | 'listSplitRules'
  | 'addSplitRule'
  | 'removeSplitRule'
>;

/** What opening the graphical mode did, in netcli gui's words (its link among them). */
export interface GraphicalOpened {
  url?: string | undefined;
  lines: readonly string[];
}

export interface TuiDeps {
  client: TuiClient;
  /** A failure in netcli's words (errors.ts describeFailure, for this socket), in `t`'s language. */
  describe(e: unknown, t: Translate): TuiFailure;
  /** Opens the graphical mode (netcli gui). */
  openGraphical(): Promise<GraphicalOpened>;
  /** The waits before the event stream is opened again (default: every face's). */
  backoff?: Backoff | undefined;
  /** The system's language (LC_ALL, LC_MESSAGES, LANG): the UI's while `language` is auto. */
  system?: Language | undefined;
  /**
   * How often the configuration is read again while the engine is reachable (default 2 s): a
   * setting changed elsewhere that changes no status (the language) shows within it.
   */
  configPollMs?: number | undefined;
}

const CONFIG_POLL_MS = 2_000;

const english = wordsOf('en').t;

const LATENCY_CHECK_COUNT = 3;

/**
 * Why a typed DNS value is refused before it is sent (the faces' one check, contracts'
 * checkDnsInput); null: send it. An address no resolver has (multicast...) goes on to the
 * engine, which refuses it in its own words.
 */
export function dnsProblem(value: string, t: Translate = english): string | null {
  const checked = checkDnsInput(value);
  if (checked.ok || checked.problem === 'not-a-resolver') return null;
  if (checked.problem === 'empty') return t('tui.dns.empty');
  return t('tui.dns.notAddress', { value });
}

/** How much of a rule's domain or path is typed at most (the longest path the contract takes). */
const RULE_TARGET_MAX = 4096;

/** A typed value in a sentence: its start, when it is long. */
const quoted = (text: string) => (text.length > 60 ? `${text.slice(0, 59)}…` : text);

/**
 * What a typed split rule is for: a program's path when it starts with `/`, else a domain, each
 * as the contracts' schemas (SplitAppPath, SplitDomain) read it, the engine's words of it (a
 * domain in lower case, without `*.`); or why it is neither, before anything is sent.
 */
export function ruleTarget(
  typed: string,
  t: Translate = english,
): { target: SplitRuleTarget } | { problem: string } {
  const text = typed.trim();
  if (!text) return { problem: t('tui.rules.typeTarget') };
  const checked = text.startsWith('/') ? SplitAppPath.safeParse(text) : SplitDomain.safeParse(text);
  if (checked.success)
    return { target: text.startsWith('/') ? { app: checked.data } : { domain: checked.data } };
  const issue = checked.error.issues[0];
  // The schemas' own words for what they take (in the language), and their length limits.
  const path = text.startsWith('/');
  const what =
    issue?.code === 'custom'
      ? t(path ? 'tui.rules.pathShape' : 'tui.rules.domainShape')
      : t(path ? 'tui.rules.notPath' : 'tui.rules.notDomain');
  return { problem: t('tui.rules.notA', { text: quoted(text), what }) };
}

/** What a rule is for, without its way. */
const targetOf = (rule: SplitRule): SplitRuleTarget =>
  'domain' in rule ? { domain: rule.domain } : { app: rule.app };

const nameOf = (target: SplitRuleTarget) => ('domain' in target ? target.domain : target.app);

/** "Connected to global (node zrh-1) over WireGuard, ChaCha20-Poly1305", netcli's line in the language. */
export function connectionHeadline(s: LocalStatus, t: Translate): string {
  const states = engineStateSentenceWords(t);
  switch (s.status) {
    case 'connected': {
      let where = s.region ?? s.node?.region ?? t('tui.connection.aNode');
      if (s.node)
        where = s.node.entry
          ? t('tui.connection.nodeEntering', {
              where,
              node: s.node.id,
              entry: s.node.entry.id,
              entryRegion: s.node.entry.region,
            })
          : t('tui.connection.node', { where, node: s.node.id });
      if (s.protocol) {
        const protocol = protocolWords(s.protocol, t);
        where =
          s.transport && s.transport !== 'udp'
            ? t('tui.connection.overTransport', {
                where,
                protocol,
                transport: transportNames(t)[s.transport],
              })
            : t('tui.connection.over', { where, protocol });
      }
      if (s.cipher) where = t('tui.connection.cipher', { where, cipher: s.cipher });
      return t('tui.connection.connected', { where });
    }
    case 'connecting':
    case 'reconnecting':
      return s.region
        ? t('tui.connection.to', { state: states[s.status], region: s.region })
        : states[s.status];
    case 'error':
      return t('tui.connection.error', {
        message: s.error?.message ?? t('tui.connection.failed'),
      });
    default:
      return states[s.status];
  }
}

export class TuiController {
  #state: TuiState = INITIAL_STATE;
  readonly #listeners = new Set<() => void>();
  readonly #stop = new AbortController();
  #following: Promise<void> | null = null;
  #op = 0;
  /** The newest read of each kind: an older answer arriving late is dropped. */
  #reads = { config: 0, regions: 0, splitRules: 0 };
  /** The status of the stream open now (null: none yet): what the next one is compared with. */
  #last: LocalStatus | null = null;
  /** The configuration read again every configPollMs. */
  #poll: NodeJS.Timeout | null = null;

  constructor(private readonly deps: TuiDeps) {}

  readonly getState = (): TuiState => this.#state;

  /** The language the UI speaks in `state`: the `language` setting, else the system's. */
  language(state: TuiState = this.#state): Language {
    return tuiLanguage(state.config, this.deps.system ?? 'en');
  }

  /** The words of the UI's language now. */
  words(state: TuiState = this.#state): TuiWords {
    return wordsOf(this.language(state));
  }

  private get t(): Translate {
    return this.words().t;
  }

  readonly subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  };

  private dispatch(action: TuiAction): void {
    this.#state = reduce(this.#state, action);
    for (const l of this.#listeners) l();
  }

  /** Starts following the engine (idempotent). */
  start(): void {
    if (this.#following) return;
    this.#following = this.follow(this.#stop.signal);
    this.#poll = setInterval(() => {
      if (this.#state.link.state === 'up') void this.reloadConfig();
    }, this.deps.configPollMs ?? CONFIG_POLL_MS);
    this.#poll.unref();
  }

  /** Stops following; calls under way end on their own. */
  async stop(): Promise<void> {
    this.#stop.abort();
    if (this.#poll) clearInterval(this.#poll);
    await this.#following;
    this.#listeners.clear();
  }

  private follow(signal: AbortSignal): Promise<void> {
    const { client, describe, backoff } = this.deps;
    return followEvents(client, {
      signal,
      wait: sleepUnlessAborted,
      backoff,
      onLink: (link) => {
        if (link.state === 'up') {
          // A new stream may come from a restarted engine: its first status reads everything.
          this.#last = null;
          this.dispatch({ type: 'link', link: { state: 'up' } });
        } else if (link.state === 'ended') {
          // The host ended the stream (it stops): the next attempt says whether it is gone.
          this.dispatch({ type: 'link', link: { state: 'opening' } });
        } else {
          this.dispatch({
            type: 'link',
            link: { state: 'down', failure: describe(link.error, this.t) },
          });
        }
      },
      onEvent: (e) => {
        if (e.event === 'notice') {
          this.dispatch({ type: 'notice', notice: e.data });
          return;
        }
        this.dispatch({ type: 'status', status: e.data });
        const prev = this.#last;
        this.#last = e.data;
        if (!prev || regionsMayHaveChanged(prev, e.data)) void this.reloadRegions();
        if (!prev || configMayHaveChanged(prev, e.data)) void this.reloadConfig();
      },
    });
  }

  private async reloadConfig(): Promise<void> {
    const read = ++this.#reads.config;
    try {
      const config = await this.deps.client.getConfig();
      if (read === this.#reads.config) this.dispatch({ type: 'config', config });
    } catch {
      // The link's state says when the engine is away; the next status reads it again.
    }
  }

  private async reloadRegions(): Promise<void> {
    const read = ++this.#reads.regions;
    try {
      const answer = await this.deps.client.listRegions();
      if (read === this.#reads.regions) this.dispatch({ type: 'regions', answer });
    } catch (e) {
      if (read === this.#reads.regions)
        this.dispatch({ type: 'regions-failed', failure: this.deps.describe(e, this.t) });
    }
  }

  /** Reads the split rules into the panel; `select`: the rule to put the cursor on. */
  private async reloadSplitRules(select?: SplitRuleTarget): Promise<void> {
    const read = ++this.#reads.splitRules;
    try {
      const { rules } = await this.deps.client.listSplitRules();
      if (read === this.#reads.splitRules) this.dispatch({ type: 'split-rules', rules, select });
    } catch (e) {
      if (read === this.#reads.splitRules)
        this.dispatch({ type: 'split-rules-failed', failure: this.deps.describe(e, this.t) });
    }
  }

  /** Runs one operation of a key: its label while it runs, then its outcome (or failure). */
  private async run(label: string, work: () => Promise<Outcome | null>): Promise<void> {
    const op = ++this.#op;
    this.dispatch({ type: 'started', op, label });
    let outcome: Outcome | null;
    try {
      outcome = await work();
    } catch (e) {
      const f = this.deps.describe(e, this.t);
      outcome = { kind: 'error', text: f.message, hints: f.hints };
    }
    this.dispatch({ type: 'finished', op, outcome });
  }

  /** An outcome without an operation (whatever runs meanwhile keeps its label). */
  private say(text: string): Promise<void> {
    this.dispatch({ type: 'finished', op: ++this.#op, outcome: { kind: 'info', text, hints: [] } });
    return Promise.resolve();
  }

  /** What a key asked for (quitting is the screen's business). */
  handle(intent: Intent): Promise<void> {
    switch (intent) {
      case 'up':
        this.dispatch({ type: 'move', by: -1 });
        return Promise.resolve();
      case 'down':
        this.dispatch({ type: 'move', by: 1 });
        return Promise.resolve();
      case 'connect':
        if (this.#state.status?.status === 'connected')
          return this.say(this.t('tui.ops.connectedAlready'));
        return this.connect();
      case 'switch': {
        const row = selectedRow(this.#state);
        if (!row) return Promise.resolve();
        const s = this.#state.status;
        if (s?.status === 'connected' && s.region === row.id)
          return this.say(this.t('tui.ops.connectedTo', { where: row.name }));
        return this.connect(row.id, row.name);
      }
      case 'disconnect':
        return this.disconnect();
      case 'kill-switch':
        return this.toggle('kill_switch');
      case 'split':
        return this.toggle('split');
      case 'split-rules':
        this.dispatch({ type: 'rules-open' });
        return this.reloadSplitRules();
      case 'dns':
        this.dispatch({ type: 'dns-edit', text: '' });
        return Promise.resolve();
      case 'refresh':
        return this.measure();
      case 'graphical':
        return this.graphical();
      case 'quit':
        return Promise.resolve();
    }
  }

  /** Connects (to `region`, else as configured); while connected, switches there. */
  connect(region?: string, name = region): Promise<void> {
    const s = this.#state.status?.status;
    const t = this.t;
    const switching = s === 'connected' || s === 'reconnecting';
    const label = switching
      ? name
        ? t('tui.ops.switchingTo', { region: name })
        : t('tui.ops.switching')
      : name
        ? t('tui.ops.connectingTo', { region: name })
        : t('tui.ops.connecting');
    return this.run(label, async () => {
      const answer = await this.deps.client.connect({ body: region ? { region } : {} });
      void this.reloadRegions();
      // The latency is the header's; where the tunnel goes and the exit address, here.
      const t = this.t;
      const ip = (address: string | null) => address ?? t('tui.connection.notMeasured');
      const exit = t('tui.connection.exitIp', {
        before: ip(answer.exit_ip.before),
        after: ip(answer.exit_ip.after),
      });
      return { kind: 'info', text: connectionHeadline(answer, t), more: [exit], hints: [] };
    });
  }

  disconnect(): Promise<void> {
    return this.run(this.t('tui.ops.disconnecting'), async () => {
      const status = await this.deps.client.disconnect();
      return { kind: 'info', text: connectionHeadline(status, this.t), hints: [] };
    });
  }

  /** Sets one key from its text form, as `netcli config set` does; the engine's answer shows. */
  private async setConfig(key: 'kill_switch' | 'split' | 'dns', value: string): Promise<Outcome> {
    const result = await this.deps.client.setConfigKey({ params: { key }, body: { value } });
    this.dispatch({ type: 'config', config: result.config });
    const t = this.t;
    const setting = settingWords(result.config, key, t);
    const effect =
      configEffectWords(t).tui[result.changed.length > 0 ? result.effect : 'unchanged'];
    return { kind: 'info', text: t('tui.ops.setting', { setting, effect }), hints: [] };
  }

  /**
   * Flips the kill switch or split tunneling: the engine's value now (read afresh: it may have
   * changed elsewhere, or not have been read yet) to the other one.
   */
  toggle(key: 'kill_switch' | 'split'): Promise<void> {
    const label =
      key === 'kill_switch'
        ? this.t('tui.ops.applyingKillSwitch')
        : this.t('tui.ops.applyingSplit');
    return this.run(label, async () => {
      const config = await this.deps.client.getConfig();
      this.dispatch({ type: 'config', config });
      if (key === 'kill_switch') return this.setConfig(key, config.kill_switch ? 'off' : 'on');
      return this.setConfig(key, config.split === 'auto' ? 'off' : 'auto');
    });
  }

  /** A key while the DNS value is typed. */
  dnsKey(key: DnsKey): Promise<void> {
    const edit = this.#state.dnsEdit;
    if (!edit) return Promise.resolve();
    switch (key.kind) {
      case 'type':
        this.dispatch({ type: 'dns-edit', text: (edit.text + key.text).slice(0, 64) });
        return Promise.resolve();
      case 'erase':
        this.dispatch({ type: 'dns-edit', text: edit.text.slice(0, -1) });
        return Promise.resolve();
      case 'cancel':
        this.dispatch({ type: 'dns-edit', text: null });
        return Promise.resolve();
      case 'submit': {
        const value = edit.text.trim().toLowerCase();
        const problem = dnsProblem(value, this.t);
        if (problem) {
          this.dispatch({ type: 'dns-edit', text: edit.text, problem });
          return Promise.resolve();
        }
        this.dispatch({ type: 'dns-edit', text: null });
        return this.run(this.t('tui.ops.applyingDns', { value }), () =>
          this.setConfig('dns', value),
        );
      }
    }
  }

  /**
   * A key while the split rules are open: in the list (add, select, remove, close), or in the
   * prompts of a rule being added (what it is for, then its way).
   */
  rulesKey(key: RulesKey): Promise<void> {
    const panel = this.#state.splitRules;
    if (!panel) return Promise.resolve();
    const draft = panel.draft;
    const typing = draft?.step === 'target' ? draft : null;
    switch (key.kind) {
      case 'move':
        this.dispatch({ type: 'rules-move', by: key.by });
        break;
      case 'close':
        this.dispatch({ type: 'rules-close' });
        break;
      case 'add':
        this.dispatch({ type: 'rule-draft', draft: { step: 'target', text: '', problem: null } });
        break;
      case 'remove':
        return this.removeSplitRule();
      case 'type':
        if (typing) this.typeRule((typing.text + key.text).slice(0, RULE_TARGET_MAX));
        break;
      case 'erase':
        if (typing) this.typeRule(typing.text.slice(0, -1));
        break;
      case 'cancel':
        this.dispatch({ type: 'rule-draft', draft: null });
        break;
      case 'submit': {
        if (!typing) break;
        const checked = ruleTarget(typing.text, this.t);
        this.dispatch({
          type: 'rule-draft',
          draft:
            'problem' in checked
              ? { ...typing, problem: checked.problem }
              : { step: 'via', target: checked.target },
        });
        break;
      }
      case 'via':
        if (draft?.step !== 'via') break;
        this.dispatch({ type: 'rule-draft', draft: null });
        return this.addSplitRule({ ...draft.target, via: key.via } as SplitRuleRequest);
    }
    return Promise.resolve();
  }

  private typeRule(text: string): void {
    this.dispatch({ type: 'rule-draft', draft: { step: 'target', text, problem: null } });
  }

  /** Adds a rule (checked already); the engine's answer says what holds now. */
  addSplitRule(body: SplitRuleRequest): Promise<void> {
    const target = 'domain' in body ? { domain: body.domain } : { app: body.app };
    return this.run(this.t('tui.rules.adding', { target: nameOf(target) }), async () => {
      const rule = await this.deps.client.addSplitRule({ body });
      await this.reloadSplitRules(targetOf(rule));
      const t = this.t;
      const words = { rule: ruleWords(rule, t), way: t(`tui.rules.ways.${rule.via}`) };
      return {
        kind: 'info',
        text:
          'domain' in rule ? t('tui.rules.addedDomain', words) : t('tui.rules.addedProgram', words),
        hints: [],
      };
    });
  }

  /** Removes the selected rule; the list is read again either way (it may have changed elsewhere). */
  removeSplitRule(): Promise<void> {
    const rule = selectedRule(this.#state);
    if (!rule) return this.say(this.t('tui.rules.noneToRemove'));
    const target = targetOf(rule);
    return this.run(this.t('tui.rules.removing', { target: nameOf(target) }), async () => {
      try {
        await this.deps.client.removeSplitRule({ query: target });
      } finally {
        await this.reloadSplitRules();
      }
      return {
        kind: 'info',
        text: this.t('tui.rules.removed', { target: nameOf(target) }),
        hints: [],
      };
    });
  }

  /** Measures every node the plan allows, then shows the regions' latencies again. */
  measure(): Promise<void> {
    return this.run(this.t('tui.ops.measuring'), async () => {
      const r = await this.deps.client.latencyCheck({
        body: { all: true, count: LATENCY_CHECK_COUNT },
      });
      await this.reloadRegions();
      const t = this.t;
      const methods = [...new Set(r.results.map((x) => x.method))].join(', ');
      const seconds = t('tui.units.seconds', {
        value: formatNumber(r.duration_ms / 1000, this.language(), { minimumFractionDigits: 1 }),
      });
      const measured = t('tui.ops.measured', { count: r.results.length, seconds });
      const text = methods
        ? t('tui.ops.samples', { measured, count: LATENCY_CHECK_COUNT, methods })
        : measured;
      return { kind: 'info', text, hints: [] };
    });
  }

  graphical(): Promise<void> {
    return this.run(this.t('tui.ops.opening'), async () => {
      const opened = await this.deps.openGraphical();
      const [text = this.t('tui.ops.opened'), ...more] = opened.lines
        .map((l) => l.trim())
        .filter(Boolean);
      return { kind: 'info', text, more, hints: [] };
    });
  }
}

/** "Kill switch on", "Split auto", "DNS 9.9.9.9": a setting as the engine holds it. */
export function settingWords(
  config: ClientConfig,
  key: 'kill_switch' | 'split' | 'dns',
  t: Translate = english,
): string {
  switch (key) {
    case 'kill_switch':
      return config.kill_switch
        ? t('tui.protection.killSwitchOn')
        : t('tui.protection.killSwitchOff');
    case 'split':
      return config.split === 'auto' ? t('tui.protection.splitAuto') : t('tui.protection.splitOff');
    case 'dns':
      return t('tui.protection.dns', { value: config.dns });
  }
}

// The tray: the connection's state by the icon's look, its state, place and latency in the
// tooltip and the menu, connect and disconnect, show the window, quit; every word in the
// configured language (the `language` setting; auto: the app's locale). It follows the
// engine's events; what it shows comes from the engine (it holds no state of its own but the
// last status, the regions' names and the language).
import {
  engineStateWords,
  noStatusWords,
  placeOfRegion,
  translator,
  type ClientConfig,
  type FaceError,
  type Language,
  type LocalStatus,
  type RegionLike,
  type Translate,
} from '../../contracts/index.js';
import { faceErrorOf } from './face-error.js';
import { mainLanguageOf, setMainLanguage } from './main-words.js';
import type { EnginePort } from './engine-port.js';
import { trayLook, type TrayLook } from './tray-icons.js';

export type TrayItem =
  | { type: 'separator' }
  | { type: 'normal'; id: string; label: string; enabled: boolean; click?: () => void };

/** The Electron Tray and Menu, as the tray uses them (main.ts adapts the real ones). */
export interface TraySeam {
  setToolTip(text: string): void;
  setMenu(items: TrayItem[]): void;
  /** Shows the state by the icon's look (tray-icons.ts draws each). */
  setLook?(look: TrayLook): void;
  destroy(): void;
}

export interface TrayActions {
  showWindow(): void;
  quit(): void;
}

export interface TrayOptions {
  /** The app's locale (Electron's app.getLocale()): the language when the setting is auto. */
  locale?: string;
}

export interface TrayView {
  tooltip: string;
  items: TrayItem[];
  look: TrayLook;
}

/** The tray's words: the language's translator and the regions to name places by. */
export interface TrayWords {
  t: Translate;
  language: Language;
  regions?: readonly RegionLike[] | undefined;
}

const ENGLISH: TrayWords = { t: translator('en'), language: 'en' };

/** The language of the tray: the setting, or the app's locale when it is auto. */
export const trayLanguage = mainLanguageOf;

/** "Latency: 12 ms" as the tray says it: the engine's "12ms" in the language's digits. */
function latencyWords(latency: string, words: TrayWords): string {
  const m = /^(\d+(?:\.\d+)?)ms$/.exec(latency);
  if (!m) return latency;
  const ms = new Intl.NumberFormat(words.language, { maximumFractionDigits: 1 }).format(
    Number(m[1]),
  );
  return words.t('home.units.ms', { ms });
}

/** "Connected · Tokyo, Japan · 12 ms", "Disconnected", "Engine not running". */
export function stateLine(
  status: LocalStatus | undefined,
  problem: FaceError | undefined,
  words: TrayWords = ENGLISH,
): string {
  if (!status)
    return noStatusWords(words.t)[
      problem?.code === 'engine-unavailable' ? 'engine-unavailable' : 'starting'
    ];
  const parts = [engineStateWords(words.t)[status.status]];
  if (status.region && status.status !== 'disconnected')
    parts.push(placeOfRegion(words.regions, status.region, words.language)!.label);
  if (status.latency) parts.push(latencyWords(status.latency, words));
  return parts.join(' · ');
}

/**
 * What the tray shows for the last status (undefined: none yet) and the last failure of a call
 * (the engine being unavailable, a connect refused).
 */
export function trayView(
  status: LocalStatus | undefined,
  problem: FaceError | undefined,
  act: { connect(): void; disconnect(): void } & TrayActions,
  words: TrayWords = ENGLISH,
): TrayView {
  const { t } = words;
  const line = stateLine(status, problem, words);
  const state = status?.status;
  const canConnect = state === 'disconnected' || state === 'error';
  const canDisconnect =
    state === 'connected' ||
    state === 'connecting' ||
    state === 'reconnecting' ||
    state === 'error';
  const why = status?.error?.message ?? problem?.message;
  const tooltip =
    why && state !== 'connected'
      ? t('home.tray.tooltipWhy', { line, why })
      : t('home.tray.tooltip', { line });
  return {
    tooltip: tooltip.length > 127 ? `${tooltip.slice(0, 126)}…` : tooltip,
    look: trayLook(state, !status && problem?.code === 'engine-unavailable'),
    items: [
      { type: 'normal', id: 'state', label: line, enabled: false },
      { type: 'separator' },
      {
        type: 'normal',
        id: 'connect',
        label: t('home.tray.connect'),
        enabled: canConnect,
        click: act.connect,
      },
      {
        type: 'normal',
        id: 'disconnect',
        label: t('home.tray.disconnect'),
        enabled: canDisconnect,
        click: act.disconnect,
      },
      { type: 'separator' },
      {
        type: 'normal',
        id: 'show',
        label: t('home.tray.show'),
        enabled: true,
        click: act.showWindow,
      },
      { type: 'normal', id: 'quit', label: t('home.tray.quit'), enabled: true, click: act.quit },
    ],
  };
}

export interface TrayController {
  /** Asks the engine for its status (and its settings, the regions) again. */
  refresh(): Promise<void>;
  dispose(): void;
}

/**
 * Starts the tray: the status now, then every status event, and the menu's actions. The
 * language and the regions' names are read at the start, at each refresh and whenever the
 * state changes (a language set meanwhile shows from then on).
 */
export function startTray(
  seam: TraySeam,
  port: EnginePort,
  actions: TrayActions,
  options: TrayOptions = {},
): TrayController {
  const locale = options.locale ?? 'en';
  let status: LocalStatus | undefined;
  let problem: FaceError | undefined;
  let disposed = false;
  /** Counts the status events: an answer older than the last event is not shown over it. */
  let events = 0;
  let words: TrayWords = {
    t: translator(trayLanguage(undefined, locale)),
    language: trayLanguage(undefined, locale),
  };
  let look: TrayLook | undefined;

  const render = () => {
    if (disposed) return;
    const view = trayView(status, problem, { ...actions, connect, disconnect }, words);
    seam.setToolTip(view.tooltip);
    seam.setMenu(view.items);
    if (view.look !== look) {
      look = view.look;
      seam.setLook?.(view.look);
    }
  };

  /** The language and the regions' names, from the engine (kept as they were on a failure). */
  const readWords = async () => {
    const [config, regions] = await Promise.all([
      port.call('getConfig', {}).catch(() => undefined) as Promise<ClientConfig | undefined>,
      port.call('listRegions', {}).catch(() => undefined) as Promise<
        { regions: RegionLike[] } | undefined
      >,
    ]);
    const language = config ? trayLanguage(config.language, locale) : words.language;
    // The rest of main's words (the engine's absence) follow the setting too.
    if (config) setMainLanguage(language);
    words = { t: translator(language), language, regions: regions?.regions ?? words.regions };
    render();
  };

  const run = async (id: 'connect' | 'disconnect' | 'status') => {
    const seen = events;
    try {
      const value = (await port.call(id, id === 'connect' ? { body: {} } : {})) as LocalStatus;
      if (events === seen) status = value;
      problem = undefined;
    } catch (e) {
      problem = faceErrorOf(e);
    }
    render();
  };
  function connect() {
    void run('connect');
  }
  function disconnect() {
    void run('disconnect');
  }

  const unsubscribe = port.subscribe((event) => {
    if (event.type !== 'status') return;
    events++;
    const changed = status?.status !== event.status.status;
    status = event.status;
    problem = undefined;
    render();
    if (changed) void readWords();
  });
  render();
  const first = Promise.all([run('status'), readWords()]);

  return {
    refresh: async () => {
      await first;
      await Promise.all([run('status'), readWords()]);
    },
    dispose() {
      disposed = true;
      unsubscribe();
      seam.destroy();
    },
  };
}

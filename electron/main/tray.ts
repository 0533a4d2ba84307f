// The tray: the connection's state and latency in the tooltip and the menu, connect and
// disconnect, show the window, quit. It follows the engine's events; what it shows comes from
// the engine (it holds no state of its own but the last status).
import {
  ENGINE_STATE_WORDS,
  NO_STATUS_WORDS,
  type FaceError,
  type LocalStatus,
} from '../../contracts/index.js';
import { faceErrorOf } from './face-error.js';
import type { EnginePort } from './engine-port.js';

export type TrayItem =
  | { type: 'separator' }
  | { type: 'normal'; id: string; label: string; enabled: boolean; click?: () => void };

/** The Electron Tray and Menu, as the tray uses them (main.ts adapts the real ones). */
export interface TraySeam {
  setToolTip(text: string): void;
  setMenu(items: TrayItem[]): void;
  destroy(): void;
}

export interface TrayActions {
  showWindow(): void;
  quit(): void;
}

export interface TrayView {
  tooltip: string;
  items: TrayItem[];
}

/** "Connected · asia-east · 12ms", "Disconnected", "Engine not running". */
export function stateLine(status: LocalStatus | undefined, problem: FaceError | undefined): string {
  if (!status)
    return NO_STATUS_WORDS[
      problem?.code === 'engine-unavailable' ? 'engine-unavailable' : 'starting'
    ];
  const parts = [ENGINE_STATE_WORDS[status.status]];
  if (status.region && status.status !== 'disconnected') parts.push(status.region);
  if (status.latency) parts.push(status.latency);
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
): TrayView {
  const line = stateLine(status, problem);
  const state = status?.status;
  const canConnect = state === 'disconnected' || state === 'error';
  const canDisconnect =
    state === 'connected' ||
    state === 'connecting' ||
    state === 'reconnecting' ||
    state === 'error';
  const why = status?.error?.message ?? problem?.message;
  const tooltip = `Ferry: ${line}${why && state !== 'connected' ? ` (${why})` : ''}`;
  return {
    tooltip: tooltip.length > 127 ? `${tooltip.slice(0, 126)}…` : tooltip,
    items: [
      { type: 'normal', id: 'state', label: line, enabled: false },
      { type: 'separator' },
      { type: 'normal', id: 'connect', label: 'Connect', enabled: canConnect, click: act.connect },
      {
        type: 'normal',
        id: 'disconnect',
        label: 'Disconnect',
        enabled: canDisconnect,
        click: act.disconnect,
      },
      { type: 'separator' },
      { type: 'normal', id: 'show', label: 'Show Ferry', enabled: true, click: act.showWindow },
      { type: 'normal', id: 'quit', label: 'Quit Ferry', enabled: true, click: act.quit },
    ],
  };
}

export interface TrayController {
  /** Asks the engine for its status again (after the engine came back, say). */
  refresh(): Promise<void>;
  dispose(): void;
}

/** Starts the tray: the status now, then every status event, and the menu's actions. */
export function startTray(seam: TraySeam, port: EnginePort, actions: TrayActions): TrayController {
  let status: LocalStatus | undefined;
  let problem: FaceError | undefined;
  let disposed = false;
  /** Counts the status events: an answer older than the last event is not shown over it. */
  let events = 0;

  const render = () => {
    if (disposed) return;
    const view = trayView(status, problem, { ...actions, connect, disconnect });
    seam.setToolTip(view.tooltip);
    seam.setMenu(view.items);
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
    status = event.status;
    problem = undefined;
    render();
  });
  render();
  const first = run('status');

  return {
    refresh: async () => {
      await first;
      await run('status');
    },
    dispose() {
      disposed = true;
      unsubscribe();
      seam.destroy();
    },
  };
}

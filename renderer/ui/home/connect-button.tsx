// The one-click button: Connect, Disconnect, or Cancel while connecting.
import type { EngineState } from '../../../contracts/local-api.js';
import { useWords } from '../i18n/use-words.js';
import { useActions, useEngine } from '../store-context.js';

export type ButtonWords = 'connect' | 'disconnect' | 'cancel' | 'disconnecting';

export interface ConnectButtonModel {
  words: ButtonWords;
  action: 'connect' | 'disconnect' | null;
}

/**
 * The one big button. While a connect is under way (the engine's state, or our own request
 * not yet answered) it cancels it: a disconnect aborts the attempt in the engine.
 */
export function connectButton(
  state: EngineState | undefined,
  connectPending: boolean,
): ConnectButtonModel {
  if (state === 'connecting' || (connectPending && state !== 'connected'))
    return { words: 'cancel', action: 'disconnect' };
  switch (state) {
    case 'connected':
    case 'reconnecting':
      return { words: 'disconnect', action: 'disconnect' };
    case 'disconnecting':
      return { words: 'disconnecting', action: null };
    default:
      // disconnected, error (try again), unknown
      return { words: 'connect', action: 'connect' };
  }
}

export function ConnectButton() {
  const { t } = useWords();
  const state = useEngine((s) => s.status?.status);
  const connecting = useEngine((s) => s.busy.connect === true);
  const { connect, disconnect } = useActions();
  const model = connectButton(state, connecting);
  const run = () => {
    if (model.action === 'connect') void connect();
    else if (model.action === 'disconnect') void disconnect();
  };
  const label = t(`home.button.${model.words}`);
  return (
    <button
      type="button"
      className={`connect-button connect-button--${model.action ?? 'idle'}`}
      aria-disabled={model.action === null}
      onClick={run}
    >
      {label}
    </button>
  );
}

/** In the error state the kill switch may hold traffic: a way out besides trying again. */
export function ErrorExitButton() {
  const { t } = useWords();
  const state = useEngine((s) => s.status?.status);
  const { disconnect } = useActions();
  if (state !== 'error') return null;
  return (
    <button type="button" className="button button--quiet" onClick={() => void disconnect()}>
      {t('home.button.disconnect')}
    </button>
  );
}

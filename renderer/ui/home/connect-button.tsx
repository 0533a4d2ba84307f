// The one-click button: Connect, Disconnect, or Cancel while connecting.
import { connectButton } from '../words/connection-words.js';
import { useActions, useEngine } from '../store-context.js';

export function ConnectButton() {
  const state = useEngine((s) => s.status?.status);
  const connecting = useEngine((s) => s.busy.connect === true);
  const { connect, disconnect } = useActions();
  const model = connectButton(state, connecting);
  const run = () => {
    if (model.action === 'connect') void connect();
    else if (model.action === 'disconnect') void disconnect();
  };
  return (
    <button
      type="button"
      className={`connect-button connect-button--${model.action ?? 'idle'}`}
      aria-disabled={model.action === null}
      onClick={run}
    >
      {model.label}
    </button>
  );
}

/** In the error state the kill switch may hold traffic: a way out besides trying again. */
export function ErrorExitButton() {
  const state = useEngine((s) => s.status?.status);
  const { disconnect } = useActions();
  if (state !== 'error') return null;
  return (
    <button type="button" className="button button--quiet" onClick={() => void disconnect()}>
      Disconnect
    </button>
  );
}

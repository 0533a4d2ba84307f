// The connection at a glance: the state, where to, the tunnel's facts, the exit address and
// why this server, with the big button.
import { ENGINE_STATE_WORDS } from '../../../contracts/words/states.js';
import { tunnelFacts } from '../words/connection-words.js';
import { regionName } from '../words/region-options.js';
import { sentence } from '../../store/error-words.js';
import { useEngine } from '../store-context.js';
import { ConnectButton, ErrorExitButton } from './connect-button.js';
import { RegionPicker } from './region-picker.js';

export function ConnectionCard() {
  const status = useEngine((s) => s.status);
  const regions = useEngine((s) => s.regions);
  const lastConnect = useEngine((s) => s.lastConnect);
  const shownError = useEngine((s) => s.error);
  if (!status) return null;
  const live = status.status !== 'disconnected';
  const where = live ? regionName(regions, status.region) : null;
  const facts = live ? tunnelFacts(status) : '';
  // The banner already says it when the failure was our own call's.
  const failure =
    status.status === 'error' && status.error && shownError?.code !== status.error.code
      ? sentence(status.error.message)
      : null;
  return (
    <section aria-label="Connection" className={`card connection connection--${status.status}`}>
      <p role="status" className="connection__state">
        {ENGINE_STATE_WORDS[status.status]}
      </p>
      {where ? (
        <p className="connection__where">
          {where}
          {status.node ? (
            <>
              {' · '}server {status.node.id} <span className="muted">({status.node.endpoint})</span>
              {status.node.entry ? (
                <span className="connection__entry">
                  {' · '}entering at {status.node.entry.id} in{' '}
                  {regionName(regions, status.node.entry.region)}
                </span>
              ) : null}
            </>
          ) : null}
        </p>
      ) : null}
      {facts ? <p className="muted">{facts}</p> : null}
      {live && status.transport_reason ? (
        <p className="connection__transport" aria-label="Transport">
          {sentence(status.transport_reason.message)}
        </p>
      ) : null}
      {status.api_access.reason ? (
        <p className="connection__service muted" aria-label="Service">
          {sentence(status.api_access.reason)}
        </p>
      ) : null}
      {failure ? <p className="connection__failure">{failure}</p> : null}
      {status.status === 'error' && status.protection.kill_switch === 'active' ? (
        <p>The kill switch is blocking traffic until you connect again or disconnect.</p>
      ) : null}
      <RegionPicker />
      <div className="connection__actions">
        <ConnectButton />
        <ErrorExitButton />
      </div>
      {lastConnect?.exit.after ? (
        <p>
          Your address on the internet: <strong>{lastConnect.exit.after}</strong>
          {lastConnect.exit.before ? (
            <span className="muted"> (was {lastConnect.exit.before})</span>
          ) : null}
        </p>
      ) : null}
      {lastConnect && lastConnect.routing.reasons.length > 0 ? (
        <details className="why">
          <summary>Why this server?</summary>
          <ul>
            {lastConnect.routing.reasons.map((r) => (
              <li key={r}>{sentence(r)}</li>
            ))}
          </ul>
        </details>
      ) : null}
    </section>
  );
}

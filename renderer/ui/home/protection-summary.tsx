// What protects the connection right now, as the engine reports it.
import { dnsWords, killSwitchWords, splitWords } from '../words/protection-words.js';
import { useEngine } from '../store-context.js';

const LIVE = new Set(['connecting', 'connected', 'reconnecting']);

export function ProtectionSummary() {
  const protection = useEngine((s) => s.status?.protection);
  const live = useEngine((s) => LIVE.has(s.status?.status ?? 'disconnected'));
  if (!protection) return null;
  return (
    <section aria-label="Protection" className="card protection">
      <h2 className="card__title">Protection</h2>
      <dl className="facts">
        <div>
          <dt>Kill switch</dt>
          <dd>{killSwitchWords(protection)}</dd>
        </div>
        <div>
          <dt>DNS servers</dt>
          <dd>{dnsWords(protection)}</dd>
        </div>
        <div>
          <dt>Split tunneling</dt>
          <dd>{splitWords(protection, live)}</dd>
        </div>
      </dl>
    </section>
  );
}

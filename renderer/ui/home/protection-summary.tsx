// What protects the connection right now, as the engine reports it.
import { dnsWords, killSwitchWords, splitWords } from '../words/protection-words.js';
import { useWords } from '../i18n/use-words.js';
import { useEngine } from '../store-context.js';

const LIVE = new Set(['connecting', 'connected', 'reconnecting']);

export function ProtectionSummary() {
  const { t, language } = useWords();
  const protection = useEngine((s) => s.status?.protection);
  const live = useEngine((s) => LIVE.has(s.status?.status ?? 'disconnected'));
  if (!protection) return null;
  return (
    <section aria-label={t('home.protection.label')} className="card protection">
      <h2 className="card__title">{t('home.protection.title')}</h2>
      <dl className="facts">
        <div>
          <dt>{t('home.protection.killSwitch')}</dt>
          <dd>{killSwitchWords(protection, t)}</dd>
        </div>
        <div>
          <dt>{t('home.protection.dns')}</dt>
          <dd>{dnsWords(protection, t)}</dd>
        </div>
        <div>
          <dt>{t('home.protection.split')}</dt>
          <dd>{splitWords(protection, live, t, language)}</dd>
        </div>
      </dl>
    </section>
  );
}

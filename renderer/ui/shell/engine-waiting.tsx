// Before the engine's first answer: waiting for it, or saying it does not answer.
import { useWords } from '../i18n/use-words.js';

export function EngineWaiting(props: { down: boolean }) {
  const { t } = useWords();
  return (
    <main className="waiting" aria-busy={!props.down}>
      <h1>{t('app.brand')}</h1>
      <p role="status">{props.down ? t('app.shell.waitingDown') : t('app.shell.waiting')}</p>
    </main>
  );
}

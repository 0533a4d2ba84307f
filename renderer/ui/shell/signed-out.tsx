// The web graphical mode once this browser's session is over: what happened, and the way back in.
import { useWords } from '../i18n/use-words.js';

export function SignedOut() {
  const { t } = useWords();
  return (
    <main className="waiting">
      <h1>{t('app.brand')}</h1>
      <p role="status">{t('app.shell.signedOut')}</p>
      <p>{t('app.shell.signedOutWhy')}</p>
    </main>
  );
}

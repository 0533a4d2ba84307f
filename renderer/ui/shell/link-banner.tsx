// Says so while the engine's event stream is broken: what is shown may be out of date.
import { useWords } from '../i18n/use-words.js';
import { useEngine } from '../store-context.js';

export function LinkBanner() {
  const { t } = useWords();
  const link = useEngine((s) => s.link);
  const known = useEngine((s) => s.status !== null);
  if (link !== 'down' || !known) return null;
  return (
    <div className="banner banner--warning">
      <p role="alert" className="banner__text">
        {t('app.shell.linkLost')}
      </p>
    </div>
  );
}

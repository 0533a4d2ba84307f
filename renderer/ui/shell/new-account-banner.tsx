// The number of an account just created here: the only way to sign in again, so it is shown
// until the person says they have it.
import { useWords } from '../i18n/use-words.js';
import { groupedAccountNumber } from '../words/amounts.js';
import { useActions, useEngine } from '../store-context.js';
import { CopyButton } from '../account/copy-button.js';

export function NewAccountBanner() {
  const { t } = useWords();
  const number = useEngine((s) => s.newAccountNumber);
  const { dismissNewAccount } = useActions();
  if (!number) return null;
  return (
    <section aria-label={t('app.shell.newAccountLabel')} className="banner banner--info">
      <p className="banner__text">
        {t('app.shell.newAccountBefore')}{' '}
        <strong className="account-number" dir="ltr">
          {groupedAccountNumber(number)}
        </strong>
        {t('app.sentenceEnd')} {t('app.shell.newAccountAfter')}
      </p>
      <div className="banner__actions">
        <CopyButton text={number} label={t('app.shell.copyNumber')} />
        <button type="button" className="button button--quiet" onClick={dismissNewAccount}>
          {t('app.shell.writtenDown')}
        </button>
      </div>
    </section>
  );
}

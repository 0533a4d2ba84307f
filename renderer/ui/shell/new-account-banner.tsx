// The number of an account just created here: the only way to sign in again, so it is shown
// until the person says they have it.
import { groupedAccountNumber } from '../words/amounts.js';
import { useActions, useEngine } from '../store-context.js';
import { CopyButton } from '../account/copy-button.js';

export function NewAccountBanner() {
  const number = useEngine((s) => s.newAccountNumber);
  const { dismissNewAccount } = useActions();
  if (!number) return null;
  return (
    <section aria-label="Your new account" className="banner banner--info">
      <p className="banner__text">
        Your account number is{' '}
        <strong className="account-number">{groupedAccountNumber(number)}</strong>. Write it down:
        it is how you sign in on your other devices.
      </p>
      <div className="banner__actions">
        <CopyButton text={number} label="Copy account number" />
        <button type="button" className="button button--quiet" onClick={dismissNewAccount}>
          I have written it down
        </button>
      </div>
    </section>
  );
}

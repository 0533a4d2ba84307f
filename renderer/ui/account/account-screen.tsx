// Account: the number, plan and devices, adding a phone or tablet, and signing out; signed
// out, signing in.
import { useEffect } from 'react';
import { useWords } from '../i18n/use-words.js';
import { useActions, useEngine } from '../store-context.js';
import { AccountDetails } from './account-details.js';
import { AddDevicePanel } from './add-device-panel.js';
import { ConfirmButton } from './confirm-button.js';
import { DeviceList } from './device-list.js';
import { SignInPanel } from './sign-in-panel.js';

/** While the screen is open, the devices' live state (connected, latency) is read this often. */
export const DEVICE_STATES_REFRESH_MS = 10_000;

export function AccountScreen() {
  const { t } = useWords();
  const signedIn = useEngine((s) => s.status?.signed_in === true);
  const busy = useEngine((s) => s.busy.session === true);
  const { loadAccount, logout } = useActions();
  // Opening the screen reads the account again: devices and use change elsewhere, and the
  // devices' states change by themselves (a phone comes up), so they are read again while open.
  useEffect(() => {
    if (!signedIn) return undefined;
    void loadAccount();
    const timer = setInterval(() => void loadAccount(), DEVICE_STATES_REFRESH_MS);
    return () => clearInterval(timer);
  }, [signedIn, loadAccount]);
  if (!signedIn) return <SignInPanel />;
  return (
    <div className="account">
      <section aria-labelledby="account-title" className="card">
        <h2 className="card__title" id="account-title">
          {t('app.account.title')}
        </h2>
        <AccountDetails />
      </section>
      <section aria-labelledby="devices-title" className="card">
        <h2 className="card__title" id="devices-title">
          {t('app.account.devices')}
        </h2>
        <DeviceList />
      </section>
      <section aria-labelledby="add-device-title" className="card">
        <h2 className="card__title" id="add-device-title">
          {t('app.account.phones')}
        </h2>
        <AddDevicePanel />
      </section>
      <section aria-labelledby="sign-out-title" className="card">
        <h2 className="card__title" id="sign-out-title">
          {t('app.account.signOut')}
        </h2>
        <p>{t('app.account.signOutText')}</p>
        <ConfirmButton
          label={t('app.account.signOut')}
          question={t('app.account.signOutQuestion')}
          confirmText={t('app.account.signOutYes')}
          busy={busy}
          onConfirm={() => void logout()}
        />
      </section>
    </div>
  );
}

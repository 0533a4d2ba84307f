// Before Ferry can connect: the service's address, then an account for this device.
import type { LocalStatus } from '../../../contracts/local-api.js';
import { SignInPanel } from '../account/sign-in-panel.js';
import { ServiceSetup } from './service-setup.js';
import { useWords } from '../i18n/use-words.js';

export function FirstRunScreen(props: { status: LocalStatus }) {
  const { t } = useWords();
  const step = !props.status.service_configured ? 1 : 2;
  return (
    <main className="first-run" aria-labelledby="first-run-title">
      <h1 id="first-run-title" className="first-run__title">
        {t('app.firstRun.welcome')}
      </h1>
      <p className="muted">{t('app.firstRun.step', { step, total: 2 })}</p>
      {step === 1 ? <ServiceSetup /> : <SignInPanel />}
    </main>
  );
}

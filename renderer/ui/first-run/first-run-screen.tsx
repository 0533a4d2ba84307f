// Before Ferry can connect: the service's address, then an account for this device.
import type { LocalStatus } from '../../../contracts/local-api.js';
import { SignInPanel } from '../account/sign-in-panel.js';
import { ServiceSetup } from './service-setup.js';

export function FirstRunScreen(props: { status: LocalStatus }) {
  const step = !props.status.service_configured ? 1 : 2;
  return (
    <main className="first-run" aria-labelledby="first-run-title">
      <h1 id="first-run-title" className="first-run__title">
        Welcome to Ferry
      </h1>
      <p className="muted">Step {step} of 2</p>
      {step === 1 ? <ServiceSetup /> : <SignInPanel />}
    </main>
  );
}

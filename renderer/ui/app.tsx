// The root: waiting for the engine, the first run, or the app, as the engine's status says (or,
// in the web graphical mode, that this browser is signed out).
import { FirstRunScreen } from './first-run/first-run-screen.js';
import { EngineWaiting } from './shell/engine-waiting.js';
import { ErrorBanner } from './shell/error-banner.js';
import { LinkBanner } from './shell/link-banner.js';
import { MainShell } from './shell/main-shell.js';
import { SignedOut } from './shell/signed-out.js';
import { useEngine } from './store-context.js';

export function App() {
  const status = useEngine((s) => s.status);
  const link = useEngine((s) => s.link);
  // Whatever was shown is of a session that is over (the web graphical mode).
  if (link === 'signed-out') return <SignedOut />;
  if (!status) return <EngineWaiting down={link === 'down'} />;
  if (!status.service_configured || !status.signed_in)
    return (
      <div className="shell">
        <div className="shell__banners">
          <LinkBanner />
          <ErrorBanner />
        </div>
        <FirstRunScreen status={status} />
      </div>
    );
  return <MainShell />;
}

// The signed-in app: the screens behind a tab list, one panel shown at a time.
import type { JSX } from 'react';
import { AccountScreen } from '../account/account-screen.js';
import { DiagnosticsScreen } from '../diagnostics/diagnostics-screen.js';
import { HomeScreen } from '../home/home-screen.js';
import { SettingsScreen } from '../settings/settings-screen.js';
import { Announcer } from './announcer.js';
import { ErrorBanner } from './error-banner.js';
import { InsecureServiceBanner } from './insecure-service-banner.js';
import { LinkBanner } from './link-banner.js';
import { NewAccountBanner } from './new-account-banner.js';
import { panelId, ScreenTabs, tabId } from './screen-tabs.js';
import { useWords } from '../i18n/use-words.js';
import { screenTitle, useScreen, type Screen } from './use-screen.js';

const PANELS: Readonly<Record<Screen, () => JSX.Element>> = {
  home: HomeScreen,
  settings: SettingsScreen,
  account: AccountScreen,
  diagnostics: DiagnosticsScreen,
};

export function MainShell() {
  const { t } = useWords();
  const [screen, setScreen] = useScreen();
  const Panel = PANELS[screen];
  return (
    <div className="shell">
      <header className="shell__header">
        <p className="brand" aria-hidden="true">
          {t('app.brand')}
        </p>
        <nav aria-label={t('app.brand')}>
          <ScreenTabs current={screen} onSelect={setScreen} />
        </nav>
      </header>
      <div className="shell__banners">
        <LinkBanner />
        <InsecureServiceBanner />
        <ErrorBanner onSignIn={() => setScreen('account')} />
        <NewAccountBanner />
      </div>
      <main
        role="tabpanel"
        id={panelId(screen)}
        aria-labelledby={tabId(screen)}
        className="shell__panel"
      >
        <h1 className="visually-hidden">
          {t('app.shell.pageTitle', { screen: screenTitle(screen, t) })}
        </h1>
        <Panel />
      </main>
      <Announcer />
    </div>
  );
}

// The browsers signed in, on Settings in the web graphical mode only, rendered to HTML from a
// given replica: this one first with Sign out, the others with End; and the app once this
// browser is signed out.
import type { ReactNode } from 'react';
import { renderToStaticMarkup } from 'react-dom/server.node';
import { describe, expect, it } from 'vitest';
import { CONFIG, REGIONS, statusOf } from '../../store/engine-answers.fake.js';
import { createEngineStore, type EngineReplica } from '../../store/engine-store.js';
import { FakeTransport } from '../../transport/transport.fake.js';
import { App } from '../app.js';
import { LanguageProvider } from '../i18n/language-provider.js';
import { EngineStoreProvider } from '../store-context.js';
import { timeOfDay } from '../words/browser-session-words.js';
import { BrowserSessions } from './browser-sessions.js';
import { SettingsScreen } from './settings-screen.js';

function render(screen: ReactNode, replica: Partial<EngineReplica>): string {
  const store = createEngineStore(new FakeTransport(), {
    initial: { link: 'up', config: CONFIG, regions: REGIONS, status: statusOf(), ...replica },
  });
  return renderToStaticMarkup(
    <EngineStoreProvider store={store}>
      <LanguageProvider>{screen}</LanguageProvider>
    </EngineStoreProvider>,
  );
}

const session = (id: string, created: string, current: boolean) => ({
  id,
  created_at: `2026-03-01T${created}:00.000Z`,
  last_seen_at: '2026-03-01T09:30:00.000Z',
  expires_at: '2026-03-01T20:00:00.000Z',
  current,
});

describe('Browsers signed in', () => {
  it('lists them on Settings: this one with Sign out, another with End', () => {
    const html = render(<BrowserSessions time={timeOfDay('en-GB', 'UTC')} />, {
      browserSessionsOffered: true,
      browserSessions: [session('b', '09:15', false), session('a', '08:00', true)],
    });
    expect(html).toContain(
      '<h2 class="card__title" id="settings-browsers">Browsers signed in</h2>',
    );
    expect(html).toContain('unused for 30 minutes, and for 12 hours at most');
    const items = [...html.matchAll(/<li class="device">(.*?)<\/li>/g)].map((m) => m[1]!);
    expect(items).toHaveLength(2);
    expect(items[0]).toContain('<strong>This browser</strong>');
    expect(items[0]).toContain('Signed in 08:00 · last used 09:30 · ends by 20:00');
    expect(items[0]).toMatch(
      /<button [^>]*aria-label="Sign out this browser"[^>]*>Sign out<\/button>/,
    );
    expect(items[1]).toContain('<strong>Browser signed in at 09:15</strong>');
    expect(items[1]).toMatch(
      /<button [^>]*aria-label="End the browser signed in at 09:15"[^>]*>End<\/button>/,
    );
  });

  it('says it is reading them, and is not there at all in the desktop app', () => {
    expect(render(<BrowserSessions />, { browserSessionsOffered: true })).toContain(
      'Loading the browsers…',
    );
    expect(render(<SettingsScreen />, {})).not.toContain('Browsers signed in');
    expect(render(<SettingsScreen />, { browserSessionsOffered: true })).toContain(
      'Browsers signed in',
    );
  });

  it('a browser signed out sees so, and how to open Ferry again, whatever it showed before', () => {
    const html = render(<App />, { link: 'signed-out' });
    expect(html).toContain('<p role="status">This browser is signed out of Ferry.</p>');
    expect(html).toContain('open Ferry’s window from the computer it runs on');
    expect(html).not.toContain('netcli');
    expect(html).not.toContain('Screens');
  });
});

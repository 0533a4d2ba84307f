// Home rendered to HTML in English and Persian: the map's name says where the person is and
// where they exit, the path drawn only when connected, the places with their flags, the chart's
// scale mirrored in Persian, and a notice whose fix is a setting as a button, never a command.
import { renderToStaticMarkup } from 'react-dom/server.node';
import { describe, expect, it } from 'vitest';
import type { ClientConfig } from '../../../contracts/client-config.js';
import { CONFIG, REGIONS, connectedStatus, statusOf } from '../../store/engine-answers.fake.js';
import { createEngineStore, type EngineReplica } from '../../store/engine-store.js';
import { FakeTransport } from '../../transport/transport.fake.js';
import { LanguageProvider } from '../i18n/language-provider.js';
import { EngineStoreProvider } from '../store-context.js';
import { HomeScreen } from './home-screen.js';

function render(replica: Partial<EngineReplica>, config: Partial<ClientConfig> = {}): string {
  const store = createEngineStore(new FakeTransport(), {
    initial: {
      link: 'up',
      config: { ...CONFIG, home_country: 'CN', ...config },
      regions: REGIONS,
      ...replica,
    },
  });
  return renderToStaticMarkup(
    <EngineStoreProvider store={store}>
      <LanguageProvider>
        <HomeScreen />
      </LanguageProvider>
    </EngineStoreProvider>,
  );
}

const mapLabel = (html: string) =>
  /<svg class="world-map[^"]*" role="img" aria-label="([^"]*)"/.exec(html)?.[1];

describe('Home’s map and places', () => {
  it('disconnected: the person’s side only, no path', () => {
    const html = render({ status: statusOf() });
    expect(mapLabel(html)).toBe('Map: you are in China; not connected');
    expect(html).toContain('data-place="home"');
    expect(html).not.toContain('data-place="exit"');
    expect(html).not.toContain('data-path="route"');
  });

  it('connected: the exit marked, the path drawn, the place with its flag', () => {
    // The engine's home country (Germany here) wins over the setting's.
    const html = render({ status: connectedStatus({ latency_history: [40, 44, 42] }) });
    expect(mapLabel(html)).toBe('Map: you are in Germany; exit in Asia East, Japan');
    expect(html).toContain('data-place="exit"');
    expect(html.match(/data-path="route"/g)).toHaveLength(1);
    expect(html).toContain('world-map__country--exit');
    expect(html).toContain('<img class="flag" src="flag-jp.svg" alt=""');
    // The places list: each region with its latency and load.
    expect(html).toMatch(/data-region="asia-east"[^>]*>.*Asia East, Japan.*42 ms.*load 35%/);
    // No node id outside Details.
    const details = html.indexOf('<details class="connection__details"');
    expect(details).toBeGreaterThan(0);
    expect(html.indexOf('tyo-1')).toBeGreaterThan(details);
  });

  it('in Persian: the map’s words, the numbers in Persian digits, the chart mirrored', () => {
    const html = render(
      { status: connectedStatus({ latency_history: [40, 44, 42] }) },
      { language: 'fa' },
    );
    expect(mapLabel(html)).toBe('نقشه: شما در آلمان هستید؛ خروجی در Asia East، ژاپن');
    expect(html).toContain('۴۲ میلی‌ثانیه');
    expect(html).toContain('بار ۳۵٪');
    // The scale's labels start right of the plot: text-anchor start, at the right side.
    const ticks = [
      ...html.matchAll(/<text class="latency-chart__tick" x="([\d.]+)"[^>]*text-anchor="start"/g),
    ];
    expect(ticks.length).toBeGreaterThan(2);
    for (const t of ticks) expect(Number(t[1])).toBeGreaterThan(250);
  });

  it('a notice whose fix is a setting: a button, not a command', () => {
    const html = render({
      status: statusOf({
        notices: [
          {
            code: 'split-unavailable',
            message: 'Your home country is unknown, so all traffic goes through the tunnel.',
          },
        ],
      }),
    });
    expect(html).toMatch(
      /<button[^>]*class="button button--quiet notice__fix"[^>]*>Choose your home country<\/button>/,
    );
    expect(html).not.toMatch(/netcli/);
  });
});

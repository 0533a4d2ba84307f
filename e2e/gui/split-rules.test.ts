// The "Split rules" card on Settings in the web graphical mode, driven by Playwright in Debian's
// Chromium against the engine fake (which keeps the rules in memory) behind the engine host's
// web listener: none at first, said so; a website typed as ` *.Example.CN ` is kept as
// example.cn, a program by its path, each with its way in words; a mistyped domain is refused
// beside its field in words, nothing sent; a rule removed by its own button. Screenshots kept.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppPage } from './app-page.js';
import { SCREENSHOT_DIR, keepScreenshot } from './browser-kit.js';
import { FakeEngineGui } from './fake-engine-gui.js';
import { SplitRulesCard } from './split-rules-card.js';

describe('split rules in the web graphical mode against the engine fake', () => {
  let g: FakeEngineGui;
  let app: AppPage;
  let card: SplitRulesCard;

  const engineRules = async () => (await g.engine.listSplitRules()).rules;

  beforeAll(async () => {
    g = await FakeEngineGui.start();
    app = g.app;
    card = new SplitRulesCard(app);
  }, 90_000);
  afterAll(async () => {
    await g?.stop();
  }, 30_000);

  it('none at first: the card says only the split by country decides', async () => {
    await card.open();
    expect(await card.rules()).toEqual([]);
    expect(await card.emptyText()).toBe('No split rules: only the split by country decides.');
  }, 30_000);

  it('adds a website as the engine keeps it, and a program, each with its way in words', async () => {
    await card.open();
    expect(await card.add({ kind: 'website', text: ' *.Example.CN ', way: 'direct' })).toBeNull();
    await expect
      .poll(() => card.rules())
      .toEqual([
        { target: 'example.cn', detail: 'Website and its subdomains · Direct (around the tunnel)' },
      ]);
    expect(await engineRules()).toEqual([{ domain: 'example.cn', via: 'direct' }]);

    expect(await card.add({ kind: 'program', text: '/usr/bin/firefox', way: 'tunnel' })).toBeNull();
    await expect.poll(() => card.rules().then((r) => r.length)).toBe(2);
    expect(await card.rules()).toEqual([
      { target: 'example.cn', detail: 'Website and its subdomains · Direct (around the tunnel)' },
      {
        target: '/usr/bin/firefox',
        detail: 'Program and what it starts · Through the tunnel only',
      },
    ]);
    expect(await engineRules()).toEqual([
      { domain: 'example.cn', via: 'direct' },
      { app: '/usr/bin/firefox', via: 'tunnel' },
    ]);
    // Each rule's button names it.
    for (const target of ['example.cn', '/usr/bin/firefox'])
      await expect(
        card.card.getByRole('button', { name: `Remove the rule for ${target}` }).count(),
      ).resolves.toBe(1);
  }, 30_000);

  it('refuses a mistyped domain beside its field, in words, sending nothing', async () => {
    await card.open();
    const refusal = await card.add({ kind: 'website', text: 'exa mple..com', way: 'tunnel' });
    expect(refusal).toBe(
      'That is not a domain name. Enter one such as example.com: letters, digits and dashes, with dots between the parts.',
    );
    expect(await engineRules()).toHaveLength(2);
    // A refusal at a field is no banner: nothing else is said as an error.
    expect(await app.errorText()).toBe(refusal);
    await keepScreenshot(app.page, 'split-rules');
    await card.card.screenshot({ path: `${SCREENSHOT_DIR}split-rules-card.png` });
  }, 30_000);

  it('removes a rule by its own button; the other stays', async () => {
    await card.remove('example.cn');
    expect(await card.rules()).toEqual([
      {
        target: '/usr/bin/firefox',
        detail: 'Program and what it starts · Through the tunnel only',
      },
    ]);
    expect(await engineRules()).toEqual([{ app: '/usr/bin/firefox', via: 'tunnel' }]);
    await card.remove('/usr/bin/firefox');
    expect(await card.emptyText()).toBe('No split rules: only the split by country decides.');
    expect(await engineRules()).toEqual([]);
  }, 30_000);

  it('a rule removed meanwhile (by netcli): said in words, the list read again', async () => {
    await card.add({ kind: 'website', text: 'example.org', way: 'tunnel' });
    await expect
      .poll(() => card.rules().then((r) => r.map((x) => x.target)))
      .toEqual(['example.org']);
    await g.engine.removeSplitRule({ domain: 'example.org' });
    await card.card
      .getByRole('button', { name: 'Remove the rule for example.org', exact: true })
      .click();
    await expect
      .poll(() => app.errorText())
      .toBe('That split rule is no longer there. The list shows the rules in force.');
    await expect.poll(() => card.emptyText()).toMatch(/^No split rules/);
  }, 30_000);
});

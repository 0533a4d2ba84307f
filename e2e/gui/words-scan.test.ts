// Words instead of commands (issue 23): every screen of the app, in every state a person meets
// (disconnected, connected with every kind of notice, diagnostics with problems, a failed
// connect), in every language, is read as a person reads it (the page's rendered text: what a
// closed "Details" disclosure holds is not shown, so not read); no word names a netcli command
// and no node id shows. Against the engine fake behind the real engine host, in Debian's
// Chromium; the screens are reached by their tabs' order, so no English is needed to find them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LANGUAGES, type Language } from '../../contracts/i18n/languages.js';
import { FerryError, diagnosticCheck, type Notice } from '../../contracts/index.js';
import type { EngineState } from '../../contracts/local-api.js';
import { FakeEngineGui } from './fake-engine-gui.js';

/** The fake's node ids (engine/testing/fake-engine/fake-world.ts) and the service's shape of one. */
const NODE_ID = /\b(?:zrh-1|hk-1|ams-1|node_[A-Za-z0-9]{4,})\b/;
const COMMAND = /netcli|--[a-z][a-z-]+|config set/i;

/** Notices as the engine and the control plane send them: English messages naming commands and nodes. */
const NOTICES: Notice[] = [
  {
    code: 'split-unavailable',
    message:
      'the home country is unknown, so everything goes through the tunnel; set it with netcli config set home_country <code>',
  },
  {
    code: 'failover',
    message: 'node zrh-1 stopped answering: moved to node hk-1 (asia-east)',
    params: { region: 'asia-east' },
  },
  {
    code: 'cipher-substituted',
    message:
      'WireGuard always encrypts with ChaCha20-Poly1305; AES-256-GCM was asked for, so ChaCha20-Poly1305 is in effect. Choose protocol "ferry" for AES-256-GCM.',
    params: { asked: 'AES-256-GCM', used: 'ChaCha20-Poly1305' },
  },
  {
    code: 'udp-blocked',
    message:
      'UDP looks blocked on this network: using TLS; WireGuard has no TLS transport: Ferry inside TLS stands in for it, and your protocol setting stays wireguard',
    params: {
      transport: 'tls',
      reason: 'fallback',
      blocked: 'udp:udp-unanswered',
      stand_in: 'wireguard',
    },
  },
  {
    code: 'dns-split-unavailable',
    message:
      "the engine's resolver did not start (EADDRINUSE): every name is asked through the tunnel, domestic ones too",
  },
];

describe('the app names no command and no node, on any screen, in any state or language', () => {
  let g: FakeEngineGui;

  /** The page's text as shown, for a screen by its tab's place (0 Home, 1 Settings, ...). */
  const screenText = async (tab: number): Promise<string> => {
    const page = g.app.page;
    const tabs = page.getByRole('tab');
    await tabs.nth(tab).click();
    await page.locator('[role="tabpanel"]').first().waitFor();
    await page.waitForTimeout(150);
    return page.locator('body').innerText();
  };

  const waitForState = async (state: EngineState) => {
    await expect.poll(() => g.engine.status().status, { timeout: 10_000 }).toBe(state);
    await g.app.page.waitForTimeout(300);
  };

  const useLanguage = async (language: Language) => {
    await g.engine.patchConfig({ language });
    await expect
      .poll(() => g.app.page.locator('html').getAttribute('lang'), { timeout: 10_000 })
      .toBe(language);
  };

  /** Every screen's text, checked; `state` names the case in a failure. */
  const scanAll = async (state: string) => {
    const count = await g.app.page.getByRole('tab').count();
    expect(count).toBeGreaterThanOrEqual(4);
    for (let tab = 0; tab < count; tab++) {
      const text = await screenText(tab);
      expect(text, `${state}, screen ${tab}: a command`).not.toMatch(COMMAND);
      expect(text, `${state}, screen ${tab}: a node id`).not.toMatch(NODE_ID);
    }
  };

  beforeAll(async () => {
    g = await FakeEngineGui.start();
  }, 90_000);
  afterAll(async () => {
    await g?.stop();
  }, 30_000);

  for (const language of LANGUAGES) {
    it(`${language}: disconnected, connected with notices, diagnosed, failed`, async () => {
      await useLanguage(language);
      await scanAll(`${language} disconnected`);

      await g.engine.connect({ region: 'asia-east' });
      await waitForState('connected');
      for (const notice of NOTICES) g.engine.notify(notice);
      // Diagnostics with problems whose fixes are commands on a terminal.
      g.engine.diagnoseOverrides.set(
        'mtu',
        diagnosticCheck(
          'mtu',
          'problem',
          'an MTU black hole: packets over 1380 bytes are lost on the way to the node (the tunnel’s MTU is 1420)',
          'set a smaller MTU: netcli config set mtu 1380',
          {
            finding: 'black-hole',
            params: { bytes: 1380, mtu: 1420, suggested: 1380 },
            action: { kind: 'setting', key: 'mtu', value: '1380' },
          },
        ),
      );
      g.engine.diagnoseOverrides.set(
        'split',
        diagnosticCheck(
          'split',
          'warning',
          'split auto, but the home country is unknown: everything goes through the tunnel',
          'netcli config set home_country <code>',
          { finding: 'unknown-home', action: { kind: 'choose-setting', key: 'home_country' } },
        ),
      );
      await screenText(3);
      await g.app.page.getByRole('tabpanel').getByRole('button').first().click();
      await g.app.page.waitForTimeout(800);
      await scanAll(`${language} connected`);

      await g.engine.disconnect();
      await waitForState('disconnected');
      g.engine.failNextConnect = new FerryError('node-unreachable', 'node hk-1 did not answer');
      await g.engine.connect({}).catch(() => undefined);
      await waitForState('error');
      await scanAll(`${language} error`);
      await g.engine.disconnect();
      await waitForState('disconnected');
      g.engine.diagnoseOverrides.clear();
    }, 120_000);
  }
});

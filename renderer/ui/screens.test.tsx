// The screens rendered to HTML from a given replica (no DOM here: react-dom/server): what a
// person and a screen reader get for each state, by role, label and text.
// react-dom/server.node: the same renderer as react-dom/server, by a name the import-boundary
// rule (no `server/` of ours in renderer/) does not mistake for ours.
import type { ReactNode } from 'react';
import { renderToStaticMarkup } from 'react-dom/server.node';
import { describe, expect, it } from 'vitest';
import { FakeTransport } from '../transport/transport.fake.js';
import {
  ACCOUNT,
  ADDED_PHONE,
  CONFIG,
  OTHER_DEVICE,
  REGIONS,
  REPORT,
  THIS_DEVICE,
  connectedStatus,
  listed,
  statusOf,
} from '../store/engine-answers.fake.js';
import { createEngineStore, type EngineReplica } from '../store/engine-store.js';
import { AccountScreen } from './account/account-screen.js';
import { AddDeviceForm } from './account/add-device-form.js';
import { App } from './app.js';
import { DiagnosticsScreen } from './diagnostics/diagnostics-screen.js';
import { HomeScreen } from './home/home-screen.js';
import { SettingsScreen } from './settings/settings-screen.js';
import { InsecureServiceBanner } from './shell/insecure-service-banner.js';
import { LanguageProvider } from './i18n/language-provider.js';
import { EngineStoreProvider } from './store-context.js';

function render(screen: ReactNode, replica: Partial<EngineReplica>): string {
  const store = createEngineStore(new FakeTransport(), {
    initial: { link: 'up', config: CONFIG, regions: REGIONS, ...replica },
  });
  return renderToStaticMarkup(
    <EngineStoreProvider store={store}>
      <LanguageProvider>{screen}</LanguageProvider>
    </EngineStoreProvider>,
  );
}

/** The opening tag of the control a <label> with exactly `text` names. */
function labelled(html: string, text: string): string {
  const escaped = text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const label = new RegExp(`<label for="([^"]+)"[^>]*>${escaped}</label>`).exec(html);
  if (!label) throw new Error(`no label "${text}"`);
  const control = new RegExp(`<(input|select)[^>]*id="${label[1]}"[^>]*>`).exec(html);
  if (!control) throw new Error(`label "${text}" names no control`);
  return control[0];
}

const buttons = (html: string) =>
  [...html.matchAll(/<button[^>]*>([^<]*)<\/button>/g)].map((m) => m[1]);

describe('Home', () => {
  const connected = {
    status: connectedStatus({ latency_history: [40, 44, 42] }),
    lastConnect: {
      exit: { before: '203.0.113.9', after: '198.51.100.7' },
      routing: { strategy: 'lowest-latency', reasons: ['lowest latency in asia-east'] },
    },
  };

  it('connected: the state, where, the latency and its chart, the exit address, Disconnect', () => {
    const html = render(<HomeScreen />, connected);
    expect(html).toMatch(
      /<section aria-label="Connection"[^>]*><p role="status"[^>]*>Connected<\/p>/,
    );
    // The exit by its place; the server's id only in Details.
    expect(html).toContain('<span class="place__name">Asia East, Japan</span>');
    expect(html.indexOf('tyo-1')).toBeGreaterThan(html.indexOf('<details'));
    expect(buttons(html)).toContain('Disconnect');
    expect(buttons(html)).not.toContain('Connect');
    expect(html).toContain('>42 ms<');
    expect(html).toMatch(/role="img" aria-label="Latency history: 3 samples, from 40 to 44 ms"/);
    expect(html.match(/class="latency-chart__point"/g)).toHaveLength(3);
    expect(html).toContain('198.51.100.7');
    expect(html).toContain('Why this server?');
  });

  it('says which transport the tunnel runs over, and why', () => {
    const html = render(<HomeScreen />, {
      ...connected,
      status: connectedStatus({
        protocol: 'ferry',
        transport: 'tls',
        transport_reason: {
          code: 'fallback',
          blocked: [{ transport: 'udp', blockage: 'udp-unanswered' }],
          message: 'UDP looks blocked on this network: using TLS',
        },
      }),
    });
    expect(html).toContain('Ferry · ChaCha20-Poly1305 · TLS');
    expect(html).toContain(
      '<p role="note" class="connection__transport" aria-label="Transport">UDP looks blocked on this network: using TLS.</p>',
    );
    expect(render(<HomeScreen />, { status: statusOf() })).not.toContain('connection__transport');
  });

  it('the region picker: labelled Region, the setting chosen, regions and rules', () => {
    const html = render(<HomeScreen />, {
      ...connected,
      config: { ...CONFIG, region: 'work-asia' },
    });
    expect(labelled(html, 'Region')).toMatch(/^<select/);
    expect(html).toContain('<option value="auto">Automatic (best for you)</option>');
    expect(html).toContain('<option value="asia-east">Asia East, Japan (42 ms, load 35%)</option>');
    expect(html).toMatch(/<option value="eu-west" disabled="">[^<]*not in your plan/);
    expect(html).toMatch(/<option value="work-asia" selected="">/);
  });

  it('beside the region picker, a button measures the latency to every region', () => {
    const idle = render(<HomeScreen />, { status: statusOf() });
    const button =
      /<button[^>]*aria-label="Measure latency to every region"[^>]*>Measure latency<\/button>/;
    expect(idle).toMatch(button);
    expect(idle.match(button)![0]).toContain('aria-disabled="false"');
    expect(idle).not.toContain('Measuring…');
    const busy = render(<HomeScreen />, { status: statusOf(), busy: { latencyCheck: true } });
    expect(busy.match(button)![0]).toMatch(/aria-busy="true" aria-disabled="true"/);
    expect(busy).toContain('Measuring…');
    // While connected the engine measured the server in use only, and said why.
    const noted = render(<HomeScreen />, {
      ...connected,
      latencyNote: 'only the node in use is measured while connected, through the tunnel',
    });
    expect(noted).toContain(
      '<span aria-live="polite" class="hint region__progress">Only the node in use is measured while connected, through the tunnel.</span>',
    );
  });

  it('connecting: Cancel; disconnected: Connect and no latency readout', () => {
    expect(
      buttons(render(<HomeScreen />, { status: statusOf({ status: 'connecting' }) })),
    ).toContain('Cancel');
    const idle = render(<HomeScreen />, { status: statusOf() });
    expect(buttons(idle)).toContain('Connect');
    expect(idle).toContain('Not measured');
    expect(idle).not.toContain('class="latency-chart"');
  });

  it('shows the notices of the connection and those announced since, once each', () => {
    const failover = { code: 'failover', message: 'node tyo-1 stopped answering' };
    const html = render(<HomeScreen />, {
      ...connected,
      status: connectedStatus({ notices: [failover] }),
      notices: [failover, { code: 'data-cap-reached', message: 'the data cap is reached' }],
    });
    expect(html.match(/<li class="notice">/g)).toHaveLength(2);
    expect(html).toContain('Moved to another server');
    expect(html).toContain('The data cap is reached.');
  });

  it('an error the banner does not already say is shown with the state', () => {
    const html = render(<HomeScreen />, {
      status: statusOf({
        status: 'error',
        error: { code: 'node-unreachable', message: 'the node did not answer' },
        protection: { ...statusOf().protection, kill_switch: 'active' },
      }),
    });
    expect(html).toContain('>Error<');
    // In words of its code, not the engine's message (English, naming servers).
    expect(html).toContain(
      'The server did not answer. Try again, or choose another place to exit.',
    );
    expect(html).toContain('The kill switch is blocking traffic');
    expect(buttons(html)).toEqual(expect.arrayContaining(['Connect', 'Disconnect']));
  });
});

describe('Settings', () => {
  it('shows the engine’s values, and the change in flight in their place', () => {
    const html = render(<SettingsScreen />, {
      status: statusOf(),
      configPending: { split: 'off' },
      busy: { config: true },
    });
    expect(labelled(html, 'Kill switch')).toMatch(/type="checkbox"[^>]*checked=""/);
    expect(labelled(html, 'Lockdown mode')).not.toMatch(/checked/);
    expect(labelled(html, 'All traffic through the tunnel')).toMatch(/checked=""/);
    expect(labelled(html, 'Only cross-border traffic')).not.toMatch(/checked/);
    expect(html).toContain('>Saving…<');
  });

  it('obfuscation: the autopilot, TLS, TCP (on is TCP too), UDP only', () => {
    const shown = (obfuscation: typeof CONFIG.obfuscation) =>
      render(<SettingsScreen />, { status: statusOf(), config: { ...CONFIG, obfuscation } });
    const auto = shown('auto');
    for (const label of ['Automatic', 'TLS', 'TCP', 'UDP only'])
      expect(labelled(auto, label)).toMatch(/type="radio"/);
    expect(labelled(auto, 'Automatic')).toMatch(/checked=""/);
    expect(labelled(shown('tls'), 'TLS')).toMatch(/checked=""/);
    expect(labelled(shown('on'), 'TCP')).toMatch(/checked=""/);
    expect(labelled(shown('tcp'), 'TCP')).toMatch(/checked=""/);
    expect(labelled(shown('off'), 'UDP only')).toMatch(/checked=""/);
  });

  it('DNS: a custom server in its labelled field; a refusal beside it, tied to it', () => {
    const html = render(<SettingsScreen />, {
      status: statusOf(),
      config: { ...CONFIG, dns: '9.9.9.9' },
      fieldErrors: [{ field: 'dns', message: 'dns must be auto or an address' }],
    });
    const field = labelled(html, 'DNS server');
    expect(field).toContain('value="9.9.9.9"');
    expect(field).toContain('aria-invalid="true"');
    const describedBy = /aria-describedby="([^"]+)"/.exec(field)![1];
    expect(html).toContain(
      `<p id="${describedBy}" role="alert" class="field-error">Dns must be auto or an address.</p>`,
    );
  });
});

describe('Settings: split rules', () => {
  const rules = [
    { domain: 'example.cn', via: 'direct' as const },
    { app: '/usr/bin/firefox', via: 'tunnel' as const },
  ];
  /** The split rules' card alone. */
  const card = (html: string) => {
    const m = /<section aria-labelledby="settings-split-rules"[^>]*>.*?<\/section>/.exec(html);
    if (!m) throw new Error('no split rules card');
    return m[0];
  };

  it('lists each rule with its way in words and a Remove button naming it', () => {
    const html = card(render(<SettingsScreen />, { status: statusOf(), splitRules: rules }));
    expect(html).toContain('<h2 class="card__title" id="settings-split-rules">Split rules</h2>');
    expect(html).toMatch(/<ul class="devices" aria-label="Split rules">/);
    const items = [...html.matchAll(/<li class="device">(.*?)<\/li>/g)].map((m) =>
      m[1]!
        .replace(/<[^>]+>/g, ' ')
        .replace(/\s+/g, ' ')
        .trim(),
    );
    expect(items).toEqual([
      'example.cn Website and its subdomains · Direct (around the tunnel) Remove',
      '/usr/bin/firefox Program and what it starts · Through the tunnel only Remove',
    ]);
    const removes = [...html.matchAll(/<button[^>]*aria-label="([^"]+)"[^>]*>Remove<\/button>/g)];
    expect(removes.map((m) => m[1])).toEqual([
      'Remove the rule for example.cn',
      'Remove the rule for /usr/bin/firefox',
    ]);
    // Plain words: no command to type, no ids.
    expect(html.replace(/<[^>]+>/g, ' ')).not.toMatch(/netcli|\bid\b/i);
  });

  it('the add form: the kind, a labelled field, the way, Add rule', () => {
    const html = card(render(<SettingsScreen />, { status: statusOf(), splitRules: rules }));
    expect(html).toMatch(/<form[^>]*aria-labelledby="([^"]+)"[^>]*><h3 id="\1"[^>]*>Add a rule</);
    expect(html).toContain('<legend class="setting__label">Rule for</legend>');
    expect(labelled(html, 'A website (domain)')).toMatch(/type="radio"[^>]*checked=""/);
    expect(labelled(html, 'A program')).not.toMatch(/checked/);
    const field = labelled(html, 'Domain');
    expect(field).toMatch(/^<input[^>]*type="text"/);
    expect(field).toContain('placeholder="example.com"');
    expect(html).toContain('<legend class="setting__label">Way</legend>');
    expect(labelled(html, 'Direct (around the tunnel)')).toMatch(/type="radio"[^>]*checked=""/);
    expect(labelled(html, 'Through the tunnel only')).not.toMatch(/checked/);
    expect(html).toMatch(/<button type="submit"[^>]*>Add rule<\/button>/);
    expect(html).not.toContain('role="alert"');
  });

  it('says when there are none, and while they are read', () => {
    const none = card(render(<SettingsScreen />, { status: statusOf(), splitRules: [] }));
    expect(none).toContain('<p>No split rules: only the split by country decides.</p>');
    expect(none).not.toContain('<ul');
    const unread = card(render(<SettingsScreen />, { status: statusOf(), splitRules: null }));
    expect(unread).toContain('Loading the split rules…');
  });

  it('a refusal is said beside the field, tied to it, and only there', () => {
    const html = render(<SettingsScreen />, {
      status: statusOf(),
      splitRules: [],
      fieldErrors: [{ field: 'domain', message: 'that is not a domain name' }],
    });
    const field = labelled(html, 'Domain');
    expect(field).toContain('aria-invalid="true"');
    const describedBy = /aria-describedby="([^"]+)"/.exec(field)![1];
    expect(card(html)).toContain(
      `<p id="${describedBy}" role="alert" class="field-error">That is not a domain name.</p>`,
    );
    expect(html.match(/not a domain name/g)).toHaveLength(1);
  });
});

describe('Account and Diagnostics', () => {
  it('account: the number grouped, the plan, each device with its Revoke', () => {
    const html = render(<AccountScreen />, {
      status: statusOf(),
      account: ACCOUNT,
      devices: [listed(THIS_DEVICE), listed(OTHER_DEVICE)],
    });
    expect(html).toContain('1234 5678 1234 5678');
    expect(html).toContain('Basic');
    expect(html).toContain('aria-label="Revoke Phone"');
    expect(html).toContain('aria-label="Revoke Laptop"');
    expect(html).toContain('This device');
  });

  it('account: each device’s state, latency and region, as the engine lists them', () => {
    const html = render(<AccountScreen />, {
      status: connectedStatus(),
      account: ACCOUNT,
      devices: [
        listed(THIS_DEVICE, { status: 'connected', latency: '23ms', region: 'asia-east' }),
        listed(OTHER_DEVICE, { status: 'connecting', region: 'global' }),
        listed(ADDED_PHONE.device),
      ],
    });
    /** The text of the list item that names `name`, tags stripped. */
    const row = (name: string) => {
      const item = [...html.matchAll(/<li class="device">(.*?)<\/li>/g)]
        .map((m) => m[1]!.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' '))
        .find((t) => t.includes(name));
      if (!item) throw new Error(`no device ${name} in ${html}`);
      return item;
    };
    // A region by its name where the list of regions has it (else its id), the latency as the
    // app writes it everywhere.
    expect(row('Laptop')).toMatch(/This device .*Connected · 23 ms · Asia East/);
    expect(row('Phone')).toMatch(/Connecting… · global/);
    expect(row('Anna’s phone')).toMatch(/Disconnected/);
    expect(row('Anna’s phone')).not.toMatch(/ms/);
  });

  it('account: a button adds a phone or tablet', () => {
    const html = render(<AccountScreen />, {
      status: statusOf(),
      account: ACCOUNT,
      devices: [listed(THIS_DEVICE), listed(OTHER_DEVICE)],
    });
    expect(html).toContain('<h2 class="card__title" id="add-device-title">Phones and tablets</h2>');
    expect(buttons(html)).toContain('Add a phone or tablet');
  });

  it('adding a phone: kind, a labelled name, the region (this device’s), local network', () => {
    const html = render(<AddDeviceForm onCancel={() => undefined} />, {
      status: statusOf(),
      config: { ...CONFIG, region: 'asia-east' },
    });
    expect(html).toMatch(
      /<form[^>]*aria-labelledby="([^"]+)"[^>]*><h3 id="\1"[^>]*>Add a phone or tablet</,
    );
    expect(html).toContain('<legend class="setting__label">Kind of device</legend>');
    expect(labelled(html, 'Phone')).toMatch(/type="radio"[^>]*checked=""/);
    expect(labelled(html, 'Tablet')).not.toMatch(/checked/);
    expect(labelled(html, 'Device name')).toMatch(/^<input[^>]*type="text"/);
    expect(labelled(html, 'Region')).toMatch(/^<select/);
    expect(html).toContain('<option value="auto">Automatic (best for you)</option>');
    expect(html).toMatch(/<option value="asia-east" selected="">Asia East/);
    expect(html).toMatch(/<option value="eu-west" disabled="">/);
    expect(labelled(html, 'Allow local network')).toMatch(/type="checkbox"/);
    expect(labelled(html, 'Allow local network')).not.toMatch(/checked/);
    expect(buttons(html)).toEqual(['Add', 'Cancel']);
    expect(html).not.toContain('role="alert"');
  });

  it('adding a phone refused: the name’s error at its field, the device limit in words', () => {
    const atField = render(<AddDeviceForm onCancel={() => undefined} />, {
      status: statusOf(),
      addDeviceError: {
        code: 'validation-failed',
        words: 'Invalid.',
        action: null,
        errors: [{ field: 'name', message: 'must not be blank' }],
      },
    });
    const name = labelled(atField, 'Device name');
    expect(name).toContain('aria-invalid="true"');
    const describedBy = /aria-describedby="([^"]+)"/.exec(name)![1];
    expect(atField).toContain(
      `<p id="${describedBy}" role="alert" class="field-error">Must not be blank.</p>`,
    );
    expect(atField).not.toContain('Invalid.');

    const full = render(<AddDeviceForm onCancel={() => undefined} />, {
      status: statusOf(),
      addDeviceError: {
        code: 'device-limit',
        words: 'Your plan’s device limit is reached. Revoke a device first.',
        action: null,
        errors: [],
      },
    });
    expect(full).toContain(
      '<p role="alert" class="form-error">Your plan’s device limit is reached. Revoke a device first.</p>',
    );
  });

  it('a phone added: its QR code on the way, the steps, the configuration marked secret, Done', () => {
    const html = render(<AccountScreen />, {
      status: statusOf(),
      account: ACCOUNT,
      devices: [listed(THIS_DEVICE), listed(OTHER_DEVICE), listed(ADDED_PHONE.device)],
      addedDevice: ADDED_PHONE,
    });
    expect(html).toContain('Scan Anna’s phone with the WireGuard app');
    expect(html).toContain('it connects to Asia East.');
    // The image is made in an effect (not on the server): its place says so meanwhile.
    expect(html).toContain('<p role="status" class="qr qr--placeholder">Making the QR code…</p>');
    expect(html).toContain(
      'In the WireGuard app: <strong>+</strong> → <strong>Scan from QR code</strong>.',
    );
    expect(html).toMatch(/<details[^>]*><summary>Show configuration<\/summary>/);
    expect(html).toContain(
      'aria-label="WireGuard configuration for Anna’s phone, private key included"',
    );
    expect(html).toContain(`>${ADDED_PHONE.config}</pre>`);
    expect(buttons(html)).toContain('Done');
    expect(buttons(html)).not.toContain('Add a phone or tablet');
  });

  it('signed out, the account screen asks to sign in', () => {
    const html = render(<AccountScreen />, { status: statusOf({ signed_in: false }) });
    expect(labelled(html, 'Account number')).toMatch(/^<input/);
    expect(buttons(html)).toEqual(expect.arrayContaining(['Sign in', 'Create account']));
  });

  it('diagnostics: a row per check with its verdict in words and its fix', () => {
    const html = render(<DiagnosticsScreen />, { status: statusOf(), diagnostics: REPORT });
    expect(html).toContain('<caption>Diagnostic results</caption>');
    expect(html.match(/<tr role="row"/g)).toHaveLength(REPORT.checks.length + 1);
    expect(html).toMatch(/Node over UDP<\/th><td role="cell"><span[^>]*>Problem<\/span>/);
    // The app's own words for what was found and what to do, with a button to the setting;
    // the engine's (English, naming commands) only in its closed disclosure.
    expect(html).toContain('The server does not answer well over UDP.');
    expect(html).toContain('On Settings, set Obfuscation to Automatic or TLS.');
    expect(buttons(html)).toContain('Open Settings');
    expect(html).toMatch(
      /<details[^>]*><summary>What the engine found<\/summary><p lang="en" dir="ltr">[^<]*Set obfuscation to on\./,
    );
    expect(html).toContain('1 problem, 0 warnings.');
  });
});

describe('App', () => {
  it('waits for the engine, then says when it does not answer', () => {
    expect(render(<App />, { status: null, link: 'unknown' })).toContain(
      'Connecting to Ferry’s engine',
    );
    expect(render(<App />, { status: null, link: 'down' })).toContain('engine isn’t answering');
  });

  it('first run: the service address, then signing in', () => {
    const noService = render(<App />, {
      status: statusOf({ service_configured: false, signed_in: false }),
    });
    expect(labelled(noService, 'Service address')).toMatch(/type="url"/);
    const noAccount = render(<App />, { status: statusOf({ signed_in: false }) });
    expect(labelled(noAccount, 'Account number')).toMatch(/^<input/);
  });

  it('warns while the service is reached over plain HTTP, and not otherwise', () => {
    // The signed-in shell's banner (the shell itself reads the window's address: no DOM here).
    const insecure = render(<InsecureServiceBanner />, {
      status: statusOf({ service_insecure: true }),
    });
    expect(insecure).toContain(
      '<p role="alert" class="banner__text">Ferry reaches its service over plain HTTP.',
    );
    expect(render(<InsecureServiceBanner />, { status: statusOf({}) })).toBe('');
  });

  it('first run: plain http refused by the engine is said at the address field', () => {
    const html = render(<App />, {
      status: statusOf({ service_configured: false, signed_in: false }),
      fieldErrors: [{ field: 'service', message: 'the service URL must be https' }],
    });
    expect(html).toMatch(
      /<p id="[^"]+" role="alert" class="field-error">The service URL must be https/,
    );
    expect(labelled(html, 'Service address')).toContain('aria-invalid="true"');
  });

  it('says so when the link to the engine broke after it answered', () => {
    const html = render(<App />, {
      status: statusOf({ signed_in: false }),
      link: 'down',
      error: { code: 'unreachable', words: 'Words.', action: null, errors: [] },
    });
    expect(html).toContain('<p role="alert" class="banner__text">Lost contact with Ferry’s engine');
    expect(html).toContain('<p role="alert" class="banner__text">Words.</p>');
  });
});

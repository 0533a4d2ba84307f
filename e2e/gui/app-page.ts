// A page object for the desktop app's renderer (renderer/), in Electron's window or in the web
// graphical mode's browser tab: what a person does and reads, found by role and label only.
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';

/** The state words the Home screen shows (renderer/ui/words/connection-words.ts). */
export type ShownState =
  'Disconnected' | 'Connecting…' | 'Connected' | 'Reconnecting…' | 'Disconnecting…' | 'Error';

export interface VerdictRow {
  /** The check's title, e.g. "Node over UDP". */
  check: string;
  /** OK, Warning, Problem or Skipped. */
  verdict: string;
  found: string;
  /** What to do; empty when nothing. */
  fix: string;
}

export interface WaitOptions {
  timeoutMs?: number;
}

export interface AddPhoneOptions extends WaitOptions {
  kind: 'phone' | 'tablet';
  name: string;
  /** "Allow local network": its LAN stays outside the tunnel. Default off. */
  allowLan?: boolean;
  /** A region's id, a rule's name or `auto`; default: this device's region. */
  region?: string;
}

export class AppPage {
  constructor(readonly page: Page) {}

  /** Opens the app and waits until it shows something of the engine (or says it cannot). */
  async goto(url: string): Promise<void> {
    await this.page.goto(url);
    await this.page
      .getByRole('tablist', { name: 'Screens' })
      .or(this.page.getByRole('heading', { name: 'Welcome to Ferry' }))
      .or(this.page.getByText(/Ferry’s engine isn’t answering/))
      .first()
      .waitFor();
  }

  // ---- Home ------------------------------------------------------------------------------------

  private get connection(): Locator {
    return this.page.getByRole('region', { name: 'Connection' });
  }

  /**
   * Clicks Connect. Returns once the page took it (the button turned into Cancel or
   * Disconnect, or an error shows); the engine's outcome is for `waitForState` or `state()`.
   */
  async connect(options: WaitOptions = {}): Promise<void> {
    await this.openHome();
    const button = this.page.getByRole('button', { name: 'Connect', exact: true });
    await button.click();
    await this.waitFor(
      async () => ((await button.count()) === 0 || (await this.errorText()) ? true : undefined),
      options.timeoutMs ?? 10_000,
      'the page to take the connect',
    );
  }

  /** Clicks Disconnect (or Cancel while connecting) and waits until the engine disconnected. */
  async disconnect(options: WaitOptions = {}): Promise<void> {
    await this.openHome();
    await this.page
      .getByRole('button', { name: /^(Disconnect|Cancel)$/ })
      .first()
      .click();
    await this.waitForState('Disconnected', { timeoutMs: options.timeoutMs ?? 30_000 });
  }

  /** The state shown on Home, e.g. "Connected"; empty when Home is not shown. */
  async state(): Promise<string> {
    const status = this.connection.getByRole('status');
    if ((await status.count()) === 0) return '';
    return ((await status.textContent()) ?? '').trim();
  }

  /** Why the tunnel runs over its transport, as Home says it; null when it says nothing. */
  async transportReason(): Promise<string | null> {
    const line = this.connection.getByLabel('Transport', { exact: true });
    if ((await line.count()) === 0) return null;
    return ((await line.textContent()) ?? '').trim();
  }

  /** Waits until Home shows `state`. */
  async waitForState(state: ShownState, options: WaitOptions = {}): Promise<void> {
    await this.waitFor(
      async () => ((await this.state()) === state ? true : undefined),
      options.timeoutMs ?? 30_000,
      `the state ${state}`,
    );
  }

  /** The live latency readout in ms, or null while not measured. */
  async latencyMs(): Promise<number | null> {
    const value = this.page.getByRole('region', { name: 'Latency' }).getByText(/^\d+(\.\d+)? ms$/);
    if ((await value.count()) === 0) return null;
    const m = /^(\d+(?:\.\d+)?) ms$/.exec(((await value.textContent()) ?? '').trim());
    return m ? Number(m[1]) : null;
  }

  /** How many samples the latency chart holds (its accessible name says); 0 without a chart. */
  async latencySamples(): Promise<number> {
    const chart = this.page.getByRole('img', { name: /^Latency history/ });
    // No chart at all before the first sample.
    if ((await chart.count()) === 0) return 0;
    const label = (await chart.getAttribute('aria-label')) ?? '';
    const m = /(\d+) samples?/.exec(label);
    return m ? Number(m[1]) : 0;
  }

  /** The Region picker's options: value and text. */
  async regionOptions(): Promise<{ value: string; label: string; disabled: boolean }[]> {
    const options = this.regionSelect().getByRole('option');
    const out = [];
    for (let i = 0; i < (await options.count()); i++) {
      const o = options.nth(i);
      out.push({
        value: (await o.getAttribute('value')) ?? '',
        label: ((await o.textContent()) ?? '').trim(),
        disabled: await o.isDisabled(),
      });
    }
    return out;
  }

  /**
   * Chooses a region, a rule or `auto` by its id or name (the option's text up to its facts in
   * parentheses). While connected, the engine reconnects there.
   */
  async chooseRegion(labelOrId: string): Promise<void> {
    await this.openHome();
    const wanted = labelOrId.trim().toLowerCase();
    // The regions come with a read of their own: wait until they are in (or `wanted` is).
    const option = await this.waitFor(
      async () => {
        const options = await this.regionOptions();
        const found =
          options.find((o) => o.value.toLowerCase() === wanted) ??
          options.find((o) => o.label.toLowerCase() === wanted) ??
          options.find((o) => o.label.toLowerCase().startsWith(`${wanted} (`));
        if (found) return found;
        return (await this.regionsLoading()) ? undefined : null;
      },
      15_000,
      `the region "${labelOrId}" in the picker`,
    );
    if (!option) {
      const values = (await this.regionOptions()).map((o) => o.value);
      throw new Error(`no region "${labelOrId}" in the picker: ${values.join(', ')}`);
    }
    await this.regionSelect().selectOption(option.value);
    // Saved (and, when connected, reconnected) once the picker is no longer busy.
    await this.waitFor(
      async () =>
        (await this.regionSelect().getAttribute('aria-busy')) !== 'true' ? true : undefined,
      120_000,
      'the region to be saved',
    );
  }

  /**
   * Presses "Measure latency" beside the Region picker (from the keyboard: it is a button one
   * can reach and press) and waits until the engine probed every region the plan allows and the
   * picker read them again; throws with the words shown when it was refused.
   */
  async measureLatencies(options: WaitOptions = {}): Promise<void> {
    await this.openHome();
    const button = this.page.getByRole('button', {
      name: 'Measure latency to every region',
      exact: true,
    });
    await button.press('Enter');
    await this.waitFor(
      async () => ((await button.getAttribute('aria-busy')) !== 'true' ? true : undefined),
      options.timeoutMs ?? 120_000,
      'the latency check to finish',
    );
    // The check clears the banner when it starts: one shown now is its refusal.
    const error = await this.errorText();
    if (error) throw new Error(`the latency check was refused: ${error}`);
  }

  /** The region setting the picker shows (its value). */
  async chosenRegion(): Promise<string> {
    return this.regionSelect().inputValue();
  }

  /** Whether the picker still says it is reading the regions. */
  private async regionsLoading(): Promise<boolean> {
    return (await this.page.getByText('Loading the regions…', { exact: true }).count()) > 0;
  }

  private regionSelect(): Locator {
    return this.page.getByLabel('Region', { exact: true });
  }

  /** The notices shown on Home, as text. */
  async notices(): Promise<string[]> {
    const list = this.page.getByRole('region', { name: 'Notices' }).getByRole('listitem');
    return (await list.allTextContents()).map((t) => t.trim());
  }

  // ---- screens ---------------------------------------------------------------------------------

  openHome(): Promise<void> {
    return this.openTab('Home');
  }

  openSettings(): Promise<void> {
    return this.openTab('Settings');
  }

  openAccount(): Promise<void> {
    return this.openTab('Account');
  }

  openDiagnostics(): Promise<void> {
    return this.openTab('Diagnostics');
  }

  private async openTab(name: string): Promise<void> {
    const tab = this.page.getByRole('tab', { name, exact: true });
    if ((await tab.getAttribute('aria-selected')) !== 'true') await tab.click();
    await this.page.getByRole('tabpanel', { name }).waitFor();
  }

  // ---- Settings --------------------------------------------------------------------------------

  /**
   * Turns the kill switch on or off and waits for the engine's answer; throws with the words
   * shown when the engine did not take it.
   */
  async setKillSwitch(on: boolean, options: WaitOptions = {}): Promise<void> {
    await this.openSettings();
    const box = this.page.getByRole('checkbox', { name: 'Kill switch', exact: true });
    if ((await box.isChecked()) === on) return;
    await box.click();
    await this.waitForSettings(options.timeoutMs ?? 30_000);
    if ((await box.isChecked()) !== on)
      throw new Error(`the kill switch stayed ${on ? 'off' : 'on'}: ${await this.errorText()}`);
  }

  /** Waits until no settings change is on its way to the engine. */
  private async waitForSettings(timeoutMs: number): Promise<void> {
    await this.waitFor(
      async () => ((await this.settingsFeedback()) === 'Saving…' ? undefined : true),
      timeoutMs,
      'the settings to be saved',
    );
  }

  /**
   * Sets DNS to `auto` or a server's address, and waits for the outcome. Returns the inline
   * refusal (ours or the engine's), or null when the engine took it.
   */
  async setDns(value: string, options: WaitOptions = {}): Promise<string | null> {
    await this.openSettings();
    const dns = this.page.getByRole('group', { name: 'DNS', exact: true });
    if (value.trim().toLowerCase() === 'auto') {
      await dns.getByRole('radio', { name: 'Automatic' }).check();
    } else {
      await dns.getByRole('radio', { name: 'Custom' }).check();
      await this.page.getByLabel('DNS server', { exact: true }).fill(value);
      await this.page.getByRole('button', { name: 'Save DNS server' }).click();
    }
    return this.waitFor(
      async () => {
        const error = await this.fieldError('DNS server');
        if (error) return { error };
        const feedback = await this.settingsFeedback();
        if (feedback && feedback !== 'Saving…') return { error: null };
        // Refused without a field error (the engine or the service out of reach): the banner.
        if (!feedback && (await this.errorText())) return { error: await this.errorText() };
        return undefined;
      },
      options.timeoutMs ?? 30_000,
      'the DNS setting to be saved or refused',
    ).then((r) => r.error);
  }

  /** What the last settings change did ("Saved.", "Saving…"), or null. */
  async settingsFeedback(): Promise<string | null> {
    const panel = this.page.getByRole('tabpanel', { name: 'Settings' });
    const status = panel.getByRole('status').filter({ hasText: /Sav|Reconnected|Nothing/ });
    if ((await status.count()) === 0) return null;
    return ((await status.first().textContent()) ?? '').trim() || null;
  }

  /** The inline refusal tied to the field labelled `label` (aria-describedby), or null. */
  async fieldError(label: string): Promise<string | null> {
    const field = this.page.getByLabel(label, { exact: true });
    if ((await field.count()) === 0 || (await field.getAttribute('aria-invalid')) !== 'true')
      return null;
    const ids = ((await field.getAttribute('aria-describedby')) ?? '').split(/\s+/);
    const texts: string[] = [];
    for (const id of ids.filter(Boolean)) {
      const described = this.page.locator(`[id="${id}"]`);
      if ((await described.count()) > 0) texts.push(((await described.textContent()) ?? '').trim());
    }
    return texts.join(' ') || null;
  }

  // ---- Account: phones and tablets ------------------------------------------------------------

  /**
   * Adds a phone or tablet from the Account screen (kind, name, "Allow local network") and
   * returns once its QR code is shown; throws with the words shown when it was refused.
   */
  async addPhone(options: AddPhoneOptions): Promise<void> {
    await this.openAccount();
    await this.page.getByRole('button', { name: 'Add a phone or tablet', exact: true }).click();
    const form = this.page.getByRole('form', { name: 'Add a phone or tablet' });
    await form.getByRole('radio', { name: options.kind === 'tablet' ? 'Tablet' : 'Phone' }).check();
    await form.getByLabel('Device name', { exact: true }).fill(options.name);
    await form
      .getByRole('checkbox', { name: 'Allow local network', exact: true })
      .setChecked(options.allowLan ?? false);
    if (options.region !== undefined)
      await form.getByLabel('Region', { exact: true }).selectOption(options.region);
    await form.getByRole('button', { name: 'Add', exact: true }).click();
    const shown = await this.waitFor(
      async () => {
        if ((await this.qrImage().count()) > 0) return true;
        // Refused: the form says why (at a field or above its buttons).
        if ((await form.count()) > 0 && (await form.getByRole('alert').count()) > 0) return false;
        return undefined;
      },
      options.timeoutMs ?? 30_000,
      'the QR code of the new device',
    );
    if (!shown) throw new Error(`adding ${options.name} was refused: ${await this.errorText()}`);
    await this.qrImage().waitFor();
  }

  /** The QR code of the device just added (an img named by its alternative text). */
  qrImage(): Locator {
    return this.page.getByRole('img', { name: /^QR code of the WireGuard configuration for / });
  }

  /** The configuration of the device just added, as shown under "Show configuration". */
  async shownConfig(): Promise<string> {
    const config = this.page.getByLabel(/^WireGuard configuration for .*, private key included$/);
    if (!(await config.isVisible()))
      await this.page.getByText('Show configuration', { exact: true }).click();
    await config.waitFor();
    return (await config.textContent()) ?? '';
  }

  /**
   * The Account screen's devices as shown, one line each, its rendered lines joined by " | ":
   * "laptop (laptop)This device | Connected · 23 ms · Asia East (Tokyo) | Revoke".
   */
  async devicesShown(): Promise<string[]> {
    await this.openAccount();
    const items = this.page.getByRole('list', { name: 'Devices' }).getByRole('listitem');
    return (await items.allInnerTexts()).map((t) =>
      t
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean)
        .join(' | '),
    );
  }

  /** Presses Done under the new device's QR code and waits until the code is gone. */
  async finishAddDevice(): Promise<void> {
    await this.page.getByRole('button', { name: 'Done', exact: true }).click();
    await this.qrImage().waitFor({ state: 'detached' });
  }

  // ---- Diagnostics -----------------------------------------------------------------------------

  /** Runs the diagnostics and returns each check's row once the report is shown. */
  async runDiagnostics(options: WaitOptions = {}): Promise<VerdictRow[]> {
    await this.openDiagnostics();
    const table = this.page.getByRole('table', { name: 'Diagnostic results' });
    const before = (await table.count()) > 0 ? await table.getAttribute('data-checked-at') : null;
    await this.page.getByRole('button', { name: 'Run diagnostics' }).click();
    const progress = this.page.getByRole('tabpanel', { name: 'Diagnostics' }).getByRole('status');
    await this.waitFor(
      async () => {
        const text = (await progress.textContent()) ?? '';
        if (/Running/.test(text) || (await table.count()) === 0) return undefined;
        return (await table.getAttribute('data-checked-at')) !== before ? true : undefined;
      },
      options.timeoutMs ?? 60_000,
      'the diagnostics to finish',
    );
    return this.verdictRows();
  }

  /** The rows of the diagnostics shown now (empty when none ran). */
  async verdictRows(): Promise<VerdictRow[]> {
    const table = this.page.getByRole('table', { name: 'Diagnostic results' });
    if ((await table.count()) === 0) return [];
    const rows = table.getByRole('row');
    const out: VerdictRow[] = [];
    for (let i = 1; i < (await rows.count()); i++) {
      const row = rows.nth(i);
      const check = ((await row.getByRole('rowheader').textContent()) ?? '').trim();
      const cells = (await row.getByRole('cell').allTextContents()).map((t) => t.trim());
      out.push({ check, verdict: cells[0] ?? '', found: cells[1] ?? '', fix: cells[2] ?? '' });
    }
    return out;
  }

  // ---- errors and evidence ---------------------------------------------------------------------

  /**
   * The errors shown now in plain words, or null: the banners (a failed call, the engine out
   * of reach) and the refusals beside fields, each an alert.
   */
  async errorText(): Promise<string | null> {
    const alerts = await this.page.getByRole('alert').allTextContents();
    const text = alerts
      .map((t) => t.trim())
      .filter(Boolean)
      .join('\n');
    return text || null;
  }

  /** A full-page screenshot to `dir/name.png`; returns its path. */
  async screenshot(name: string, dir: string): Promise<string> {
    const file = path.join(dir, `${name.replace(/[^A-Za-z0-9._-]+/g, '-')}.png`);
    await this.page.screenshot({ path: file, fullPage: true });
    return file;
  }

  /** Polls `check` until it returns a value, or fails saying what it waited for. */
  private async waitFor<T>(
    check: () => Promise<T | undefined>,
    timeoutMs: number,
    what: string,
  ): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await check();
      if (value !== undefined) return value;
      if (Date.now() > deadline)
        throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
      await this.page.waitForTimeout(100);
    }
  }
}

// A page object for the "Split rules" card on Settings: the rules listed as a person reads them,
// a rule added (a website or a program, direct or through the tunnel only) with the refusal said
// beside the field, one removed. Found by role and label only.
import type { Locator } from 'playwright-core';
import type { AppPage } from './app-page.js';

export interface ShownSplitRule {
  /** The domain, or the program's path. */
  target: string;
  /** "Website and its subdomains · Direct (around the tunnel)". */
  detail: string;
}

export interface NewSplitRule {
  kind: 'website' | 'program';
  /** What is typed: a domain, or a program's full path. */
  text: string;
  way: 'direct' | 'tunnel';
}

const KIND_LABELS = { website: 'A website (domain)', program: 'A program' } as const;
const FIELD_LABELS = { website: 'Domain', program: 'Program’s path' } as const;
const WAY_LABELS = { direct: 'Direct (around the tunnel)', tunnel: 'Through the tunnel only' };

export class SplitRulesCard {
  constructor(private readonly app: AppPage) {}

  get card(): Locator {
    return this.app.page.getByRole('region', { name: 'Split rules' });
  }

  private get form(): Locator {
    return this.card.getByRole('form', { name: 'Add a rule' });
  }

  /** Opens Settings and waits until the rules are read (listed, or said to be none). */
  async open(): Promise<void> {
    await this.app.openSettings();
    await this.card
      .getByRole('list', { name: 'Split rules' })
      .or(this.card.getByText(/^No split rules/))
      .waitFor();
  }

  /** The rules listed, in order; empty when there are none. */
  async rules(): Promise<ShownSplitRule[]> {
    const list = this.card.getByRole('list', { name: 'Split rules' });
    if ((await list.count()) === 0) return [];
    const shown: ShownSplitRule[] = [];
    for (const item of await list.getByRole('listitem').all()) {
      shown.push({
        target: (await item.locator('strong').innerText()).trim(),
        detail: (await item.locator('.muted').innerText()).trim(),
      });
    }
    return shown;
  }

  /** What the card says when there are no rules; empty while there are. */
  async emptyText(): Promise<string> {
    const empty = this.card.getByText(/^No split rules/);
    return (await empty.count()) > 0 ? (await empty.innerText()).trim() : '';
  }

  /**
   * Fills the form and presses Add rule. Returns the refusal said beside the field, or null once
   * the engine took it (the field is emptied and the rule listed).
   */
  async add(rule: NewSplitRule): Promise<string | null> {
    await this.form.getByRole('radio', { name: KIND_LABELS[rule.kind], exact: true }).check();
    const field = this.form.getByLabel(FIELD_LABELS[rule.kind], { exact: true });
    await field.fill(rule.text);
    await this.form.getByRole('radio', { name: WAY_LABELS[rule.way], exact: true }).check();
    await this.form.getByRole('button', { name: 'Add rule', exact: true }).click();
    const deadline = Date.now() + 20_000;
    for (;;) {
      const refusal = await this.app.fieldError(FIELD_LABELS[rule.kind]);
      if (refusal) return refusal;
      if ((await field.inputValue()) === '') return null;
      if (Date.now() > deadline)
        throw new Error(`the rule for ${rule.text} was neither taken nor refused`);
      await this.app.page.waitForTimeout(100);
    }
  }

  /** Presses the Remove button of the rule for `target` and waits until it is gone. */
  async remove(target: string): Promise<void> {
    await this.card
      .getByRole('button', { name: `Remove the rule for ${target}`, exact: true })
      .click();
    await this.card
      .getByRole('list', { name: 'Split rules' })
      .getByText(target, { exact: true })
      .waitFor({ state: 'detached' });
  }
}

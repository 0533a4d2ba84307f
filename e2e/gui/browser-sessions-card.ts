// A page object for the web graphical mode's "Browsers signed in" card on Settings: the browsers
// listed as a person reads them, another one ended, this one signed out; and the page a signed
// out browser shows. Found by role and label only.
import type { Locator } from 'playwright-core';
import type { AppPage } from './app-page.js';

export interface ShownBrowser {
  /** "This browser", or "Browser signed in at 08:00". */
  title: string;
  /** "Signed in 08:00 · last used 08:05 · ends by 20:00". */
  detail: string;
}

export class BrowserSessionsCard {
  constructor(private readonly app: AppPage) {}

  private get card(): Locator {
    return this.app.page.getByRole('region', { name: 'Browsers signed in' });
  }

  /** Opens Settings and waits until the browsers are listed. */
  async open(): Promise<void> {
    await this.app.openSettings();
    await this.card.getByRole('list', { name: 'Browsers signed in' }).waitFor();
  }

  /** The browsers listed, in order (this one first). */
  async browsers(): Promise<ShownBrowser[]> {
    const items = this.card.getByRole('listitem');
    const shown: ShownBrowser[] = [];
    for (const item of await items.all()) {
      shown.push({
        title: (await item.locator('strong').innerText()).trim(),
        detail: (await item.locator('.muted').innerText()).trim(),
      });
    }
    return shown;
  }

  /** Ends the browser titled `title` (asked, then confirmed). */
  async end(title: string): Promise<void> {
    const at = /^Browser signed in at (.+)$/.exec(title)?.[1];
    if (at === undefined) throw new Error(`not another browser’s title: ${title}`);
    await this.card.getByRole('button', { name: `End the browser signed in at ${at}` }).click();
    await this.card.getByRole('button', { name: 'Yes, end it' }).click();
  }

  /** Signs this browser out (asked, then confirmed). */
  async signOutThisBrowser(): Promise<void> {
    await this.card.getByRole('button', { name: 'Sign out this browser' }).click();
    await this.card.getByRole('button', { name: 'Yes, sign out' }).click();
  }

  /** What the page says once this browser is signed out; empty while it is not. */
  async signedOutText(): Promise<string> {
    const status = this.app.page.getByRole('status').filter({ hasText: /signed out of Ferry/ });
    return (await status.count()) > 0 ? (await status.first().innerText()).trim() : '';
  }
}

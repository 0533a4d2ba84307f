// A page object for Home's map and places (renderer/ui/map, renderer/ui/places): what the map
// says and draws, the places list and its search, found by role and label (English words) or,
// for the map's drawing, by its SVG marks.
import type { Locator, Page } from 'playwright-core';

/** An element as far as its attributes go (this project's tsconfig has no DOM types). */
type Attributed = { getAttribute(name: string): string | null };

export class HomePage {
  constructor(readonly page: Page) {}

  /** The world map: the one image whose name starts with the map's words in the language. */
  map(name: RegExp = /^Map: /): Locator {
    return this.page.getByRole('img', { name });
  }

  /** The map's name (its words). */
  async mapLabel(): Promise<string> {
    return (await this.page.locator('svg.world-map').getAttribute('aria-label')) ?? '';
  }

  /** Which pins the map shows: home, entry, exit. */
  async pins(): Promise<string[]> {
    return this.page
      .locator('svg.world-map [data-place]')
      .evaluateAll((els) =>
        els.map((e) => (e as unknown as Attributed).getAttribute('data-place') ?? ''),
      );
  }

  /** How many route segments the map draws, and whether each has a path. */
  async routes(): Promise<string[]> {
    return this.page
      .locator('svg.world-map [data-path="route"]')
      .evaluateAll((els) => els.map((e) => (e as unknown as Attributed).getAttribute('d') ?? ''));
  }

  /** The highlighted countries' classes (home, exit). */
  async highlighted(): Promise<string[]> {
    return this.page
      .locator('svg.world-map .world-map__country--home, svg.world-map .world-map__country--exit')
      .evaluateAll((els) =>
        els.map((e) => (e as unknown as Attributed).getAttribute('class') ?? ''),
      );
  }

  private get places(): Locator {
    return this.page.locator('section.places');
  }

  /** Types into the places' search box. */
  async search(text: string): Promise<void> {
    await this.places.getByRole('searchbox').fill(text);
  }

  /** The places the list shows, as their rows' text. */
  async placeRows(): Promise<string[]> {
    return (await this.places.getByRole('listitem').allInnerTexts()).map((t) =>
      t.replace(/\s+/g, ' ').trim(),
    );
  }

  /** The region ids of the rows shown. */
  async placeIds(): Promise<string[]> {
    return this.places
      .locator('button[data-region]')
      .evaluateAll((els) =>
        els.map((e) => (e as unknown as Attributed).getAttribute('data-region') ?? ''),
      );
  }

  /** Chooses a place by its region id (its row's button). */
  async choose(region: string): Promise<void> {
    await this.places.locator(`button[data-region="${region}"]`).click();
  }

  /** The Connection card's visible text (closed details left out). */
  async connectionText(): Promise<string> {
    return this.page.locator('section.connection').innerText();
  }
}

// The accessibility tests' kit, for the web graphical mode against the engine fake: axe-core's
// WCAG 2 A/AA rules on the page as shown (its serious and critical findings, in words a test can
// print), the colour scheme and the language the app is seen in, the screens reached by the
// address's fragment (as in any language), and what the keyboard's focus is on: its role, its
// accessible name (as a screen reader speaks it) and whether it is drawn.
import { AxeBuilder } from '@axe-core/playwright';
import type { Locator, Page } from 'playwright-core';
import type { Language } from '../../contracts/i18n/languages.js';
import type { FakeEngineGui } from './fake-engine-gui.js';

/** WCAG 2.0 and 2.1, levels A and AA. */
export const WCAG_AA_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

export type Screen = 'home' | 'settings' | 'account' | 'diagnostics';

/**
 * The little of the page's globals the functions run in the page touch (these tests compile
 * without the DOM's types; the casts are gone once a function is sent to the page).
 */
export interface InPage {
  document: { documentElement: { scrollWidth: number; clientWidth: number } };
  location: { hash: string };
  scrollTo(x: number, y: number): void;
  getComputedStyle(element: unknown): {
    outlineStyle: string;
    outlineWidth: string;
    boxShadow: string;
  };
}
interface InPageElement {
  tagName: string;
  matches(selector: string): boolean;
  checkVisibility(): boolean;
  getBoundingClientRect(): { width: number; height: number };
}

/**
 * The serious and critical axe-core findings on the page now, one line each:
 * "<where>: <rule id> (<impact>) <help> at <target>, <target>…"; empty when none.
 */
export async function seriousViolations(page: Page, where: string): Promise<string[]> {
  const results = await new AxeBuilder({ page }).withTags(WCAG_AA_TAGS).analyze();
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => {
      const targets = v.nodes.map((n) => {
        const summary = (n.failureSummary ?? '').split('\n').slice(1, 2).join('').trim();
        return `${n.target.join(' ')}${summary ? ` [${summary}]` : ''}`;
      });
      return `${where}: ${v.id} (${v.impact}) ${v.help} at ${targets.join('; ')}`;
    });
}

/** The page as a system in a light or a dark theme shows it (prefers-color-scheme). */
export async function useScheme(page: Page, scheme: 'light' | 'dark'): Promise<void> {
  await page.emulateMedia({ colorScheme: scheme });
}

/**
 * The app in `language`: the engine's `language` setting, the page opened again (it reads the
 * configuration when it starts) until the document says that language.
 */
export async function useLanguage(g: FakeEngineGui, language: Language | 'auto'): Promise<void> {
  await g.engine.patchConfig({ language });
  await g.app.page.reload();
  if (language !== 'auto')
    await g.app.page.locator(`html[lang="${language}"]`).waitFor({ state: 'attached' });
  await g.app.page.locator('[role="tablist"]').or(g.app.page.locator('h1')).first().waitFor();
}

/** Shows a screen by the address's fragment (the shell follows it), whatever the language. */
export async function showScreen(page: Page, screen: Screen): Promise<void> {
  await page.evaluate((s) => {
    (globalThis as unknown as InPage).location.hash = s;
  }, screen);
  await page.locator(`#panel-${screen}[role="tabpanel"]`).waitFor();
}

/** What has the keyboard's focus: its role and accessible name, and whether its focus shows. */
export interface Focused {
  /** The ARIA role and name as Playwright's accessibility snapshot says them, e.g. `button "Connect"`. */
  spoken: string;
  /** The element's tag, e.g. "BUTTON". */
  tag: string;
  /** An outline or a box-shadow is drawn around it (the :focus-visible style). */
  drawn: boolean;
  /** It matches :focus-visible (the browser shows keyboard focus there). */
  focusVisible: boolean;
  /** It is shown (not hidden, not of no size): a person sees where the focus is. */
  shown: boolean;
}

/** Whether `element` has the keyboard's focus. */
export function hasFocus(element: Locator): Promise<boolean> {
  return element.evaluate((node) => (node as unknown as InPageElement).matches(':focus'));
}

/** The focused element, or null when the focus is on the page itself. */
export async function focused(page: Page): Promise<Focused | null> {
  const element = page.locator('*:focus');
  if ((await element.count()) === 0) return null;
  const facts = await element.evaluate((node) => {
    const el = node as unknown as InPageElement;
    const style = (globalThis as unknown as InPage).getComputedStyle(el);
    const outline =
      style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2 ? true : false;
    const shadow = style.boxShadow !== 'none' && style.boxShadow !== '';
    const box = el.getBoundingClientRect();
    return {
      tag: el.tagName,
      drawn: outline || shadow,
      focusVisible: el.matches(':focus-visible'),
      shown: el.checkVisibility() && box.width > 1 && box.height > 1,
    };
  });
  // The first line of the accessibility snapshot: `- button "Connect"`, `- checkbox "Kill switch"`.
  // (A name that is not its text is followed by the text: `button "Measure latency…": Measure…`.)
  const snapshot = await element.ariaSnapshot();
  const line = /^- '?(\S+)(?: ("(?:[^"\\]|\\.)*"))?/.exec(snapshot.split('\n')[0] ?? '');
  const spoken = line ? [line[1], line[2]].filter(Boolean).join(' ') : '';
  return { spoken, ...facts };
}

/**
 * Presses `key` (Tab, Shift+Tab) until the focus is on what `wanted` matches (its spoken role
 * and name), at most `max` times; every element passed on the way, in order. Throws with that
 * path when it is not reached.
 */
export async function tabTo(
  page: Page,
  wanted: RegExp,
  options: { key?: 'Tab' | 'Shift+Tab'; max?: number } = {},
): Promise<Focused[]> {
  const path: Focused[] = [];
  for (let i = 0; i < (options.max ?? 40); i++) {
    await page.keyboard.press(options.key ?? 'Tab');
    const now = await focused(page);
    if (now) path.push(now);
    if (now && wanted.test(now.spoken)) return path;
  }
  throw new Error(
    `${wanted} not reached with ${options.key ?? 'Tab'}; passed: ${path.map((f) => f.spoken).join(' → ')}`,
  );
}

/** Polls `check` until it returns true, or fails saying what it waited for. */
export async function waitUntil(
  page: Page,
  check: () => Promise<boolean>,
  what: string,
  timeoutMs = 15_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await page.waitForTimeout(100);
  }
}

// The page key's way into the page: taken from the address's fragment at sign-in, which is then
// cleared from the address bar and history, and kept in the tab's own storage so that a reload
// stays signed in.
import { describe, expect, it } from 'vitest';
import { PAGE_KEY_STORAGE, takePageKey, type PageKeyPlace } from './page-key.js';

const KEY = 'k'.repeat(43);

function place(hash: string, stored: Record<string, string> = {}) {
  const replaced: string[] = [];
  const storage = new Map(Object.entries(stored));
  const p: PageKeyPlace = {
    location: { hash, pathname: '/', search: '' },
    history: { state: null, replaceState: (_s, _t, url) => void replaced.push(String(url)) },
    storage: () => ({
      getItem: (k) => storage.get(k) ?? null,
      setItem: (k, v) => void storage.set(k, v),
    }),
  };
  return { p, replaced, storage };
}

describe('the page key', () => {
  it('comes in the fragment at sign-in: kept for this tab, and gone from the address', () => {
    const { p, replaced, storage } = place(`#page=${KEY}`);
    expect(takePageKey(p)).toBe(KEY);
    expect(replaced).toEqual(['/']);
    expect(storage.get(PAGE_KEY_STORAGE)).toBe(KEY);
  });

  it('a reload (no fragment) finds it in the tab’s storage; a new sign-in replaces it', () => {
    expect(takePageKey(place('', { [PAGE_KEY_STORAGE]: KEY }).p)).toBe(KEY);
    const other = 'o'.repeat(43);
    const { p, storage } = place(`#page=${other}`, { [PAGE_KEY_STORAGE]: KEY });
    expect(takePageKey(p)).toBe(other);
    expect(storage.get(PAGE_KEY_STORAGE)).toBe(other);
  });

  it('none: a page opened without signing in, or a fragment that is not a key', () => {
    expect(takePageKey(place('').p)).toBeUndefined();
    const { p, replaced } = place('#page=not a key!');
    expect(takePageKey(p)).toBeUndefined();
    expect(replaced).toEqual(['/']);
  });

  it('storage that refuses (a browser’s privacy setting): the key lives in memory only', () => {
    const { p } = place(`#page=${KEY}`);
    p.storage = () => {
      throw new Error('SecurityError');
    };
    expect(takePageKey(p)).toBe(KEY);
  });
});

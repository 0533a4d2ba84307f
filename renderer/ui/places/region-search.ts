// The region list's search: a region matches when every word typed is the start of a word of
// its city, its country (in the person's language and in English), its name or its id; letter
// case and accents aside. An empty search keeps every region, in the list's order.
import { countryName } from '../../../contracts/i18n/places.js';
import type { Language } from '../../../contracts/i18n/languages.js';
import { cityOf, type RegionLike } from './place-words.js';

/** Lower case, accents off, one space between words. */
export function foldText(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLocaleLowerCase()
    .replace(/\s+/g, ' ')
    .trim();
}

/** The words a region is found by, folded. */
export function searchText(region: RegionLike, language: Language): string {
  const names = [region.name, cityOf(region.name), region.id];
  if (region.country) {
    names.push(countryName(region.country, language), countryName(region.country, 'en'));
    names.push(region.country);
  }
  return foldText(names.join(' '));
}

/** Whether `query` finds the region. */
export function regionMatches(region: RegionLike, query: string, language: Language): boolean {
  const words = foldText(query).split(' ').filter(Boolean);
  if (words.length === 0) return true;
  const text = searchText(region, language);
  // A word starts after a space, a dash, a bracket or a comma; scripts without spaces (Chinese)
  // match anywhere.
  const starts = text.split(/[\s\-(),.]+/).filter(Boolean);
  return words.every(
    (w) =>
      starts.some((s) => s.startsWith(w)) ||
      (/[^\p{Script=Latin}\p{N}]/u.test(w) && text.includes(w)),
  );
}

export function searchRegions<R extends RegionLike>(
  regions: readonly R[],
  query: string,
  language: Language,
): R[] {
  return regions.filter((r) => regionMatches(r, query, language));
}

// Places in a person's language: a country's name by its ISO 3166-1 code, from the ICU data
// that Node and Chromium carry (Intl.DisplayNames), so every language names every country; a
// region by its city and country ("Tokyo, Japan", "日本 东京"), never by its id: the app's window
// and its tray say them alike.
import type { Language } from './languages.js';
import { translator } from './translator.js';

const names = new Map<Language, Intl.DisplayNames>();

/** "Japan", "日本", "Япония", "ژاپن"; the code itself for one ICU does not know. */
export function countryName(code: string, language: Language): string {
  let display = names.get(language);
  if (!display) {
    display = new Intl.DisplayNames([language], { type: 'region', fallback: 'code' });
    names.set(language, display);
  }
  try {
    return display.of(code.toUpperCase()) ?? code;
  } catch {
    return code;
  }
}

/** What a region is as far as its place goes (the engine's region and its list's entries). */
export interface RegionLike {
  id: string;
  name: string;
  country: string | null;
}

export interface PlaceWords {
  /** The city (or the region's own name when it names no city). */
  city: string;
  /** The country in the language; null for a region of no one country (Global). */
  country: string | null;
  /** Alpha-2, upper case; null as above. */
  code: string | null;
  /** "Tokyo, Japan" (in the language's order); "Japan" when the region is named after its country; "Global". */
  label: string;
}

/**
 * The city a region is named after: "Asia East (Tokyo)" → "Tokyo" (the part in parentheses),
 * else the name itself.
 */
export function cityOf(name: string): string {
  const m = /\(([^()]+)\)\s*$/.exec(name);
  return (m ? m[1]! : name).trim();
}

export function placeWords(region: RegionLike, language: Language): PlaceWords {
  const city = cityOf(region.name);
  if (!region.country) return { city, country: null, code: null, label: city };
  const code = region.country.toUpperCase();
  const country = countryName(code, language);
  const sameAsCountry =
    city.toLowerCase() === countryName(code, 'en').toLowerCase() || city.toUpperCase() === code;
  const label = sameAsCountry
    ? country
    : translator(language)('home.places.cityCountry', { city, country });
  return { city, country, code, label };
}

/** A region's place by its id among the known ones; the id's own words for one not listed. */
export function placeOfRegion(
  regions: readonly RegionLike[] | undefined,
  id: string | null | undefined,
  language: Language,
): PlaceWords | null {
  if (!id) return null;
  const region = regions?.find((r) => r.id === id);
  return region ? placeWords(region, language) : { city: id, country: null, code: null, label: id };
}

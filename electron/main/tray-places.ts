// The tray names the region connected to as the app does: "Tokyo, Japan", by its city (the part
// of its name in parentheses, else the name) and its country in the language (renderer/ui/
// places/place-words.ts does the same for the window; main may not import the renderer).
import { countryName, translator, type Language } from '../../contracts/index.js';

export interface RegionLike {
  id: string;
  name: string;
  country: string | null;
}

/** A region's place in words, by its id among `regions`; the id for one not listed. */
export function regionPlace(
  regions: readonly RegionLike[] | undefined,
  id: string,
  language: Language,
): string {
  const region = regions?.find((r) => r.id === id);
  if (!region) return id;
  const m = /\(([^()]+)\)\s*$/.exec(region.name);
  const city = (m ? m[1]! : region.name).trim();
  if (!region.country) return city;
  const country = countryName(region.country, language);
  if (city.toLowerCase() === countryName(region.country, 'en').toLowerCase()) return country;
  return translator(language)('home.places.cityCountry', { city, country });
}

// Where the person is and where they exit, for the map and the connection card: the home
// country (the engine's, else the setting when it names one), the exit's country (the region
// connected to) and, with multihop, the entry's.
import { useMemo } from 'react';
import { useEngine } from '../store-context.js';
import { useWords } from '../i18n/use-words.js';
import { placeOfRegion, type PlaceWords } from '../places/place-words.js';

export interface HomePlaces {
  /** Alpha-2 of the home country; null when unknown. */
  home: string | null;
  /** The exit's place while a tunnel is up or being made; null otherwise. */
  exit: PlaceWords | null;
  /** The multihop entry's place; null without one. */
  entry: PlaceWords | null;
  connected: boolean;
}

const LIVE = new Set(['connecting', 'connected', 'reconnecting']);

/** The home country: the engine's (detected or set), else the setting's when it is a code. */
export function homeCountryOf(
  engine: string | null | undefined,
  setting: string | null | undefined,
): string | null {
  if (engine && /^[A-Za-z]{2}$/.test(engine)) return engine.toUpperCase();
  if (setting && /^[A-Za-z]{2}$/.test(setting)) return setting.toUpperCase();
  return null;
}

export function useHomePlaces(): HomePlaces {
  const { language } = useWords();
  const status = useEngine((s) => s.status);
  const regions = useEngine((s) => s.regions?.regions);
  const setting = useEngine((s) => s.config?.home_country);
  return useMemo(() => {
    const home = homeCountryOf(status?.protection.home_country, setting);
    const live = LIVE.has(status?.status ?? 'disconnected');
    const exit = live
      ? placeOfRegion(regions, status?.node?.region ?? status?.region, language)
      : null;
    const entry =
      live && status?.node?.entry
        ? placeOfRegion(regions, status.node.entry.region, language)
        : null;
    return { home, exit, entry, connected: status?.status === 'connected' };
  }, [status, regions, setting, language]);
}

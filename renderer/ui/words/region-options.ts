// A region's name for its id (a device's region, as the account's lists show it).
import type { Regions } from '../../store/engine-store.js';

/** A region's name for an id, or the id itself. */
export function regionName(regions: Regions | null, id: string | null): string | null {
  if (!id) return null;
  return regions?.regions.find((r) => r.id === id)?.name ?? id;
}

// Stream mode's pins: a platform's IPv4 addresses (its probe URL's host and its domains, looked
// up through the tunnel's resolver), which take the tunnel even where the split tunnel would
// send them directly. Each lookup is bounded; a name that does not resolve pins nothing.
import { isIP } from 'node:net';

import type { PlatformTable } from '../../contracts/index.js';
import { systemLookup, type LookupAll } from '../host-addresses.js';

/** How long stream mode waits for one of its platform's names to resolve. */
const PLATFORM_LOOKUP_MS = 2_000;

export async function platformAddresses(
  table: PlatformTable,
  id: string,
  lookup: LookupAll = systemLookup,
): Promise<string[]> {
  const def = table[id];
  if (!def) return [];
  const hosts = [new URL(def.probe.url).hostname.replace(/^\[(.*)\]$/, '$1'), ...def.domains];
  const found = await Promise.all(
    hosts.map((h) =>
      isIP(h) !== 0
        ? [h]
        : Promise.race([
            lookup(h).catch(() => [] as string[]),
            new Promise<string[]>((r) => setTimeout(() => r([]), PLATFORM_LOOKUP_MS).unref()),
          ]),
    ),
  );
  return [...new Set(found.flat().filter((a) => isIP(a) === 4))];
}

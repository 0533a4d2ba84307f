// The addresses of the hosts the engine talks to outside any tunnel (the control plane, nodes
// named by host name): the kill switch lets addresses out, not names, and while it blocks DNS
// a name can no longer be looked up, so the last addresses found stand in.
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';

import { FerryError } from './errors.js';

export type LookupAll = (host: string) => Promise<string[]>;

/** Every address of a host name, from the system resolver. */
export const systemLookup: LookupAll = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

export class HostAddresses {
  readonly #known = new Map<string, string[]>();

  constructor(private readonly lookupAll: LookupAll = systemLookup) {}

  /** Every address of `host` (an address stands for itself); the last ones known when a lookup fails. */
  async resolve(host: string): Promise<string[]> {
    if (isIP(host) !== 0) return [host];
    try {
      const found = (await this.lookupAll(host)).filter((a) => isIP(a) !== 0);
      if (found.length > 0) {
        this.#known.set(host, found);
        return found;
      }
    } catch {
      // The last addresses known stand in (below).
    }
    const known = this.#known.get(host);
    if (known) return known;
    throw new FerryError('host-unresolvable', `cannot look up the address of ${host}`);
  }
}

// Services: named destination sets (networks and domains) that service tunnels carry. The
// shipped ones (contracts/services.json) and the user's own, kept in `<stateDir>/services.json`;
// and a service's destinations when a tunnel starts: its networks, and its domains resolved to
// IPv4 addresses (routed, never logged or shown).
import { lookup } from 'node:dns/promises';
import path from 'node:path';
import { z } from 'zod';
import {
  AddDestinationSetRequest,
  BUILTIN_DESTINATION_SETS,
  type DestinationSet,
} from '../contracts/index.js';
import { FerryError } from './errors.js';
import { DEFAULT_STATE_DIR, readStateFile, writeStateFile } from './state-dir.js';
import { SerialQueue } from './serial-queue.js';

export const SERVICES_FILE = 'services.json';

/** The user's services, each held to the rules of `netcli service add`. */
const ServicesFile = z.strictObject({
  version: z.literal(1),
  services: z.array(AddDestinationSetRequest),
});

/** A domain's IPv4 addresses (the system resolver in the engine; a table in tests). */
export type ResolveIpv4 = (domain: string) => Promise<string[]>;

export const systemResolveIpv4: ResolveIpv4 = async (domain) =>
  (await lookup(domain, { family: 4, all: true })).map((a) => a.address);

function userService(s: z.output<typeof AddDestinationSetRequest>): DestinationSet {
  return { name: s.name, builtin: false, description: null, cidrs: s.cidrs, domains: s.domains };
}

export class DestinationSetStore {
  readonly file: string;
  readonly #serial = new SerialQueue();

  constructor(readonly stateDir: string = DEFAULT_STATE_DIR) {
    this.file = path.join(stateDir, SERVICES_FILE);
  }

  /** The shipped services, then the user's, by name. */
  list(): Promise<DestinationSet[]> {
    return this.#serial.run(async () => [
      ...BUILTIN_DESTINATION_SETS.map((s) => ({ ...s })),
      ...(await this.read()).map(userService).sort((a, b) => a.name.localeCompare(b.name)),
    ]);
  }

  /** One service by name (any letter case); service-not-found names the services there are. */
  async get(name: string): Promise<DestinationSet> {
    const all = await this.list();
    const typed = name.toLowerCase();
    const found = all.find((s) => s.name === typed);
    if (found) return found;
    throw new FerryError(
      'service-not-found',
      `there is no service ${typed}; the services are ${all.map((s) => s.name).join(', ')}`,
    );
  }

  /**
   * Adds a service (its networks and domains without repeats). A name already taken, by a
   * service of the user's or a shipped one, is refused (service-exists), never overwritten.
   */
  add(request: z.output<typeof AddDestinationSetRequest>): Promise<DestinationSet> {
    return this.#serial.run(async () => {
      if (BUILTIN_DESTINATION_SETS.some((s) => s.name === request.name)) {
        throw new FerryError(
          'service-exists',
          `${request.name} is a service Ferry ships: give yours another name`,
        );
      }
      const services = await this.read();
      if (services.some((s) => s.name === request.name)) {
        throw new FerryError(
          'service-exists',
          `a service named ${request.name} exists; remove it first (netcli service remove ${request.name}) or choose another name`,
        );
      }
      const service = {
        name: request.name,
        cidrs: [...new Set(request.cidrs)],
        domains: [...new Set(request.domains)],
      };
      await this.write([...services, service]);
      return userService(service);
    });
  }

  remove(name: string): Promise<void> {
    return this.#serial.run(async () => {
      const typed = name.toLowerCase();
      if (BUILTIN_DESTINATION_SETS.some((s) => s.name === typed)) {
        throw new FerryError('config-invalid', `${typed} is a service Ferry ships: it stays`, {
          errors: [{ field: 'name', message: 'a service of your own (netcli service list)' }],
        });
      }
      const services = await this.read();
      if (!services.some((s) => s.name === typed)) {
        throw new FerryError(
          'service-not-found',
          `you have no service named ${typed}` +
            (services.length ? `; yours are ${services.map((s) => s.name).join(', ')}` : ''),
        );
      }
      await this.write(services.filter((s) => s.name !== typed));
    });
  }

  private async read(): Promise<z.output<typeof AddDestinationSetRequest>[]> {
    return (await readStateFile(this.file, ServicesFile, 'services'))?.services ?? [];
  }

  private async write(services: z.output<typeof AddDestinationSetRequest>[]): Promise<void> {
    await writeStateFile(this.stateDir, this.file, { version: 1, services }, 'services');
  }
}

/**
 * What a service's tunnel routes: its networks, and each domain's IPv4 addresses as /32s, once
 * each. Fails closed: when a domain does not resolve (or only to IPv6), the tunnel must not
 * start, or that domain's traffic would go around it; the error counts the domains and names
 * none (the no-logs rule: destinations appear in no message).
 */
export async function serviceDestinations(
  service: Pick<DestinationSet, 'name' | 'cidrs' | 'domains'>,
  resolve: ResolveIpv4,
): Promise<string[]> {
  const out = new Set(service.cidrs);
  let unresolved = 0;
  const answers = await Promise.all(
    service.domains.map((d) => resolve(d).catch(() => [] as string[])),
  );
  for (const addresses of answers) {
    const ipv4 = addresses.filter((a) => /^\d{1,3}(\.\d{1,3}){3}$/.test(a));
    if (ipv4.length === 0) unresolved += 1;
    for (const a of ipv4) out.add(`${a}/32`);
  }
  if (unresolved > 0) {
    throw new FerryError(
      'destinations-unresolved',
      `${unresolved} of the ${service.domains.length} domains of service ${service.name} did not ` +
        'resolve to an IPv4 address, so its tunnel was not started (that traffic would have gone ' +
        'around it); check DNS, or the domains with netcli service list',
    );
  }
  return [...out];
}

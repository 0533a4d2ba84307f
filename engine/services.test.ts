// The services store (shipped and the user's own, in services.json) and what a service's tunnel
// routes: its networks and its domains' IPv4 addresses, or nothing at all when one does not resolve.
import { mkdtempSync, rmSync } from 'node:fs';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BUILTIN_DESTINATION_SETS } from '../contracts/index.js';
import { FerryError } from './errors.js';
import { SERVICES_FILE, DestinationSetStore, serviceDestinations } from './services.js';

let dir: string;
let store: DestinationSetStore;
beforeEach(() => {
  dir = path.join(mkdtempSync(path.join(tmpdir(), 'ferry-services-')), 'state');
  store = new DestinationSetStore(dir);
});
afterEach(() => rmSync(path.dirname(dir), { recursive: true, force: true }));

async function refusal(p: Promise<unknown>): Promise<FerryError> {
  const e = await p.then(
    () => null,
    (x: unknown) => x,
  );
  if (e instanceof FerryError) return e;
  throw new Error(`expected a FerryError, got ${String(e)}`);
}

describe('the services store', () => {
  it('lists the shipped services, then the user’s own by name, kept across restarts', async () => {
    expect((await store.list()).map((s) => s.name)).toEqual(
      BUILTIN_DESTINATION_SETS.map((s) => s.name),
    );
    await store.add({ name: 'zeta', cidrs: ['10.9.0.0/16'], domains: [] });
    const office = await store.add({
      name: 'office',
      cidrs: ['10.20.0.0/16', '10.20.0.0/16', '2001:db8::/32'],
      domains: ['wiki.corp.example', 'wiki.corp.example'],
    });
    expect(office).toEqual({
      name: 'office',
      builtin: false,
      description: null,
      cidrs: ['10.20.0.0/16', '2001:db8::/32'],
      domains: ['wiki.corp.example'],
    });
    const again = new DestinationSetStore(dir);
    const names = (await again.list()).map((s) => s.name);
    expect(names.slice(-2)).toEqual(['office', 'zeta']);
    expect(await again.get('OFFICE')).toEqual(office);
    expect(((await stat(path.join(dir, SERVICES_FILE))).mode & 0o777).toString(8)).toBe('600');
  });

  it('refuses a name taken, by a service of the user’s or a shipped one', async () => {
    await store.add({ name: 'office', cidrs: ['10.20.0.0/16'], domains: [] });
    expect(
      (await refusal(store.add({ name: 'office', cidrs: ['10.0.0.0/8'], domains: [] }))).code,
    ).toBe('service-exists');
    const shipped = await refusal(
      store.add({ name: 'github', cidrs: ['10.0.0.0/8'], domains: [] }),
    );
    expect(shipped.code).toBe('service-exists');
    expect(shipped.message).toMatch(/ships/);
    expect((await store.get('office')).cidrs).toEqual(['10.20.0.0/16']);
  });

  it('removes the user’s own services only, and names the services there are', async () => {
    await store.add({ name: 'office', cidrs: ['10.20.0.0/16'], domains: [] });
    expect((await refusal(store.remove('github'))).code).toBe('config-invalid');
    const missing = await refusal(store.remove('lab'));
    expect(missing.code).toBe('service-not-found');
    expect(missing.message).toContain('office');
    await store.remove('Office');
    const unknown = await refusal(store.get('office'));
    expect(unknown.code).toBe('service-not-found');
    expect(unknown.message).toContain('github');
  });

  it('leaves a damaged file as it is and says so', async () => {
    await store.add({ name: 'office', cidrs: ['10.20.0.0/16'], domains: [] });
    const file = path.join(dir, SERVICES_FILE);
    const damaged = JSON.stringify({
      version: 1,
      services: [{ name: 'x', cidrs: ['10.0.0.1/8'] }],
    });
    await writeFile(file, damaged);
    const e = await refusal(new DestinationSetStore(dir).list());
    expect(e.code).toBe('config-corrupt');
    expect(await readFile(file, 'utf8')).toBe(damaged);
  });
});

describe('a service’s destinations', () => {
  const table: Record<string, string[]> = {
    'wiki.corp.example': ['198.51.100.7', '198.51.100.8'],
    'mail.corp.example': ['198.51.100.8', '2001:db8::25'],
    'v6only.corp.example': ['2001:db8::80'],
  };
  const resolve = async (d: string) => {
    const a = table[d];
    if (!a) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${d}`), { code: 'ENOTFOUND' });
    return a;
  };

  it('are its networks and its domains’ IPv4 addresses, each once', async () => {
    const out = await serviceDestinations(
      {
        name: 'office',
        cidrs: ['10.20.0.0/16', '2001:db8:1::/48'],
        domains: ['wiki.corp.example', 'mail.corp.example'],
      },
      resolve,
    );
    expect(out).toEqual(['10.20.0.0/16', '2001:db8:1::/48', '198.51.100.7/32', '198.51.100.8/32']);
  });

  it('are refused, naming no domain or address, when a domain has no IPv4 address', async () => {
    for (const domains of [['wiki.corp.example', 'gone.corp.example'], ['v6only.corp.example']]) {
      const e = await refusal(
        serviceDestinations({ name: 'office', cidrs: ['10.20.0.0/16'], domains }, resolve),
      );
      expect(e.code).toBe('destinations-unresolved');
      expect(e.message).toMatch(/1 of the \d domains of service office/);
      expect(e.message).not.toMatch(/corp\.example|198\.51|2001:db8|ENOTFOUND/);
    }
  });
});

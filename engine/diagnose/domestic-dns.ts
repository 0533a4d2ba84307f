// Whether domestic names stay domestic (domestic-dns): the system resolver is the engine's (a
// name of the engine's own resolver's zone, looked up as programs look names up, comes back with
// its address), and a name served at home (the control plane's for the home country, else a
// shipped one) resolves to addresses at home. The names are ours: no query of the user's is made
// or reported.
import { randomBytes } from 'node:crypto';

import { diagnosticCheck, type DiagnosticCheck } from '../../contracts/index.js';

export interface DomesticDnsDeps {
  /** A tunnel carries traffic now. */
  connected: boolean;
  /** The home country of the split by country (null: off or unknown). */
  home: string | null;
  /** Whether an address is at home (null with `home`). */
  isHome: ((address: string) => boolean) | null;
  /** The engine's resolver's address, and the zone it answers itself (null: the engine runs none). */
  resolver: { address: string; zone: string } | null;
  /** The name to check for the home country (null: none known for it). */
  name(home: string): string | null;
  /** The system resolver's IPv4 answer for a name; rejects when it gave none. */
  lookup(name: string, signal: AbortSignal): Promise<string[]>;
}

const RECONNECT =
  'disconnect and connect again so that Ferry points the system resolver at its own';

export async function checkDomesticDns(
  deps: DomesticDnsDeps,
  signal: AbortSignal,
): Promise<DiagnosticCheck> {
  if (!deps.connected)
    return diagnosticCheck('domestic-dns', 'skipped', 'applies while connected', null, {
      finding: 'not-connected',
    });
  if (deps.resolver === null)
    return diagnosticCheck(
      'domestic-dns',
      'skipped',
      'this engine runs without its own resolver',
      null,
      { finding: 'no-resolver' },
    );
  const answer = (name: string) =>
    deps.lookup(name, signal).catch(() => {
      signal.throwIfAborted();
      return [] as string[];
    });
  const own = await answer(`${randomBytes(6).toString('hex')}.${deps.resolver.zone}`);
  if (!own.includes(deps.resolver.address))
    return diagnosticCheck(
      'domestic-dns',
      'warning',
      'the system resolver is not Ferry’s: every name is asked abroad, domestic ones too',
      RECONNECT,
      { finding: 'not-ferry', action: { kind: 'reconnect' } },
    );
  if (deps.home === null || deps.isHome === null)
    return diagnosticCheck(
      'domestic-dns',
      'ok',
      'the system resolver is Ferry’s; with no home country every name goes through the tunnel',
      null,
      { finding: 'no-home' },
    );
  const name = deps.name(deps.home);
  if (name === null)
    return diagnosticCheck(
      'domestic-dns',
      'ok',
      `the system resolver is Ferry’s (no test name is known for ${deps.home})`,
      null,
      { finding: 'no-test-name', params: { home: deps.home } },
    );
  const addresses = await answer(name);
  if (addresses.length === 0)
    return diagnosticCheck(
      'domestic-dns',
      'warning',
      `the system resolver is Ferry’s, but ${name} did not resolve`,
      'check that this network’s own resolver answers (before connecting), then run netcli diagnose again',
      { finding: 'no-answer', params: { name }, action: { kind: 'rerun' } },
    );
  const isHome = deps.isHome;
  if (addresses.every((a) => isHome(a)))
    return diagnosticCheck(
      'domestic-dns',
      'ok',
      `the system resolver is Ferry’s, and ${name} resolves at home (${deps.home})`,
      null,
      { finding: 'at-home', params: { name, home: deps.home } },
    );
  return diagnosticCheck(
    'domestic-dns',
    'warning',
    `${name} resolves abroad: sites at home may be reached the long way`,
    'check that this network’s own resolver answered before connecting (Ferry asks it for names at home)',
    { finding: 'abroad', params: { name } },
  );
}

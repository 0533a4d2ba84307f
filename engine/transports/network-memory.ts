// What worked on which network: the transport autopilot's memory, so that the second connect on
// a network starts with the transport that got through there, and API access's (how the control
// plane was reached there). A network is named by an HMAC of
// its gateway's hardware address and its LAN prefix, keyed with a secret of this install kept in
// a file of its own: the memory holds no name, address or time, and without the secret its keys
// say nothing of the networks. Both files are 0600 in the state dir.
import { createHmac, randomBytes } from 'node:crypto';
import path from 'node:path';
import { z } from 'zod';

import { TRANSPORTS, type Transport } from '../../contracts/index.js';
import type { NetworkIdentity, NetworkIdentityReader } from '../../platform/os/network-identity.js';
import {
  readStateFile,
  settingsFileErrors,
  writeStateFile,
  type StateFileErrors,
} from '../state-dir.js';

/** What API access remembers of a network: the kind of method that reached the service. */
export const REMEMBERED_API = ['direct', 'relays', 'proxy'] as const;
export type RememberedApi = (typeof REMEMBERED_API)[number];

/** Networks remembered at most; the one used longest ago goes first. */
export const REMEMBERED_NETWORKS = 32;

const MEMORY_FILE = 'transports.json';
const SECRET_FILE = 'network-secret.json';

const Memory = z.strictObject({
  version: z.literal(1),
  /** Most recently used last. */
  networks: z
    .array(
      z.strictObject({
        network: z.string().regex(/^[0-9a-f]{32}$/),
        transport: z.enum(TRANSPORTS).optional(),
        /** How the control plane was reached there (a proxy by its kind: its URL is in the config). */
        api: z.enum(REMEMBERED_API).optional(),
        /** multihop auto: whether a connect there had to enter at an entry relay. */
        hop: z.enum(['direct', 'entry']).optional(),
      }),
    )
    .max(REMEMBERED_NETWORKS),
});
const Secret = z.strictObject({
  version: z.literal(1),
  secret: z.string().regex(/^[0-9a-f]{64}$/),
});

/** A settings file's failures, and those of one that others may read (the secret's key). */
const errors = (what: string): StateFileErrors => ({
  ...settingsFileErrors(what),
  insecure: {
    code: 'state-dir-insecure',
    message: (file, mode) =>
      `the ${what} file ${file} is open to other users (mode ${mode}): run chmod 600 ${file}`,
  },
});

/** The name of a network in the memory: HMAC-SHA256 of what identifies it, 128 bits in hex. */
export function networkKey(identity: NetworkIdentity, secret: Buffer): string {
  return createHmac('sha256', secret)
    .update(`ferry network v1\n${identity.gatewayMac ?? '-'}\n${identity.prefix}`)
    .digest('hex')
    .slice(0, 32);
}

/** The network the host is on (its key), and what worked there before. */
export interface NetworkHere {
  network: string | null;
  remembered: Transport | null;
}

export class NetworkMemory {
  #secret: Buffer | null = null;

  constructor(
    private readonly stateDir: string,
    private readonly identity: NetworkIdentityReader,
  ) {}

  /**
   * The network the host is on and what worked there, for a connect: never fails (a memory that
   * cannot be read is no memory: the autopilot starts from scratch, as on a new network).
   */
  async here(): Promise<NetworkHere> {
    try {
      const network = await this.currentNetwork();
      return { network, remembered: await this.recall(network) };
    } catch {
      return { network: null, remembered: null };
    }
  }

  /** The current network's key, or null when the host is on no network it can name. */
  async currentNetwork(): Promise<string | null> {
    const identity = await this.identity.read().catch(() => null);
    return identity ? networkKey(identity, await this.secret()) : null;
  }

  /** The transport that worked last on `network`, if any. */
  async recall(network: string | null): Promise<Transport | null> {
    if (network === null) return null;
    const memory = await this.load();
    return memory.networks.find((n) => n.network === network)?.transport ?? null;
  }

  /** How the control plane was reached last on `network`, if it was remembered. */
  async recallApi(network: string | null): Promise<RememberedApi | null> {
    if (network === null) return null;
    const memory = await this.load().catch(() => null);
    return memory?.networks.find((n) => n.network === network)?.api ?? null;
  }

  /** Remembers that `transport` worked on `network` (the most recent entry). */
  async remember(network: string | null, transport: Transport): Promise<void> {
    await this.update(network, { transport });
  }

  /** Remembers how the control plane was reached on `network`. */
  async rememberApi(network: string | null, api: RememberedApi): Promise<void> {
    await this.update(network, { api });
  }

  /** Whether a connect on `network` went through an entry relay (multihop auto). */
  async recallHop(network: string | null): Promise<'direct' | 'entry' | null> {
    if (network === null) return null;
    const memory = await this.load().catch(() => null);
    return memory?.networks.find((n) => n.network === network)?.hop ?? null;
  }

  async rememberHop(network: string | null, hop: 'direct' | 'entry'): Promise<void> {
    await this.update(network, { hop });
  }

  private async update(
    network: string | null,
    facts: { transport?: Transport; api?: RememberedApi; hop?: 'direct' | 'entry' },
  ): Promise<void> {
    if (network === null) return;
    const memory = await this.load();
    const before = memory.networks.find((n) => n.network === network);
    if (before && Object.entries(facts).every(([k, v]) => before[k as keyof typeof facts] === v))
      if (memory.networks.at(-1) === before) return;
    const others = memory.networks.filter((n) => n.network !== network);
    const networks = [...others, { ...before, network, ...facts }].slice(-REMEMBERED_NETWORKS);
    await writeStateFile(
      this.stateDir,
      path.join(this.stateDir, MEMORY_FILE),
      { version: 1, networks },
      errors('transport memory'),
    );
  }

  private async load(): Promise<z.output<typeof Memory>> {
    const file = path.join(this.stateDir, MEMORY_FILE);
    return (
      (await readStateFile(file, Memory, errors('transport memory'))) ?? {
        version: 1,
        networks: [],
      }
    );
  }

  private async secret(): Promise<Buffer> {
    if (this.#secret) return this.#secret;
    const file = path.join(this.stateDir, SECRET_FILE);
    const what = errors('network secret');
    const saved = await readStateFile(file, Secret, what);
    if (saved) return (this.#secret = Buffer.from(saved.secret, 'hex'));
    const secret = randomBytes(32);
    await writeStateFile(this.stateDir, file, { version: 1, secret: secret.toString('hex') }, what);
    return (this.#secret = secret);
  }
}

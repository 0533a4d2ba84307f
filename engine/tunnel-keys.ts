// The service tunnels' private keys (WireGuard and Ferry, a pair per tag), generated on this host
// and kept in tunnel-keys.json (0600) beside the device keys; only their public keys leave.
import path from 'node:path';
import { z } from 'zod';

import type { DevicePublicKeys, FerryKeys, KeyKind } from './key-store.js';
import {
  DEFAULT_STATE_DIR,
  readStateFile,
  writeStateFile,
  type StateFileErrors,
} from './state-dir.js';
import { generateWireguardPrivateKey, rawKey, wireguardPublicKey } from './wireguard-keys.js';
import { SerialQueue } from './serial-queue.js';

export const TUNNEL_KEYS_FILE = 'tunnel-keys.json';

const PrivateKey = z.string().refine((k) => rawKey(k) !== null);
const TunnelKeysFile = z.strictObject({
  version: z.literal(1),
  tunnels: z.record(
    z.string().regex(/^[a-z0-9][a-z0-9-]{0,31}$/),
    z.strictObject({ wireguard: PrivateKey, ferry: PrivateKey }),
  ),
});
type TunnelKeysFile = z.infer<typeof TunnelKeysFile>;

const TUNNEL_KEYS_FILE_ERRORS: StateFileErrors = {
  unreadable: {
    code: 'keys-unreadable',
    message: (file, errno) => `cannot read the tunnel key file ${file} (${errno})`,
  },
  corrupt: {
    code: 'keys-corrupt',
    message: (file) =>
      `the tunnel key file ${file} is damaged and was left as it is; moving it aside ` +
      'makes new keys for the service tunnels',
  },
  insecure: {
    code: 'keys-insecure',
    message: (file, mode) =>
      `the tunnel key file ${file} is open to other users (mode ${mode}): ` +
      `run chmod 600 ${file}, and stop and start the service tunnels for new keys`,
  },
  writeFailed: {
    code: 'keys-write-failed',
    message: (dir, errno) =>
      `cannot save the tunnel keys in ${dir} (${errno}); the previous keys are unchanged`,
  },
};

/** One tunnel's key pairs: the private keys for its tunnel, the public ones to register. */
export interface TunnelKeys {
  publicKeys: DevicePublicKeys;
  privateKey(kind: KeyKind): string;
}

/**
 * The key pairs of this host's service tunnels, by tag. A tag's pairs are made (and saved) the
 * first time it is asked for, before anything can register them, and kept until the tunnel is
 * gone from the control plane: a start after a crash finds the registration its own. A damaged
 * file is reported (keys-corrupt) and left alone.
 *
 * Private keys stay in this object (an ES private field: not in JSON.stringify or util.inspect,
 * nor in any message). Operations run one at a time. Throws FerryError: keys-corrupt,
 * keys-unreadable, keys-insecure, keys-write-failed, state-dir-unusable, state-dir-insecure.
 */
export class TunnelKeyStore {
  readonly file: string;
  #held: TunnelKeysFile['tunnels'] | null = null;
  readonly #serial = new SerialQueue();
  readonly #ferry: FerryKeys;

  constructor(opts: { stateDir?: string; ferryKeys: FerryKeys }) {
    this.file = path.join(opts.stateDir ?? DEFAULT_STATE_DIR, TUNNEL_KEYS_FILE);
    this.#ferry = opts.ferryKeys;
  }

  /** The tag's key pairs, made and saved on first use. */
  keysFor(tag: string): Promise<TunnelKeys> {
    return this.#serial.run(async () => {
      const held = await this.held();
      let pair = held[tag];
      if (!pair) {
        pair = {
          wireguard: generateWireguardPrivateKey(),
          ferry: this.#ferry.generatePrivateKey(),
        };
        await this.save({ ...held, [tag]: pair });
      }
      const privateKeys = { ...pair };
      return {
        publicKeys: {
          wireguard: wireguardPublicKey(privateKeys.wireguard),
          ferry: this.#ferry.publicKey(privateKeys.ferry),
        },
        privateKey: (kind: KeyKind) => privateKeys[kind],
      };
    });
  }

  /** The tags that have keys here (tunnels registered, or about to be). */
  tags(): Promise<string[]> {
    return this.#serial.run(async () => Object.keys(await this.held()).sort());
  }

  /** Erases the tag's keys (its tunnel is gone from the control plane). */
  forget(tag: string): Promise<void> {
    return this.#serial.run(async () => {
      const held = await this.held();
      if (!(tag in held)) return;
      const next = { ...held };
      delete next[tag];
      await this.save(next);
    });
  }

  /** Erases every tunnel's keys (the device signed out: its tunnels went with it). */
  forgetAll(): Promise<void> {
    return this.#serial.run(async () => {
      if (Object.keys(await this.held()).length > 0) await this.save({});
    });
  }

  private async held(): Promise<TunnelKeysFile['tunnels']> {
    this.#held ??=
      (await readStateFile(this.file, TunnelKeysFile, TUNNEL_KEYS_FILE_ERRORS))?.tunnels ?? {};
    return this.#held;
  }

  /** Saves the keys, and only then makes them the ones in use. */
  private async save(tunnels: TunnelKeysFile['tunnels']): Promise<void> {
    const file: TunnelKeysFile = { version: 1, tunnels };
    await writeStateFile(path.dirname(this.file), this.file, file, TUNNEL_KEYS_FILE_ERRORS);
    this.#held = tunnels;
  }
}

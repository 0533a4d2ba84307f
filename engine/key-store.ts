// The device's private keys (WireGuard and Ferry), generated on this host and kept in keys.json
// (0600) beside the configuration; only their public keys ever leave. Rotation keeps the old
// pair until the control plane confirms the new one.
import path from 'node:path';
import { z } from 'zod';

import type { DataPlane } from '../native/index.js';
import { FerryError } from './errors.js';
import {
  corruptStateFile,
  DEFAULT_STATE_DIR,
  ensureStateDir,
  readStateFile,
  writeFileAtomic,
  writeStateFile,
  type StateFileErrors,
} from './state-dir.js';
import { generateWireguardPrivateKey, rawKey, wireguardPublicKey } from './wireguard-keys.js';
import { SerialQueue } from './serial-queue.js';

export const KEYS_FILE = 'keys.json';
export const KEY_KINDS = ['wireguard', 'ferry'] as const;
export type KeyKind = (typeof KEY_KINDS)[number];

/** The public keys the control plane registers (`wireguard_public_key`, `ferry_public_key`). */
export type DevicePublicKeys = Record<KeyKind, string>;

/** Where the Ferry keys come from: the data plane's own key code (the fake in tests). */
export type FerryKeys = Pick<DataPlane, 'generatePrivateKey' | 'publicKey'>;

const PrivateKey = z.string().refine((k) => rawKey(k) !== null);
const Slot = z.strictObject({ private_key: PrivateKey, next_private_key: PrivateKey.optional() });
const KeysFile = z.strictObject({ version: z.literal(1), wireguard: Slot, ferry: Slot });
type KeysFile = z.infer<typeof KeysFile>;

const KEYS_FILE_ERRORS: StateFileErrors = {
  unreadable: {
    code: 'keys-unreadable',
    message: (file, errno) => `cannot read the key file ${file} (${errno})`,
  },
  corrupt: {
    code: 'keys-corrupt',
    message: (file) =>
      `the key file ${file} is damaged and was left as it is; moving it aside makes new ` +
      'device keys (this device then has to sign in again)',
  },
  insecure: {
    code: 'keys-insecure',
    message: (file, mode) =>
      `the key file ${file} is open to other users (mode ${mode}): ` +
      `run chmod 600 ${file}, and consider the keys exposed (rotate them)`,
  },
  writeFailed: {
    code: 'keys-write-failed',
    message: (dir, errno) =>
      `cannot save the device keys in ${dir} (${errno}); the previous keys are unchanged`,
  },
};

/** A key of one kind: in use, and the one waiting for the control plane's confirmation. */
interface Held {
  privateKey: string;
  publicKey: string;
  next: { privateKey: string; publicKey: string } | null;
}
type HeldKeys = Record<KeyKind, Held>;

/**
 * The device's two key pairs. The first use generates both (WireGuard from node:crypto, Ferry
 * through the data plane) and saves them before anything can register them, so that a key the
 * control plane knows is never lost to a failed write. A damaged key file is reported
 * (`keys-corrupt`) and left alone: replacing it would silently make this a new device.
 *
 * Private keys stay inside this object (an ES private field: not in JSON.stringify or
 * util.inspect, nor in any error message); `privateKey()` hands one to the tunnel manager.
 * Operations run one at a time. One engine host owns a state directory.
 *
 * Every method throws FerryError: keys-corrupt, keys-unreadable, keys-insecure,
 * keys-write-failed, key-rotation-mismatch, state-dir-unusable, state-dir-insecure.
 */
export class KeyStore {
  readonly file: string;
  readonly stateDir: string;
  #held: HeldKeys | null = null;
  readonly #serial = new SerialQueue();
  readonly #ferry: FerryKeys;
  readonly #writeFile: typeof writeFileAtomic;

  constructor(opts: {
    stateDir?: string;
    ferryKeys: FerryKeys;
    /** Replaces the atomic write (tests make it fail). */
    writeFile?: typeof writeFileAtomic;
  }) {
    this.stateDir = opts.stateDir ?? DEFAULT_STATE_DIR;
    this.file = path.join(this.stateDir, KEYS_FILE);
    this.#ferry = opts.ferryKeys;
    this.#writeFile = opts.writeFile ?? writeFileAtomic;
  }

  /** The public keys in use, creating the key pairs on first use. */
  publicKeys(): Promise<DevicePublicKeys> {
    return this.#serial.run(async () => {
      const h = await this.held();
      return { wireguard: h.wireguard.publicKey, ferry: h.ferry.publicKey };
    });
  }

  /** The private key in use, for this host's tunnel only. */
  privateKey(kind: KeyKind): Promise<string> {
    return this.#serial.run(async () => (await this.held())[kind].privateKey);
  }

  /** The new public keys waiting for confirmation, or null when no rotation is under way. */
  pendingRotation(): Promise<Partial<DevicePublicKeys> | null> {
    return this.#serial.run(async () => pending(await this.held()));
  }

  /**
   * Starts a rotation of `kinds`: a new pair of each, saved beside the old one, whose public
   * keys the caller registers (PUT /devices/:id/keys). A rotation already under way is
   * continued, not restarted: the control plane may have received its keys before a crash.
   */
  beginRotation(kinds: readonly KeyKind[] = KEY_KINDS): Promise<Partial<DevicePublicKeys>> {
    return this.#serial.run(async () => {
      const h = await this.held();
      const next = copy(h);
      let fresh = false;
      for (const kind of kinds) {
        if (next[kind].next) continue;
        const privateKey = this.generate(kind);
        next[kind].next = { privateKey, publicKey: this.derive(kind, privateKey) };
        fresh = true;
      }
      if (fresh) await this.save(next);
      const out: Partial<DevicePublicKeys> = {};
      for (const kind of kinds) out[kind] = next[kind].next!.publicKey;
      return out;
    });
  }

  /**
   * The control plane now holds `confirmed`: each of those new pairs replaces the old one,
   * which is erased. Confirming keys already in use is a no-op (a retry after a crash);
   * confirming keys that are neither in use nor pending is refused (key-rotation-mismatch).
   */
  confirmRotation(confirmed: Partial<DevicePublicKeys>): Promise<DevicePublicKeys> {
    return this.#serial.run(async () => {
      const h = await this.held();
      const next = copy(h);
      let promoted = false;
      for (const kind of KEY_KINDS) {
        const publicKey = confirmed[kind];
        if (publicKey === undefined || publicKey === h[kind].publicKey) continue;
        const waiting = h[kind].next;
        if (!waiting || waiting.publicKey !== publicKey) {
          throw new FerryError(
            'key-rotation-mismatch',
            `the confirmed ${kind} key is not the one this device is rotating to`,
          );
        }
        next[kind] = { ...waiting, next: null };
        promoted = true;
      }
      if (promoted) await this.save(next);
      return { wireguard: next.wireguard.publicKey, ferry: next.ferry.publicKey };
    });
  }

  /**
   * New key pairs for a new sign-in (a new device on the control plane): the old pairs and any
   * rotation under way are erased. Returns the new public keys.
   */
  renew(): Promise<DevicePublicKeys> {
    return this.#serial.run(async () => {
      await ensureStateDir(this.stateDir);
      const fresh = {} as HeldKeys;
      for (const kind of KEY_KINDS) {
        const privateKey = this.generate(kind);
        fresh[kind] = { privateKey, publicKey: this.derive(kind, privateKey), next: null };
      }
      await this.save(fresh);
      return { wireguard: fresh.wireguard.publicKey, ferry: fresh.ferry.publicKey };
    });
  }

  /** Drops the new pairs of `kinds` (the control plane refused them); the old ones stay. */
  abandonRotation(kinds: readonly KeyKind[] = KEY_KINDS): Promise<void> {
    return this.#serial.run(async () => {
      const h = await this.held();
      if (!kinds.some((k) => h[k].next)) return;
      const next = copy(h);
      for (const kind of kinds) next[kind].next = null;
      await this.save(next);
    });
  }

  private generate(kind: KeyKind): string {
    return kind === 'wireguard' ? generateWireguardPrivateKey() : this.#ferry.generatePrivateKey();
  }

  private derive(kind: KeyKind, privateKey: string): string {
    return kind === 'wireguard'
      ? wireguardPublicKey(privateKey)
      : this.#ferry.publicKey(privateKey);
  }

  private async held(): Promise<HeldKeys> {
    if (this.#held) return this.#held;
    await ensureStateDir(this.stateDir);
    const file = await readStateFile(this.file, KeysFile, KEYS_FILE_ERRORS);
    if (file) {
      this.#held = this.fromFile(file);
      return this.#held;
    }
    const fresh = {} as HeldKeys;
    for (const kind of KEY_KINDS) {
      const privateKey = this.generate(kind);
      fresh[kind] = { privateKey, publicKey: this.derive(kind, privateKey), next: null };
    }
    await this.save(fresh);
    return fresh;
  }

  private fromFile(file: KeysFile): HeldKeys {
    const out = {} as HeldKeys;
    for (const kind of KEY_KINDS) {
      const slot = file[kind];
      try {
        out[kind] = {
          privateKey: slot.private_key,
          publicKey: this.derive(kind, slot.private_key),
          next: slot.next_private_key
            ? {
                privateKey: slot.next_private_key,
                publicKey: this.derive(kind, slot.next_private_key),
              }
            : null,
        };
      } catch {
        throw corruptStateFile(KEYS_FILE_ERRORS, this.file);
      }
    }
    return out;
  }

  /** Saves `held` and only then makes it the keys in use. */
  private async save(held: HeldKeys): Promise<void> {
    const file: KeysFile = {
      version: 1,
      wireguard: slot(held.wireguard),
      ferry: slot(held.ferry),
    };
    await writeStateFile(this.stateDir, this.file, file, KEYS_FILE_ERRORS, this.#writeFile);
    this.#held = held;
  }
}

function slot(h: Held): KeysFile['wireguard'] {
  return h.next
    ? { private_key: h.privateKey, next_private_key: h.next.privateKey }
    : { private_key: h.privateKey };
}

function copy(h: HeldKeys): HeldKeys {
  return { wireguard: { ...h.wireguard }, ferry: { ...h.ferry } };
}

function pending(h: HeldKeys): Partial<DevicePublicKeys> | null {
  const out: Partial<DevicePublicKeys> = {};
  for (const kind of KEY_KINDS) if (h[kind].next) out[kind] = h[kind].next!.publicKey;
  return Object.keys(out).length > 0 ? out : null;
}

/**
 * A whole rotation: begin (or continue) one, have `register` send the new public keys to the
 * control plane, and confirm them once it answers. When `register` fails the new pairs stay
 * pending, so a retry sends the same keys (the control plane may have taken them before the
 * failure); the caller abandons them when the control plane refused them for good.
 */
export async function rotateDeviceKeys(
  store: KeyStore,
  register: (keys: Partial<DevicePublicKeys>) => Promise<void>,
  kinds: readonly KeyKind[] = KEY_KINDS,
): Promise<DevicePublicKeys> {
  const next = await store.beginRotation(kinds);
  await register(next);
  return store.confirmRotation(next);
}

// A signed-in device manages its account's devices: list, rename, revoke, rotate keys.
import type { Device } from '../../contracts/index.js';
import type { AuthInvalidation } from './device-auth-cache.js';
import { fail, ok, type Result } from './errors.js';
import type { EventBus } from './event-bus.js';
import type { LiveSessions } from './live-sessions.js';
import type { PeerFeed } from './peer-feed.js';
import type { DeviceAuth, DevicesStore } from './ports/devices.js';
import type { KeyField } from './ports/key-holders.js';
import type { Transactions } from './ports/stores.js';
import { claimKeys } from './public-keys.js';
import { deviceView } from './views.js';

const notFound = () => fail('not-found', 'no such device on this account');

export interface DeviceDeps {
  transactions: Transactions;
  devices: DevicesStore;
  feed: PeerFeed;
  live: LiveSessions;
  bus: EventBus;
  auth: AuthInvalidation;
}

export class DeviceService {
  constructor(private readonly d: DeviceDeps) {}

  async list(auth: DeviceAuth): Promise<Device[]> {
    return (await this.d.devices.listForAccount(auth.accountId)).map((r) =>
      deviceView(r, auth.deviceId),
    );
  }

  async get(auth: DeviceAuth, id: string): Promise<Result<Device>> {
    const row = await this.d.devices.get(auth.accountId, id);
    return row ? ok(deviceView(row, auth.deviceId)) : notFound();
  }

  async rename(auth: DeviceAuth, id: string, name: string): Promise<Result<Device>> {
    if (!(await this.d.devices.rename(auth.accountId, id, name))) return notFound();
    return this.get(auth, id);
  }

  /**
   * The device's token stops working at once and its peers leave every node: its own and its
   * tunnels', whose sessions end with it.
   */
  async revoke(auth: DeviceAuth, id: string): Promise<Result<void>> {
    let revoked: { version: number; tunnelIds: string[] } | undefined;
    try {
      revoked = await this.d.transactions.transaction(async (tx) => {
        if (!(await tx.devices.get(auth.accountId, id))) return undefined;
        const tunnelIds = await tx.tunnels.deleteForDevice(id);
        if (!(await tx.devices.delete(auth.accountId, id))) return undefined;
        return { version: await this.d.feed.record(tx, [id, ...tunnelIds]), tunnelIds };
      });
    } catch (e) {
      // A failed commit may still have committed: drop the account's cached tokens anyway.
      this.d.auth.forgetAccount(auth.accountId);
      throw e;
    }
    if (revoked === undefined) return notFound();
    // Before anything else is awaited: from here on this instance refuses the token, and a
    // connect in flight learns of it (other instances hear it from the bus event below).
    this.d.auth.forgetDevice(id);
    await this.d.live.delete(id);
    for (const tunnelId of revoked.tunnelIds) await this.d.live.delete(tunnelId);
    await this.d.feed.announce(revoked.version);
    await this.d.bus.publish({ kind: 'device', deviceId: id, change: 'revoked' });
    return ok(undefined);
  }

  async rotateKeys(
    auth: DeviceAuth,
    id: string,
    keys: { wireguard_public_key?: string | undefined; ferry_public_key?: string | undefined },
  ): Promise<Result<Device>> {
    const outcome = await this.d.transactions.transaction(async (tx) => {
      const row = await tx.devices.get(auth.accountId, id);
      if (!row) return notFound();
      const changed = (['wireguard_public_key', 'ferry_public_key'] as const).filter(
        (f: KeyField) => keys[f] !== undefined,
      );
      const claimed = await claimKeys(tx.keys, {
        owner: { kind: 'device', id },
        after: {
          wireguard_public_key: keys.wireguard_public_key ?? row.wireguard_public_key,
          ferry_public_key: keys.ferry_public_key ?? row.ferry_public_key,
        },
        changed,
        fieldPrefix: '',
      });
      if (!claimed.ok) return claimed;
      await tx.devices.setKeys(id, keys);
      return ok(await this.d.feed.record(tx, [id]));
    });
    if (!outcome.ok) return outcome;
    await this.d.feed.announce(outcome.value);
    await this.d.bus.publish({ kind: 'device', deviceId: id, change: 'keys' });
    return this.get(auth, id);
  }
}

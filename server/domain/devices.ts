// A signed-in device manages its account's devices: list, rename, revoke, rotate keys.
import type { Device } from '../../contracts/index.js';
import type { DeviceAuth, DevicesRepo } from '../store/devices-repo.js';
import type { KeyField, PublicKeysRepo } from '../store/public-keys-repo.js';
import type { Db } from '../store/schema.js';
import type { TunnelsRepo } from '../store/tunnels-repo.js';
import type { AuthInvalidation } from './device-auth-cache.js';
import { fail, ok, type Result } from './errors.js';
import type { EventBus } from './event-bus.js';
import type { LiveSessions } from './live-sessions.js';
import type { PeerFeed } from './peer-feed.js';
import { claimKeys } from './public-keys.js';
import { deviceView } from './views.js';

const notFound = () => fail('not-found', 'no such device on this account');

export class DeviceService {
  constructor(
    private readonly db: Db,
    private readonly devices: DevicesRepo,
    private readonly keys: PublicKeysRepo,
    private readonly feed: PeerFeed,
    private readonly live: LiveSessions,
    private readonly bus: EventBus,
    private readonly auth: AuthInvalidation,
    private readonly tunnels: TunnelsRepo,
  ) {}

  async list(auth: DeviceAuth): Promise<Device[]> {
    return (await this.devices.listForAccount(auth.accountId)).map((r) =>
      deviceView(r, auth.deviceId),
    );
  }

  async get(auth: DeviceAuth, id: string): Promise<Result<Device>> {
    const row = await this.devices.get(auth.accountId, id);
    return row ? ok(deviceView(row, auth.deviceId)) : notFound();
  }

  async rename(auth: DeviceAuth, id: string, name: string): Promise<Result<Device>> {
    if (!(await this.devices.rename(auth.accountId, id, name))) return notFound();
    return this.get(auth, id);
  }

  /**
   * The device's token stops working at once and its peers leave every node: its own and its
   * tunnels', whose sessions end with it.
   */
  async revoke(auth: DeviceAuth, id: string): Promise<Result<void>> {
    let revoked: { version: number; tunnelIds: string[] } | undefined;
    try {
      revoked = await this.db.transaction().execute(async (trx) => {
        if (!(await this.devices.get(auth.accountId, id, trx))) return undefined;
        const tunnelIds = await this.tunnels.deleteForDevice(trx, id);
        if (!(await this.devices.delete(trx, auth.accountId, id))) return undefined;
        return { version: await this.feed.record(trx, [id, ...tunnelIds]), tunnelIds };
      });
    } catch (e) {
      // A failed commit may still have committed: drop the account's cached tokens anyway.
      this.auth.forgetAccount(auth.accountId);
      throw e;
    }
    if (revoked === undefined) return notFound();
    // Before anything else is awaited: from here on this instance refuses the token, and a
    // connect in flight learns of it (other instances hear it from the bus event below).
    this.auth.forgetDevice(id);
    await this.live.delete(id);
    for (const tunnelId of revoked.tunnelIds) await this.live.delete(tunnelId);
    await this.feed.announce(revoked.version);
    await this.bus.publish({ kind: 'device', deviceId: id, change: 'revoked' });
    return ok(undefined);
  }

  async rotateKeys(
    auth: DeviceAuth,
    id: string,
    keys: { wireguard_public_key?: string | undefined; ferry_public_key?: string | undefined },
  ): Promise<Result<Device>> {
    const outcome = await this.db.transaction().execute(async (trx) => {
      const row = await this.devices.get(auth.accountId, id, trx);
      if (!row) return notFound();
      const changed = (['wireguard_public_key', 'ferry_public_key'] as const).filter(
        (f: KeyField) => keys[f] !== undefined,
      );
      const claimed = await claimKeys(this.keys, trx, {
        owner: { kind: 'device', id },
        after: {
          wireguard_public_key: keys.wireguard_public_key ?? row.wireguard_public_key,
          ferry_public_key: keys.ferry_public_key ?? row.ferry_public_key,
        },
        changed,
        fieldPrefix: '',
      });
      if (!claimed.ok) return claimed;
      await this.devices.setKeys(trx, id, keys);
      return ok(await this.feed.record(trx, [id]));
    });
    if (!outcome.ok) return outcome;
    await this.feed.announce(outcome.value);
    await this.bus.publish({ kind: 'device', deviceId: id, change: 'keys' });
    return this.get(auth, id);
  }
}

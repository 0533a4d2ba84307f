// A device's extra tunnels (service tunnels): registered with their own keys and stable
// addresses, peers of their own on every node the plan allows, and not device slots.
import type { z } from 'zod';
import {
  TUNNELS_PER_DEVICE,
  type CreateTunnelRequest,
  type DeviceTunnel,
} from '../../contracts/index.js';
import { tunnelAddresses } from './addresses.js';
import { fail, ok, type Result } from './errors.js';
import type { EventBus } from './event-bus.js';
import type { LiveSessions } from './live-sessions.js';
import type { PeerFeed } from './peer-feed.js';
import type { DeviceAuth, DevicesStore } from './ports/devices.js';
import type { Transactions } from './ports/stores.js';
import type { TunnelRow, TunnelsStore } from './ports/tunnels.js';
import { claimKeys } from './public-keys.js';
import { newId } from './secrets.js';

const noDevice = () => fail('not-found', 'no such device on this account');

export function tunnelView(row: TunnelRow): DeviceTunnel {
  return {
    id: row.id,
    device_id: row.device_id,
    tag: row.tag,
    wireguard_public_key: row.wireguard_public_key,
    ferry_public_key: row.ferry_public_key,
    tunnel_ipv4: row.tunnel_ipv4,
    tunnel_ipv6: row.tunnel_ipv6,
  };
}

export interface DeviceTunnelDeps {
  transactions: Transactions;
  devices: DevicesStore;
  tunnels: TunnelsStore;
  feed: PeerFeed;
  live: LiveSessions;
  bus: EventBus;
}

export class DeviceTunnelService {
  constructor(private readonly d: DeviceTunnelDeps) {}

  /**
   * Registers a tunnel of one of the account's devices: refused when the device has a tunnel of
   * that tag (tunnel-exists) or its TUNNELS_PER_DEVICE (tunnel-limit), or a key is anyone else's.
   */
  async create(
    auth: DeviceAuth,
    deviceId: string,
    req: z.output<typeof CreateTunnelRequest>,
  ): Promise<Result<DeviceTunnel>> {
    const id = newId('tun');
    const outcome = await this.d.transactions.transaction(async (tx) => {
      if (!(await tx.devices.get(auth.accountId, deviceId))) return noDevice();
      await tx.tunnels.lockDevice(deviceId);
      const existing = await tx.tunnels.listForDevice(deviceId);
      if (existing.some((t) => t.tag === req.tag)) {
        return fail(
          'tunnel-exists',
          `the device has a tunnel tagged ${req.tag}; remove it first (DELETE /devices/:id/tunnels/${req.tag}) or choose another tag`,
        );
      }
      if (existing.length >= TUNNELS_PER_DEVICE) {
        return fail(
          'tunnel-limit',
          `a device may hold ${TUNNELS_PER_DEVICE} tunnels besides its own; remove one first (its tags: ${existing.map((t) => t.tag).join(', ')})`,
          { extra: { tunnel_limit: TUNNELS_PER_DEVICE, tunnels: existing.map((t) => t.tag) } },
        );
      }
      const claimed = await claimKeys(tx.keys, {
        owner: { kind: 'tunnel', id },
        after: {
          wireguard_public_key: req.wireguard_public_key,
          ferry_public_key: req.ferry_public_key,
        },
        changed: ['wireguard_public_key', 'ferry_public_key'],
        fieldPrefix: '',
      });
      if (!claimed.ok) return claimed;
      // From the devices' own sequence: an address no device or tunnel ever had.
      const addresses = tunnelAddresses(await tx.tunnels.nextAddressSeq());
      const row: TunnelRow = {
        id,
        device_id: deviceId,
        tag: req.tag,
        wireguard_public_key: req.wireguard_public_key,
        ferry_public_key: req.ferry_public_key,
        tunnel_ipv4: addresses.ipv4,
        tunnel_ipv6: addresses.ipv6,
      };
      await tx.tunnels.insert(row);
      return ok({ row, version: await this.d.feed.record(tx, [id]) });
    });
    if (!outcome.ok) return outcome;
    await this.d.feed.announce(outcome.value.version);
    return ok(tunnelView(outcome.value.row));
  }

  async list(auth: DeviceAuth, deviceId: string): Promise<Result<{ tunnels: DeviceTunnel[] }>> {
    if (!(await this.d.devices.get(auth.accountId, deviceId))) return noDevice();
    return ok({ tunnels: (await this.d.tunnels.listForDevice(deviceId)).map(tunnelView) });
  }

  /** The tunnel's session ends and its peers leave every node. */
  async remove(auth: DeviceAuth, deviceId: string, tag: string): Promise<Result<void>> {
    const outcome = await this.d.transactions.transaction(async (tx) => {
      if (!(await tx.devices.get(auth.accountId, deviceId))) return noDevice();
      const id = await tx.tunnels.delete(deviceId, tag);
      if (id === undefined) return fail('not-found', `the device has no tunnel tagged ${tag}`);
      return ok({ id, version: await this.d.feed.record(tx, [id]) });
    });
    if (!outcome.ok) return outcome;
    await this.endSessions([outcome.value.id]);
    await this.d.feed.announce(outcome.value.version);
    return ok(undefined);
  }

  /** The calling device's own tunnel of that tag (connect starts its session). */
  find(auth: DeviceAuth, tag: string): Promise<TunnelRow | undefined> {
    return this.d.tunnels.get(auth.deviceId, tag);
  }

  /** Ends the live sessions of tunnels that are gone. */
  async endSessions(ids: readonly string[]): Promise<void> {
    for (const id of ids) {
      if (await this.d.live.delete(id))
        await this.d.bus.publish({ kind: 'device', deviceId: id, change: 'status' });
    }
  }
}

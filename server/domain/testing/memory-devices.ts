// Devices and the holders of public keys in memory (test code): the domain's DevicesStore and
// KeyHoldersStore without SQL.
import type {
  DeviceAuth,
  DeviceRow,
  DevicesStore,
  FeedPeerRow,
  NewDevice,
} from '../ports/devices.js';
import type { KeyField, KeyHolder, KeyHoldersStore } from '../ports/key-holders.js';
import { byKey, copy, refuseDuplicate, type TablesHolder } from './memory-tables.js';

/** A device as read back: everything but its token hash. */
function shown(row: DeviceRow & { token_hash: string }): DeviceRow {
  const { token_hash: _hidden, ...device } = row;
  return device;
}

export class MemoryDevices implements DevicesStore {
  constructor(private readonly h: TablesHolder) {}

  private get rows() {
    return this.h.t.devices;
  }

  async countForAccount(accountId: number): Promise<number> {
    return this.rows.filter((d) => d.account_id === accountId).length;
  }

  async insert(device: NewDevice): Promise<number> {
    if (!this.h.t.accounts.some((a) => a.id === device.account_id))
      throw new Error('foreign key constraint failed: devices.account_id');
    const seq = this.h.t.lastDeviceSeq + 1;
    // Placeholders unique per device until the addresses are known from the sequence.
    const row = {
      ...device,
      seq,
      tunnel_ipv4: `pending:${device.id}`,
      tunnel_ipv6: `pending:${device.id}`,
    };
    refuseDuplicate(this.rows, row, [
      'id',
      'wireguard_public_key',
      'ferry_public_key',
      'token_hash',
    ]);
    this.h.t.lastDeviceSeq = seq;
    this.rows.push(row);
    return seq;
  }

  async setAddresses(id: string, ipv4: string, ipv6: string): Promise<void> {
    const row = this.rows.find((d) => d.id === id);
    if (!row) return;
    const others = this.rows.filter((d) => d !== row);
    refuseDuplicate(others, { ...row, tunnel_ipv4: ipv4, tunnel_ipv6: ipv6 }, [
      'tunnel_ipv4',
      'tunnel_ipv6',
    ]);
    row.tunnel_ipv4 = ipv4;
    row.tunnel_ipv6 = ipv6;
  }

  async listForAccount(accountId: number): Promise<DeviceRow[]> {
    return this.rows
      .filter((d) => d.account_id === accountId)
      .sort(byKey((d) => d.seq))
      .map(shown);
  }

  async get(accountId: number, id: string): Promise<DeviceRow | undefined> {
    const row = this.rows.find((d) => d.account_id === accountId && d.id === id);
    return row && shown(row);
  }

  async rename(accountId: number, id: string, name: string): Promise<boolean> {
    const row = this.rows.find((d) => d.account_id === accountId && d.id === id);
    if (row) row.name = name;
    return row !== undefined;
  }

  async delete(accountId: number, id: string): Promise<boolean> {
    const at = this.rows.findIndex((d) => d.account_id === accountId && d.id === id);
    if (at < 0) return false;
    this.rows.splice(at, 1);
    // As the foreign key's cascade: a device's tunnels go with it.
    this.h.t.tunnels = this.h.t.tunnels.filter((t) => t.device_id !== id);
    return true;
  }

  async setKeys(
    id: string,
    keys: { wireguard_public_key?: string | undefined; ferry_public_key?: string | undefined },
  ): Promise<void> {
    const row = this.rows.find((d) => d.id === id);
    if (!row) return;
    const next = {
      ...row,
      wireguard_public_key: keys.wireguard_public_key || row.wireguard_public_key,
      ferry_public_key: keys.ferry_public_key || row.ferry_public_key,
    };
    refuseDuplicate(
      this.rows.filter((d) => d !== row),
      next,
      ['wireguard_public_key', 'ferry_public_key'],
    );
    Object.assign(row, next);
  }

  async authByTokenHash(tokenHash: string): Promise<DeviceAuth | undefined> {
    const row = this.rows.find((d) => d.token_hash === tokenHash);
    const account = row && this.h.t.accounts.find((a) => a.id === row.account_id);
    if (!row || !account) return undefined;
    return {
      deviceId: row.id,
      accountId: account.id,
      accountNumber: account.number,
      plan: account.plan,
      tunnelIpv4: row.tunnel_ipv4,
      tunnelIpv6: row.tunnel_ipv6,
    };
  }

  async feedRows(ids: readonly string[], period: string): Promise<FeedPeerRow[]> {
    const wanted = new Set(ids);
    return this.peers(period).filter((p) => wanted.has(p.id));
  }

  async allFeedRows(period: string): Promise<FeedPeerRow[]> {
    return this.peers(period);
  }

  async peerIdsForAccount(accountId: number): Promise<string[]> {
    const devices = (await this.listForAccount(accountId)).map((d) => d.id);
    const tunnels = this.h.t.tunnels.filter((t) => devices.includes(t.device_id)).map((t) => t.id);
    return [...devices, ...tunnels];
  }

  /** The devices by sequence, then their tunnels by id, each with its account's plan and usage. */
  private peers(period: string): FeedPeerRow[] {
    const t = this.h.t;
    const accountOf = (accountId: number) => {
      const account = t.accounts.find((a) => a.id === accountId)!;
      return { plan: account.plan, usage_bytes: t.usage[`${accountId}|${period}`] ?? 0 };
    };
    const peer = (
      id: string,
      device: DeviceRow,
      keys: Omit<FeedPeerRow, 'id' | 'account_id' | 'plan' | 'usage_bytes'>,
    ): FeedPeerRow => ({
      id,
      account_id: device.account_id,
      ...keys,
      ...accountOf(device.account_id),
    });
    const fields = (r: DeviceRow | (typeof t.tunnels)[number]) => ({
      wireguard_public_key: r.wireguard_public_key,
      ferry_public_key: r.ferry_public_key,
      tunnel_ipv4: r.tunnel_ipv4,
      tunnel_ipv6: r.tunnel_ipv6,
    });
    const devices = [...t.devices].sort(byKey((d) => d.seq));
    const tunnels = [...t.tunnels].sort(byKey((x) => x.id));
    return [
      ...devices.map((d) => peer(d.id, d, fields(d))),
      ...tunnels.flatMap((x) => {
        const device = t.devices.find((d) => d.id === x.device_id);
        return device ? [peer(x.id, device, fields(x))] : [];
      }),
    ];
  }
}

export class MemoryKeyHolders implements KeyHoldersStore {
  constructor(private readonly h: TablesHolder) {}

  /** Transactions run one at a time here: nothing to serialise. */
  async lock(_keys: readonly string[]): Promise<void> {}

  async holders(keys: readonly string[]): Promise<KeyHolder[]> {
    const wanted = new Set(keys);
    const out: KeyHolder[] = [];
    const collect = (
      kind: KeyHolder['kind'],
      rows: readonly {
        id: string;
        wireguard_public_key: string | null;
        ferry_public_key: string | null;
      }[],
    ) => {
      for (const row of rows) {
        for (const field of ['wireguard_public_key', 'ferry_public_key'] as KeyField[]) {
          const key = row[field];
          if (key !== null && wanted.has(key)) out.push({ kind, id: row.id, field, key });
        }
      }
    };
    collect('device', this.h.t.devices);
    collect('tunnel', this.h.t.tunnels);
    collect('node', this.h.t.nodes);
    return out.map(copy);
  }
}

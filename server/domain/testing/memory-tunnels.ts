// Device tunnels in memory (test code): the domain's TunnelsStore without SQL.
import type { TunnelRow, TunnelsStore } from '../ports/tunnels.js';
import { byKey, copy, refuseDuplicate, type TablesHolder } from './memory-tables.js';

export class MemoryTunnels implements TunnelsStore {
  constructor(private readonly h: TablesHolder) {}

  /** As SQLite's AUTOINCREMENT counter: the number is taken whether or not a device uses it. */
  async nextAddressSeq(): Promise<number> {
    if (this.h.t.lastDeviceSeq === 0)
      throw new Error('the devices table has no address sequence yet');
    return ++this.h.t.lastDeviceSeq;
  }

  /** Transactions run one at a time here: nothing to serialise. */
  async lockDevice(_deviceId: string): Promise<void> {}

  async insert(row: TunnelRow): Promise<void> {
    const t = this.h.t;
    if (!t.devices.some((d) => d.id === row.device_id))
      throw new Error('foreign key constraint failed: device_tunnels.device_id');
    if (t.tunnels.some((x) => x.device_id === row.device_id && x.tag === row.tag))
      throw new Error('unique constraint failed: device_tunnels.device_id, device_tunnels.tag');
    refuseDuplicate(t.tunnels, row, [
      'id',
      'wireguard_public_key',
      'ferry_public_key',
      'tunnel_ipv4',
      'tunnel_ipv6',
    ]);
    t.tunnels.push(copy(row));
  }

  async listForDevice(deviceId: string): Promise<TunnelRow[]> {
    return this.h.t.tunnels
      .filter((x) => x.device_id === deviceId)
      .sort(byKey((x) => x.tag))
      .map(copy);
  }

  async get(deviceId: string, tag: string): Promise<TunnelRow | undefined> {
    const row = this.h.t.tunnels.find((x) => x.device_id === deviceId && x.tag === tag);
    return row && copy(row);
  }

  async delete(deviceId: string, tag: string): Promise<string | undefined> {
    const row = await this.get(deviceId, tag);
    if (!row) return undefined;
    this.h.t.tunnels = this.h.t.tunnels.filter((x) => x.id !== row.id);
    return row.id;
  }

  async deleteForDevice(deviceId: string): Promise<string[]> {
    const ids = (await this.listForDevice(deviceId)).map((x) => x.id);
    this.h.t.tunnels = this.h.t.tunnels.filter((x) => x.device_id !== deviceId);
    return ids;
  }
}

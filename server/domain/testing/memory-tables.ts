// The tables of the domain's in-memory store (test code): what the SQL schema holds, as plain
// rows, and the holder that a rolled-back transaction puts its copy back into.
import type { AccountRow } from '../ports/accounts.js';
import type { DeviceRow } from '../ports/devices.js';
import type { NodePlatformRow } from '../ports/node-platforms.js';
import type { NodeRow, RegionRow } from '../ports/regions.js';
import type { TunnelRow } from '../ports/tunnels.js';

export interface MemoryTables {
  accounts: AccountRow[];
  devices: (DeviceRow & { token_hash: string })[];
  tunnels: TunnelRow[];
  regions: RegionRow[];
  nodes: (NodeRow & { token_hash: string })[];
  nodePlatforms: NodePlatformRow[];
  checkRequests: string[];
  changes: { version: number; device_id: string }[];
  /** The feed's pruned-below version and the quota period it last rolled over to. */
  feedFloor: number;
  feedPeriod: string | null;
  /** Bytes by `${accountId}|${period}`. */
  usage: Record<string, number>;
  /** The last numbers handed out, never reused (as AUTOINCREMENT and bigserial). */
  lastAccountId: number;
  /** The devices' address sequence, which device tunnels take numbers from too. */
  lastDeviceSeq: number;
  lastVersion: number;
}

/** The current tables: a transaction that throws puts back the copy taken when it began. */
export interface TablesHolder {
  t: MemoryTables;
}

export function emptyTables(): MemoryTables {
  return {
    accounts: [],
    devices: [],
    tunnels: [],
    regions: [],
    nodes: [],
    nodePlatforms: [],
    checkRequests: [],
    changes: [],
    feedFloor: 0,
    feedPeriod: null,
    usage: {},
    lastAccountId: 0,
    lastDeviceSeq: 0,
    lastVersion: 0,
  };
}

/** What a unique column refuses: as a database would, the write throws. */
export function refuseDuplicate<R>(rows: readonly R[], row: R, columns: readonly (keyof R)[]) {
  for (const c of columns) {
    if (rows.some((r) => r[c] === row[c] && row[c] !== null))
      throw new Error(`unique constraint failed: ${String(c)}`);
  }
}

/** Rows leave the store as copies: callers freeze and keep what they read. */
export const copy = <R extends object>(row: R): R => ({ ...row });

export const byKey =
  <R>(key: (r: R) => string | number) =>
  (a: R, b: R): number => {
    const x = key(a);
    const y = key(b);
    return x < y ? -1 : x > y ? 1 : 0;
  };

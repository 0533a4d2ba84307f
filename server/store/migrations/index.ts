// The append-only list of migrations; never edit one that has shipped, add the next.
import type { Migration, MigrationProvider } from 'kysely';
import type { Dialect } from '../schema.js';
import * as initial from './0001-initial.js';
import * as seedRegions from './0002-seed-regions.js';
import * as feedPeriod from './0003-feed-period.js';
import * as nodeDegraded from './0004-node-degraded.js';
import * as safeNames from './0005-safe-names.js';
import * as nodeProbe from './0006-node-probe.js';
import * as deviceTunnels from './0007-device-tunnels.js';
import * as nodePlatforms from './0008-node-platforms.js';
import * as nodeTls from './0009-node-tls.js';
import * as regionEntry from './0010-region-entry.js';

export function migrationProvider(dialect: Dialect): MigrationProvider {
  const migrations: Record<string, Migration> = {
    '0001-initial': { up: initial.up(dialect) },
    '0002-seed-regions': { up: seedRegions.up },
    '0003-feed-period': { up: feedPeriod.up },
    '0004-node-degraded': { up: nodeDegraded.up },
    '0005-safe-names': { up: safeNames.up },
    '0006-node-probe': { up: nodeProbe.up },
    '0007-device-tunnels': { up: deviceTunnels.up },
    '0008-node-platforms': { up: nodePlatforms.up(dialect) },
    '0009-node-tls': { up: nodeTls.up },
    '0010-region-entry': { up: regionEntry.up },
  };
  return { getMigrations: async () => migrations };
}

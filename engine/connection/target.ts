// What a connect is for: the request merged with the configuration and the region rules into
// one target (region, protocol, cipher, mode, stream mode's platform), refused with field
// errors when its parts disagree.
import {
  findPlatform,
  MODE_OF_USAGE,
  type ClientConfig,
  type LocalConnectRequest,
  type Mode,
  type PlatformTable,
  type RegionRule,
  type Usage,
} from '../../contracts/index.js';
import { resolveRegionChoice } from '../catalog/region-rules.js';
import { FerryError } from '../errors.js';
import type { ConnectTarget } from './machine.js';

export function connectTarget(
  request: LocalConnectRequest,
  config: ClientConfig,
  rules: readonly RegionRule[],
  platforms: PlatformTable,
): { target: ConnectTarget; usage: Usage } {
  if (request.mode && request.usage && MODE_OF_USAGE[request.usage] !== request.mode) {
    throw new FerryError(
      'config-invalid',
      `usage ${request.usage} means mode ${MODE_OF_USAGE[request.usage]}, not ${request.mode}`,
      {
        errors: [
          {
            field: 'mode',
            message: 'mode and usage disagree',
            allowed: [MODE_OF_USAGE[request.usage]],
          },
        ],
      },
    );
  }
  const platform = request.platform === undefined ? null : platformId(platforms, request.platform);
  const asked = request.mode ?? (request.usage ? MODE_OF_USAGE[request.usage] : undefined);
  if (platform !== null && asked !== undefined && asked !== 'stream') {
    throw new FerryError('config-invalid', `a platform is for stream mode, not ${asked}`, {
      errors: [{ field: 'mode', message: 'a platform means stream mode', allowed: ['stream'] }],
    });
  }
  // A platform means stream mode: the node must be verified for it.
  const mode: Mode = platform !== null ? 'stream' : (asked ?? config.mode);
  const usage: Usage = request.usage ?? (mode === 'stream' ? 'streaming' : 'remote-work');
  const region = resolveRegionChoice(request.region ?? config.region, rules);
  const target: ConnectTarget = {
    region,
    protocol: request.protocol ?? config.protocol,
    encryption: request.encryption ?? config.encryption,
    mode,
    platform,
    // `--via` for this connect, else multihop always with the configured entry region. (auto's
    // turn to an entry, where only it gets through, is the connection's own.)
    entryRegion: request.via ?? (config.multihop === 'always' ? config.entry_region : null),
  };
  return { target, usage };
}

/** A platform as typed (its id, an alias, any letter case) as the table's id. */
export function platformId(table: PlatformTable, typed: string): string {
  const id = findPlatform(table, typed);
  if (id === undefined) {
    const ids = Object.keys(table).sort();
    throw new FerryError('config-invalid', `there is no platform ${typed}`, {
      errors: [{ field: 'platform', message: `the platforms are ${ids.join(', ')}`, allowed: ids }],
    });
  }
  return id;
}

// A device of the account in words: its live state, latency and region on one line.
import type { ListedDevice } from '../../../contracts/control-api.js';
import { ENGINE_STATE_WORDS } from '../../../contracts/words/states.js';
import { latencyWords } from './connection-words.js';

/**
 * "Connected · 23 ms · Asia East", "Connecting… · global", "Disconnected": the region by the
 * name `regionName` gives (the engine's list of regions), else by its id.
 */
export function deviceStateWords(
  device: Pick<ListedDevice, 'status' | 'latency' | 'region'>,
  regionName: (id: string) => string | undefined,
): string {
  return [
    ENGINE_STATE_WORDS[device.status],
    latencyWords(device.latency),
    device.region === null ? null : (regionName(device.region) ?? device.region),
  ]
    .filter((w): w is string => w !== null)
    .join(' · ');
}

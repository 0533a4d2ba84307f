// A device of the account in words: its live state, latency and region on one line.
import type { Translate } from '../../../contracts/i18n/translator.js';
import type { ListedDevice } from '../../../contracts/control-api.js';
import { engineStateWords } from '../../../contracts/words/states.js';
import { latencyWords } from './connection-words.js';
import { english } from './english.js';

/**
 * "Connected · 23 ms · Asia East", "Connecting… · global", "Disconnected": the region by the
 * name `regionName` gives (the engine's list of regions), else by its id.
 */
export function deviceStateWords(
  device: Pick<ListedDevice, 'status' | 'latency' | 'region'>,
  regionName: (id: string) => string | undefined,
  t: Translate = english,
): string {
  return [
    engineStateWords(t)[device.status],
    latencyWords(device.latency, t),
    device.region === null ? null : (regionName(device.region) ?? device.region),
  ]
    .filter((w): w is string => w !== null)
    .join(t('app.dot'));
}

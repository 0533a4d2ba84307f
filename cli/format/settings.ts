// netcli's words for the client configuration: the list, one value, and what a change did.
import type { ClientConfig, ConfigChangeResult, ConfigKey } from '../../contracts/index.js';
import {
  CONFIG_EFFECT_WORDS,
  CONFIG_KEYS,
  UNCHANGED_BUT_RECONNECTED_WORDS,
} from '../../contracts/index.js';
import { describeServiceCa } from '../../engine/service-trust.js';
import { table } from './table.js';

/** A value as `config set` takes it back: null is `none`, booleans true/false. */
export function configValueText(value: ClientConfig[ConfigKey]): string {
  if (typeof value === 'string' && value.includes('-----BEGIN CERTIFICATE-----'))
    return describeServiceCa(value);
  return value === null ? 'none' : String(value);
}

export function formatConfig(config: ClientConfig): string[] {
  return table(
    ['KEY', 'VALUE'],
    CONFIG_KEYS.map((k) => [k, configValueText(config[k])]),
  );
}

const EFFECT_WORDS = CONFIG_EFFECT_WORDS.netcli;

/** "protocol: wireguard -> ferry" per changed key, then what the live tunnel did. */
export function formatConfigChange(before: ClientConfig, result: ConfigChangeResult): string[] {
  if (result.changed.length === 0) {
    // The saved value was already so, but the live tunnel ran with a connect option of its own.
    return result.effect === 'reconnected'
      ? [UNCHANGED_BUT_RECONNECTED_WORDS]
      : [EFFECT_WORDS.unchanged];
  }
  const lines = result.changed.map(
    (k) => `${k}: ${configValueText(before[k])} -> ${configValueText(result.config[k])}`,
  );
  lines.push(
    `${EFFECT_WORDS[result.effect][0]!.toUpperCase()}${EFFECT_WORDS[result.effect].slice(1)}.`,
  );
  return lines;
}

// netcli's words for the client configuration: the list, one value, and what a change did.
import type {
  ClientConfig,
  ConfigChangeResult,
  ConfigKey,
  Translate,
} from '../../contracts/index.js';
import {
  CONFIG_KEYS,
  configEffectWords,
  unchangedButReconnectedWords,
} from '../../contracts/index.js';
import { describeServiceCa } from '../../engine/service-trust.js';
import { table } from './table.js';
import { english } from './words.js';

/** A value as `config set` takes it back: null is `none`, booleans true/false. */
export function configValueText(value: ClientConfig[ConfigKey]): string {
  if (typeof value === 'string' && value.includes('-----BEGIN CERTIFICATE-----'))
    return describeServiceCa(value);
  // `none` is a value as typed (config set takes it), not a word to translate.
  return value === null ? 'none' : String(value);
}

export function formatConfig(config: ClientConfig, t: Translate = english): string[] {
  return table(
    [t('output.settings.key'), t('output.settings.value')],
    CONFIG_KEYS.map((k) => [k, configValueText(config[k])]),
  );
}

/** "protocol: wireguard -> ferry" per changed key, then what the live tunnel did. */
export function formatConfigChange(
  before: ClientConfig,
  result: ConfigChangeResult,
  t: Translate = english,
): string[] {
  const effects = configEffectWords(t).netcli;
  if (result.changed.length === 0) {
    // The saved value was already so, but the live tunnel ran with a connect option of its own.
    return result.effect === 'reconnected'
      ? [unchangedButReconnectedWords(t)]
      : [effects.unchanged];
  }
  const lines = result.changed.map(
    (k) => `${k}: ${configValueText(before[k])} -> ${configValueText(result.config[k])}`,
  );
  const effect = effects[result.effect];
  lines.push(
    t('output.settings.effect', { effect: `${effect[0]!.toUpperCase()}${effect.slice(1)}` }),
  );
  return lines;
}

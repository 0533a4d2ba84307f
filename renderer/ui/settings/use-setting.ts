// A setting's value as the screens show it: the change on its way to the engine, else the
// engine's own value.
import type { ClientConfig, ConfigKey } from '../../../contracts/client-config.js';
import { useEngine } from '../store-context.js';

export function useSetting<K extends ConfigKey>(key: K): ClientConfig[K] | undefined {
  return useEngine(
    (s) => (s.configPending?.[key] as ClientConfig[K] | undefined) ?? s.config?.[key],
  );
}

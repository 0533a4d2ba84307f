// What a settings change did to the live tunnel, in each face's words: the engine's effect
// (ConfigChangeResult.effect), and `unchanged` when no setting changed.
import type { ConfigChangeResult } from '../local-api.js';
import { translator } from '../i18n/translator.js';

// English, from the catalog (contracts/i18n/catalogs/en.json) like every language.
const t = translator('en');

type EffectCode = ConfigChangeResult['effect'] | 'unchanged';

export const CONFIG_EFFECT_WORDS = {
  /** netcli config set's last line, after the changed keys (made a sentence there). */
  netcli: {
    reconnected: t('effects.netcli.reconnected'),
    applied: t('effects.netcli.applied'),
    saved: t('effects.netcli.saved'),
    unchanged: t('effects.netcli.unchanged'),
  },
  /** The terminal UI's line after "<setting>: ". */
  tui: {
    reconnected: t('effects.tui.reconnected'),
    applied: t('effects.tui.applied'),
    saved: t('effects.tui.saved'),
    unchanged: t('effects.tui.unchanged'),
  },
  /** The app's settings screen, said once the change is done. */
  app: {
    reconnected: t('effects.app.reconnected'),
    applied: t('effects.app.applied'),
    saved: t('effects.app.saved'),
    unchanged: t('effects.app.unchanged'),
  },
} as const satisfies Record<string, Record<EffectCode, string>>;

/** netcli's words when no setting changed but the live tunnel reconnected with them anyway. */
export const UNCHANGED_BUT_RECONNECTED_WORDS = t('effects.unchangedButReconnected');

/** The app's words while a change is under way. */
export const CONFIG_SAVING_WORDS = t('effects.saving');

// What a settings change did to the live tunnel, in each face's words: the engine's effect
// (ConfigChangeResult.effect), and `unchanged` when no setting changed.
import type { ConfigChangeResult } from '../local-api.js';
import { translator, type Translate } from '../i18n/translator.js';

// Each takes the words' language as a translator (English when none is given: the engine's
// messages and the tests).
const english = translator('en');

type EffectCode = ConfigChangeResult['effect'] | 'unchanged';

export const configEffectWords = (t: Translate = english) =>
  ({
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
  }) as const satisfies Record<string, Record<EffectCode, string>>;
export const CONFIG_EFFECT_WORDS = configEffectWords();

/** netcli's words when no setting changed but the live tunnel reconnected with them anyway. */
export const unchangedButReconnectedWords = (t: Translate = english) =>
  t('effects.unchangedButReconnected');
export const UNCHANGED_BUT_RECONNECTED_WORDS = unchangedButReconnectedWords();

/** The app's words while a change is under way. */
export const configSavingWords = (t: Translate = english) => t('effects.saving');
export const CONFIG_SAVING_WORDS = configSavingWords();

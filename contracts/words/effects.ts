// What a settings change did to the live tunnel, in each face's words: the engine's effect
// (ConfigChangeResult.effect), and `unchanged` when no setting changed.
import type { ConfigChangeResult } from '../local-api.js';

type EffectCode = ConfigChangeResult['effect'] | 'unchanged';

export const CONFIG_EFFECT_WORDS = {
  /** netcli config set's last line, after the changed keys (made a sentence there). */
  netcli: {
    reconnected: 'the tunnel reconnected with the new settings',
    applied: 'applied to the live tunnel',
    saved: 'saved; it takes effect at the next connect',
    unchanged: 'Nothing changed.',
  },
  /** The terminal UI's line after "<setting>: ". */
  tui: {
    reconnected: 'the tunnel reconnected with it',
    applied: 'applied to the live tunnel',
    saved: 'saved for the next connect',
    unchanged: 'unchanged',
  },
  /** The app's settings screen, said once the change is done. */
  app: {
    reconnected: 'Saved. Reconnected with the new settings.',
    applied: 'Saved and applied to the connection.',
    saved: 'Saved.',
    unchanged: 'Nothing changed.',
  },
} as const satisfies Record<string, Record<EffectCode, string>>;

/** netcli's words when no setting changed but the live tunnel reconnected with them anyway. */
export const UNCHANGED_BUT_RECONNECTED_WORDS =
  'Nothing changed in the settings; the tunnel reconnected with them.';

/** The app's words while a change is under way. */
export const CONFIG_SAVING_WORDS = 'Saving…';

// Stream mode's platform: the engine connects to a server verified for it and pins its
// addresses to the tunnel. The platform is a connect option, not a saved setting.
import { useId, useMemo, useState } from 'react';
import { SHIPPED_PLATFORMS } from '../../../contracts/platforms.js';
import { useActions, useEngine } from '../store-context.js';
import { useSetting } from './use-setting.js';
import { useWords } from '../i18n/use-words.js';

export function StreamPlatform() {
  const { t, language } = useWords();
  const id = useId();
  const mode = useSetting('mode');
  const current = useEngine((s) => s.status?.platform ?? null);
  const regions = useEngine((s) => s.regions);
  const connecting = useEngine((s) => s.busy.connect === true);
  const { streamFor } = useActions();
  const platforms = useMemo(() => {
    const ids = new Set(Object.keys(SHIPPED_PLATFORMS));
    for (const r of regions?.regions ?? []) for (const p of r.platforms_verified) ids.add(p);
    return [...ids]
      .map((p) => ({ id: p, name: SHIPPED_PLATFORMS[p]?.name ?? p }))
      .sort((a, b) => a.name.localeCompare(b.name, language));
  }, [regions, language]);
  const [chosen, setChosen] = useState<string>(current ?? platforms[0]?.id ?? '');
  if (mode !== 'stream') return null;
  return (
    <div className="setting inline-form">
      <label htmlFor={id}>{t('app.settings.platform')}</label>
      <select id={id} className="select" value={chosen} onChange={(e) => setChosen(e.target.value)}>
        {platforms.map((p) => (
          <option key={p.id} value={p.id}>
            {p.name}
          </option>
        ))}
      </select>
      <button
        type="button"
        className="button"
        aria-disabled={connecting || !chosen}
        onClick={() => chosen && !connecting && void streamFor(chosen)}
      >
        {t('app.settings.connectPlatform')}
      </button>
      <p className="hint">
        {current
          ? t('app.settings.streamingFor', {
              platform: SHIPPED_PLATFORMS[current]?.name ?? current,
            })
          : t('app.settings.platformHint')}
      </p>
    </div>
  );
}

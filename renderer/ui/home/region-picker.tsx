// Where to connect: the engine's region setting. Choosing another saves it; a live tunnel
// follows it (the engine reconnects).
import { useId } from 'react';
import { regionOptions } from '../words/region-options.js';
import { RegionOptions } from '../forms/region-options.js';
import { useActions, useEngine } from '../store-context.js';
import { useSetting } from '../settings/use-setting.js';

export function RegionPicker() {
  const id = useId();
  const regions = useEngine((s) => s.regions);
  const current = useSetting('region') ?? null;
  const saving = useEngine((s) => s.busy.config === true);
  const { chooseRegion } = useActions();
  const groups = regionOptions(regions, current);
  return (
    <div className="region">
      <label htmlFor={id}>Region</label>
      <select
        id={id}
        className="select"
        value={current ?? 'auto'}
        aria-busy={saving}
        aria-describedby={regions === null ? `${id}-loading` : undefined}
        onChange={(e) => void chooseRegion(e.target.value)}
      >
        <RegionOptions groups={groups} />
      </select>
      {regions === null ? (
        <p id={`${id}-loading`} className="hint">
          Loading the regions…
        </p>
      ) : null}
    </div>
  );
}

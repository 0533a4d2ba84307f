// Where to connect: the engine's region setting. Choosing another saves it; a live tunnel
// follows it (the engine reconnects).
import { useId } from 'react';
import { regionOptions, type RegionOption } from '../words/region-options.js';
import { useActions, useEngine } from '../store-context.js';
import { useSetting } from '../settings/use-setting.js';

function Option(props: { option: RegionOption }) {
  return (
    <option value={props.option.value} disabled={props.option.disabled}>
      {props.option.label}
    </option>
  );
}

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
        <Option option={groups.auto} />
        {groups.other ? <Option option={groups.other} /> : null}
        {groups.regions.length > 0 ? (
          <optgroup label="Regions">
            {groups.regions.map((o) => (
              <Option key={o.value} option={o} />
            ))}
          </optgroup>
        ) : null}
        {groups.rules.length > 0 ? (
          <optgroup label="Your rules">
            {groups.rules.map((o) => (
              <Option key={o.value} option={o} />
            ))}
          </optgroup>
        ) : null}
      </select>
      {regions === null ? (
        <p id={`${id}-loading`} className="hint">
          Loading the regions…
        </p>
      ) : null}
    </div>
  );
}

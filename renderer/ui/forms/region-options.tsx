// The options of a region <select>: automatic, the current choice when it is no longer offered,
// the regions, and the user's rules (ui/places/region-groups.ts).
import { useWords } from '../i18n/use-words.js';
import type { RegionGroups, RegionOption } from '../places/region-groups.js';

function Option(props: { option: RegionOption }) {
  return (
    <option value={props.option.value} disabled={props.option.disabled}>
      {props.option.label}
    </option>
  );
}

export function RegionOptions(props: { groups: RegionGroups }) {
  const { t } = useWords();
  const { groups } = props;
  return (
    <>
      <Option option={groups.auto} />
      {groups.other ? <Option option={groups.other} /> : null}
      {groups.regions.length > 0 ? (
        <optgroup label={t('app.regions.group')}>
          {groups.regions.map((o) => (
            <Option key={o.value} option={o} />
          ))}
        </optgroup>
      ) : null}
      {groups.rules.length > 0 ? (
        <optgroup label={t('app.regions.rules')}>
          {groups.rules.map((o) => (
            <Option key={o.value} option={o} />
          ))}
        </optgroup>
      ) : null}
    </>
  );
}

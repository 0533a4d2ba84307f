import { describe, expect, it } from 'vitest';
import { translator } from '../../../contracts/i18n/translator.js';
import { REGIONS } from '../../store/engine-answers.fake.js';
import { regionGroups } from './region-groups.js';

const en = translator('en');

describe('region groups', () => {
  it('lists auto, each region by its place with latency and load, and the rules', () => {
    const g = regionGroups(REGIONS, 'auto', en, 'en');
    expect(g.auto.value).toBe('auto');
    expect(g.regions[0]).toEqual({
      value: 'asia-east',
      label: 'Asia East, Japan (42 ms, load 35%)',
      disabled: false,
    });
    expect(g.regions[1]).toMatchObject({ value: 'eu-west', disabled: true });
    expect(g.regions[1]!.label).toMatch(/not measured, load 80%, not in your plan/);
    expect(g.rules).toEqual([
      { value: 'work-asia', label: 'work-asia (lowest latency in asia)', disabled: false },
    ]);
    expect(g.other).toBeNull();
  });

  it('names places and numbers in the language', () => {
    const g = regionGroups(REGIONS, 'auto', translator('fa'), 'fa');
    expect(g.regions[0]!.label).toContain('ژاپن');
    expect(g.regions[0]!.label).toContain('۴۲');
  });

  it('keeps a setting that is none of them choosable, so the picker never lies', () => {
    expect(regionGroups(REGIONS, 'asia:least-load', en, 'en').other).toEqual({
      value: 'asia:least-load',
      label: 'asia:least-load',
      disabled: false,
    });
    expect(regionGroups(null, 'asia-east', en, 'en').other?.value).toBe('asia-east');
  });
});

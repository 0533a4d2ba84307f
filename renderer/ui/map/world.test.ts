// The world map's pure parts: alpha-2 → ISO numeric for every country drawn, each country's place
// (its mainland's middle), places projected into the box, and the great-circle path.
import { describe, expect, it } from 'vitest';
import atlas from 'world-atlas/countries-110m.json' with { type: 'json' };
import { countryName } from '../../../contracts/i18n/places.js';
import { ALPHA2_TO_NUMERIC, numericOf } from './country-codes.js';
import {
  countryShapes,
  MAP_HEIGHT,
  MAP_WIDTH,
  pathBetween,
  placeOf,
  projectPlace,
  shapeIdOf,
} from './world.js';
import { mapDrawing } from './world-map.js';

interface AtlasGeometry {
  id?: string;
  properties: { name: string };
}
const geometries = (atlas as unknown as { objects: { countries: { geometries: AtlasGeometry[] } } })
  .objects.countries.geometries;

describe('alpha-2 → numeric', () => {
  it('names every country of the map that has an ISO code, each once', () => {
    const ids = geometries.flatMap((g) => (g.id ? [g.id] : []));
    const numerics = Object.values(ALPHA2_TO_NUMERIC);
    expect(new Set(numerics).size).toBe(numerics.length);
    expect([...ids].sort()).toEqual([...numerics].sort());
  });

  it('matches Natural Earth’s names (ICU’s names of the alpha-2 codes)', () => {
    const byNumeric = new Map(geometries.map((g) => [g.id, g.properties.name]));
    for (const [alpha2, name] of [
      ['JP', 'Japan'],
      ['CN', 'China'],
      ['DE', 'Germany'],
      ['IR', 'Iran'],
      ['RU', 'Russia'],
      ['US', 'United States of America'],
      ['NL', 'Netherlands'],
      ['TW', 'Taiwan'],
      ['KR', 'South Korea'],
      ['CD', 'Dem. Rep. Congo'],
    ] as const)
      expect(byNumeric.get(numericOf(alpha2))).toBe(name);
    expect(numericOf('jp')).toBe('392');
    expect(numericOf('ZZ')).toBeUndefined();
    // Every code is one ICU knows (it names it, rather than echoing the code).
    for (const alpha2 of Object.keys(ALPHA2_TO_NUMERIC))
      expect(countryName(alpha2, 'en'), alpha2).not.toBe(alpha2);
  });
});

describe('places', () => {
  it('puts a country at the middle of its mainland', () => {
    const japan = placeOf('JP')!;
    expect(japan[0]).toBeGreaterThan(130);
    expect(japan[0]).toBeLessThan(145);
    expect(japan[1]).toBeGreaterThan(30);
    expect(japan[1]).toBeLessThan(40);
    // France without French Guiana; the United States without Alaska.
    const france = placeOf('fr')!;
    expect(france[0]).toBeGreaterThan(-5);
    expect(france[0]).toBeLessThan(8);
    const us = placeOf('US')!;
    expect(us[0]).toBeGreaterThan(-110);
    expect(us[0]).toBeLessThan(-90);
  });

  it('knows small places the map leaves out, and nothing of an unknown code', () => {
    expect(placeOf('HK')).toEqual([114.17, 22.32]);
    expect(placeOf('SG')).toEqual([103.82, 1.35]);
    expect(placeOf('ZZ')).toBeNull();
    expect(placeOf(null)).toBeNull();
  });

  it('projects places into the box, east to the right, north up', () => {
    const china = projectPlace(placeOf('CN')!);
    const japan = projectPlace(placeOf('JP')!);
    const australia = projectPlace(placeOf('AU')!);
    for (const p of [china, japan, australia]) {
      expect(p.x).toBeGreaterThan(0);
      expect(p.x).toBeLessThan(MAP_WIDTH);
      expect(p.y).toBeGreaterThan(0);
      expect(p.y).toBeLessThan(MAP_HEIGHT);
    }
    expect(japan.x).toBeGreaterThan(china.x);
    expect(australia.y).toBeGreaterThan(china.y);
  });

  it('draws every country once, Antarctica left out', () => {
    const shapes = countryShapes();
    expect(shapes.length).toBe(geometries.length - 1);
    expect(shapes.some((s) => s.id === '010')).toBe(false);
    expect(shapes.every((s) => s.d.startsWith('M'))).toBe(true);
    expect(countryShapes()).toBe(shapes);
    expect(shapeIdOf('jp')).toBe('392');
  });
});

describe('the path', () => {
  it('is a great circle between two places, the same one asked twice', () => {
    const d = pathBetween(placeOf('CN')!, placeOf('JP')!);
    expect(d).toMatch(/^M[\d.]+,[\d.]+/);
    // Resampled along the sphere: more than a straight segment.
    expect(d.split(/[LM]/).filter(Boolean).length).toBeGreaterThan(2);
    expect(pathBetween(placeOf('CN')!, placeOf('JP')!)).toBe(d);
    expect(pathBetween(placeOf('JP')!, placeOf('JP')!)).toBe('');
  });

  it('a drawing: only the user’s side when disconnected; the path when connected', () => {
    const alone = mapDrawing({ home: 'CN', exit: null, entry: null, connected: false });
    expect(alone.home).not.toBeNull();
    expect(alone.exit).toBeNull();
    expect(alone.paths).toEqual([]);
    const connected = mapDrawing({ home: 'CN', exit: 'JP', entry: null, connected: true });
    expect(connected.paths).toHaveLength(1);
    expect(connected.exitShape).toBe('392');
    expect(connected.homeShape).toBe('156');
    const multihop = mapDrawing({ home: 'CN', exit: 'NL', entry: 'HK', connected: true });
    expect(multihop.paths).toHaveLength(2);
    expect(multihop.entry).not.toBeNull();
    // Home unknown: the exit alone, no path.
    expect(mapDrawing({ home: null, exit: 'JP', entry: null, connected: true }).paths).toEqual([]);
  });
});

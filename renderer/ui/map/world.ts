// The world map's geometry, drawn offline: Natural Earth's countries (world-atlas, 1:110m) in
// the Natural Earth projection (d3-geo), fitted to the map's box once. A place is a country's
// middle (the centroid of its largest landmass, so France is in Europe and the United States
// between its coasts); the path between two places is the great circle, as d3-geo draws a line.
import {
  geoArea,
  geoCentroid,
  geoDistance,
  geoNaturalEarth1,
  geoPath,
  type GeoPermissibleObjects,
  type GeoProjection,
} from 'd3-geo';
import type { Feature, FeatureCollection, Geometry, MultiPolygon, Polygon } from 'geojson';
import { feature } from 'topojson-client';
import type { GeometryCollection, Topology } from 'topojson-specification';
import atlas from 'world-atlas/countries-110m.json' with { type: 'json' };
import { numericOf, SMALL_PLACES } from './country-codes.js';

/** The map's box (SVG user units); the SVG scales it to its width. */
export const MAP_WIDTH = 960;
export const MAP_HEIGHT = 470;

/** Antarctica: drawn by no one's route, and it would take a fifth of the box. */
const LEFT_OUT = new Set(['010']);

export type LonLat = readonly [number, number];

export interface CountryShape {
  /** ISO 3166-1 numeric, '' for a feature without one (Kosovo, Northern Cyprus, ...). */
  id: string;
  d: string;
}

interface World {
  projection: GeoProjection;
  countries: CountryShape[];
  byId: Map<string, Feature<Geometry>>;
}

let world: World | undefined;

/** The countries, projected once (the first map drawn pays for it; every later one reuses it). */
function theWorld(): World {
  if (world) return world;
  const topology = atlas as unknown as Topology<{ countries: GeometryCollection }>;
  const all = feature(topology, topology.objects.countries) as FeatureCollection<Geometry>;
  const kept = all.features.filter((f) => !LEFT_OUT.has(String(f.id ?? '')));
  // eslint-disable-next-line i18next/no-literal-string -- a GeoJSON type, not words
  const shown: FeatureCollection<Geometry> = { type: 'FeatureCollection', features: kept };
  const projection = geoNaturalEarth1().fitExtent(
    [
      [4, 4],
      [MAP_WIDTH - 4, MAP_HEIGHT - 4],
    ],
    shown,
  );
  const path = geoPath(projection);
  const countries = kept.map((f) => ({ id: String(f.id ?? ''), d: path(f) ?? '' }));
  const byId = new Map(kept.filter((f) => f.id !== undefined).map((f) => [String(f.id), f]));
  world = { projection, countries, byId };
  return world;
}

/** Every country's outline as an SVG path, with its numeric id. */
export function countryShapes(): readonly CountryShape[] {
  return theWorld().countries;
}

/** The largest polygon of a (multi)polygon: the mainland. */
function mainland(geometry: Geometry): Polygon | MultiPolygon | Geometry {
  if (geometry.type !== 'MultiPolygon') return geometry;
  let best: Polygon | undefined;
  let bestArea = -1;
  for (const coordinates of geometry.coordinates) {
    // eslint-disable-next-line i18next/no-literal-string -- a GeoJSON type, not words
    const polygon: Polygon = { type: 'Polygon', coordinates };
    const area = geoArea(polygon);
    if (area > bestArea) {
      bestArea = area;
      best = polygon;
    }
  }
  return best ?? geometry;
}

const places = new Map<string, LonLat | null>();

/** Where a country is (longitude, latitude), by its alpha-2 code; null for one the map lacks. */
export function placeOf(alpha2: string | null | undefined): LonLat | null {
  if (!alpha2) return null;
  const code = alpha2.toUpperCase();
  const known = places.get(code);
  if (known !== undefined) return known;
  let place: LonLat | null = SMALL_PLACES[code] ?? null;
  const numeric = numericOf(code);
  const shape = numeric ? theWorld().byId.get(numeric) : undefined;
  if (shape) {
    const [lon, lat] = geoCentroid(mainland(shape.geometry) as GeoPermissibleObjects);
    place = [Math.round(lon * 100) / 100, Math.round(lat * 100) / 100];
  }
  places.set(code, place);
  return place;
}

/** A place on the map's box (x, y), rounded to a tenth. */
export function projectPlace(place: LonLat): { x: number; y: number } {
  const xy = theWorld().projection([place[0], place[1]]) ?? [0, 0];
  return { x: Math.round(xy[0] * 10) / 10, y: Math.round(xy[1] * 10) / 10 };
}

/** A country's outline is highlighted by its alpha-2 code: its numeric id on the map. */
export function shapeIdOf(alpha2: string | null | undefined): string | null {
  return alpha2 ? (numericOf(alpha2) ?? null) : null;
}

const paths = new Map<string, string>();

/**
 * The great-circle line from one place to another as an SVG path (d3-geo resamples it along
 * the sphere); '' when they are the same place.
 */
export function pathBetween(from: LonLat, to: LonLat): string {
  const key = `${from.join(',')}>${to.join(',')}`;
  const known = paths.get(key);
  if (known !== undefined) return known;
  const d =
    geoDistance([from[0], from[1]], [to[0], to[1]]) < 1e-6
      ? ''
      : (geoPath(theWorld().projection)({
          // eslint-disable-next-line i18next/no-literal-string -- a GeoJSON type, not words
          type: 'LineString',
          coordinates: [
            [from[0], from[1]],
            [to[0], to[1]],
          ],
        }) ?? '');
  paths.set(key, d);
  return d;
}

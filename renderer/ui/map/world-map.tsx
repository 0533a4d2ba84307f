// The world map: every country drawn offline (world.ts), the person's side marked, and while a
// tunnel is up or being made the exit (and a multihop entry) with the path between them. An
// image with its words: its name says where the person is and where they exit.
import { memo, useMemo } from 'react';
import {
  countryShapes,
  MAP_HEIGHT,
  MAP_WIDTH,
  pathBetween,
  placeOf,
  projectPlace,
  shapeIdOf,
  type LonLat,
} from './world.js';

export interface MapMarks {
  /** Alpha-2 codes; null when not known or not shown. */
  home: string | null;
  exit: string | null;
  entry: string | null;
  /** The path is drawn whole when connected, dashed while the tunnel is being made. */
  connected: boolean;
}

/** What the map draws for its marks: the places on the box and the path's segments. */
export interface MapDrawing {
  home: { x: number; y: number } | null;
  exit: { x: number; y: number } | null;
  entry: { x: number; y: number } | null;
  /** SVG paths: home → entry → exit (or home → exit), the empty ones left out. */
  paths: string[];
  /** Numeric ids of the countries to highlight. */
  homeShape: string | null;
  exitShape: string | null;
}

export function mapDrawing(marks: MapMarks): MapDrawing {
  const home = placeOf(marks.home);
  const exit = placeOf(marks.exit);
  const entry = placeOf(marks.entry);
  const stops = [home, entry, exit].filter((p): p is LonLat => p !== null);
  const paths: string[] = [];
  if (exit)
    for (let i = 1; i < stops.length; i++) {
      const d = pathBetween(stops[i - 1]!, stops[i]!);
      if (d) paths.push(d);
    }
  return {
    home: home ? projectPlace(home) : null,
    exit: exit ? projectPlace(exit) : null,
    entry: entry ? projectPlace(entry) : null,
    paths,
    homeShape: shapeIdOf(marks.home),
    exitShape: shapeIdOf(marks.exit),
  };
}

/** The countries: the same paths for every map drawn, so drawn once and kept. */
const Countries = memo(function Countries(props: { home: string | null; exit: string | null }) {
  const shapes = countryShapes();
  return (
    <g className="world-map__countries">
      {shapes.map((c, i) => (
        <path
          key={`${c.id}-${i}`}
          d={c.d}
          className={
            c.id && c.id === props.exit
              ? 'world-map__country world-map__country--exit'
              : c.id && c.id === props.home
                ? 'world-map__country world-map__country--home'
                : 'world-map__country'
          }
        />
      ))}
    </g>
  );
});

function Pin(props: { at: { x: number; y: number }; kind: 'home' | 'exit' | 'entry' }) {
  const { x, y } = props.at;
  return (
    <g className={`world-map__pin world-map__pin--${props.kind}`} data-place={props.kind}>
      <circle className="world-map__halo" cx={x} cy={y} r={20} />
      <circle className="world-map__dot" cx={x} cy={y} r={8} />
    </g>
  );
}

export function WorldMap(props: MapMarks & { label: string }) {
  const { home, exit, entry, connected, label } = props;
  const drawing = useMemo(
    () => mapDrawing({ home, exit, entry, connected }),
    [home, exit, entry, connected],
  );
  return (
    <svg
      className={`world-map${connected ? ' world-map--connected' : ''}`}
      role="img"
      aria-label={label}
      viewBox={`0 0 ${MAP_WIDTH} ${MAP_HEIGHT}`}
      preserveAspectRatio="xMidYMid meet"
    >
      <title>{label}</title>
      <Countries home={drawing.homeShape} exit={drawing.exitShape} />
      {drawing.paths.map((d, i) => (
        <path
          key={i}
          d={d}
          className={`world-map__path${connected ? '' : ' world-map__path--pending'}`}
          data-path="route"
          fill="none"
        />
      ))}
      {drawing.home ? <Pin at={drawing.home} kind="home" /> : null}
      {drawing.entry ? <Pin at={drawing.entry} kind="entry" /> : null}
      {drawing.exit ? <Pin at={drawing.exit} kind="exit" /> : null}
    </svg>
  );
}

// Which methods each known path has, for 405 answers and their Allow header (404 for the rest).
import type { RouteDef } from '../../contracts/index.js';

export interface PathMethods {
  path: string;
  methods: readonly string[];
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** GET routes answer HEAD too, except streams (a HEAD of an event stream would never end). */
export function methodsOf(def: Pick<RouteDef, 'method' | 'stream'>): string[] {
  return def.method === 'GET' && !def.stream ? ['GET', 'HEAD'] : [def.method];
}

/** The paths and methods of a route table. */
export function pathsOf(routes: Readonly<Record<string, RouteDef | undefined>>): PathMethods[] {
  return Object.values(routes).flatMap((def) =>
    def ? [{ path: def.path, methods: methodsOf(def) }] : [],
  );
}

export class AllowedMethods {
  private readonly paths: { pattern: RegExp; methods: Set<string> }[] = [];

  /** `prefixes`: where the paths are served (each path under each prefix). */
  constructor(prefixes: readonly string[], paths: readonly PathMethods[]) {
    const byPath = new Map<string, Set<string>>();
    for (const { path, methods } of paths) {
      const set = byPath.get(path) ?? new Set<string>();
      for (const m of methods) set.add(m);
      byPath.set(path, set);
    }
    const under = prefixes.map(escape).join('|');
    for (const [path, methods] of byPath) {
      const segments = escape(path).replace(/:[A-Za-z_]+/g, '[^/]+');
      this.paths.push({ pattern: new RegExp(`^(?:${under})${segments}$`), methods });
    }
  }

  /** The methods of the path of `url` (query ignored), or undefined for an unknown path. */
  of(url: string): string[] | undefined {
    const path = url.split('?')[0]!;
    const found = this.paths.find((p) => p.pattern.test(path));
    return found && [...found.methods].sort();
  }
}

// Which methods a known path has, for 405 answers and their Allow header.
import { API_PREFIXES, controlRoutes, type RouteDef } from '../../contracts/index.js';

interface PathMethods {
  pattern: RegExp;
  methods: Set<string>;
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** GET routes answer HEAD too, except streams (a HEAD of an event stream would never end). */
export function methodsOf(def: Pick<RouteDef, 'method' | 'stream'>): string[] {
  return def.method === 'GET' && !def.stream ? ['GET', 'HEAD'] : [def.method];
}

export class AllowedMethods {
  private readonly paths: PathMethods[] = [];

  constructor(extra: readonly { path: string; methods: string[] }[] = []) {
    const byPath = new Map<string, Set<string>>();
    const add = (path: string, methods: string[]) => {
      const set = byPath.get(path) ?? new Set<string>();
      for (const m of methods) set.add(m);
      byPath.set(path, set);
    };
    for (const def of Object.values(controlRoutes) as RouteDef[]) add(def.path, methodsOf(def));
    for (const e of extra) add(e.path, e.methods);
    const prefixes = API_PREFIXES.map(escape).join('|');
    for (const [path, methods] of byPath) {
      const segments = escape(path).replace(/:[a-z_]+/g, '[^/]+');
      this.paths.push({ pattern: new RegExp(`^(?:${prefixes})${segments}$`), methods });
    }
  }

  /** The methods of the path of `url` (query ignored), or undefined for an unknown path. */
  of(url: string): string[] | undefined {
    const path = url.split('?')[0]!;
    const found = this.paths.find((p) => p.pattern.test(path));
    return found && [...found.methods].sort();
  }
}

// Which methods each path of the local API has: 405 answers and their Allow header.
import type { RouteDef } from '../../contracts/index.js';

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** GET routes answer HEAD too, except streams (a HEAD of an event stream would never end). */
export function methodsOf(def: Pick<RouteDef, 'method' | 'stream'>): string[] {
  return def.method === 'GET' && !def.stream ? ['GET', 'HEAD'] : [def.method];
}

export class AllowedMethods {
  private readonly paths: { pattern: RegExp; methods: Set<string> }[] = [];

  constructor(prefix: string, routes: Readonly<Record<string, RouteDef>>) {
    const byPath = new Map<string, Set<string>>();
    for (const def of Object.values(routes)) {
      const set = byPath.get(def.path) ?? new Set<string>();
      for (const m of methodsOf(def)) set.add(m);
      byPath.set(def.path, set);
    }
    for (const [path, methods] of byPath) {
      const segments = escape(path).replace(/:[A-Za-z_]+/g, '[^/]+');
      this.paths.push({ pattern: new RegExp(`^${escape(prefix)}${segments}$`), methods });
    }
  }

  /** The methods of the path of `url` (query ignored), or undefined for an unknown path. */
  of(url: string): string[] | undefined {
    const path = url.split('?')[0]!;
    const found = this.paths.find((p) => p.pattern.test(path));
    return found && [...found.methods].sort();
  }
}

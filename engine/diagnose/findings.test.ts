// Every check the engine makes states its finding, so that every face can word it in its own
// language (contracts/words/diagnostics.ts): each diagnosticCheck call in these sources names one.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const HERE = path.dirname(new URL(import.meta.url).pathname);

/** The text of each `diagnosticCheck(...)` call in a source, up to its closing parenthesis. */
function calls(source: string): string[] {
  const out: string[] = [];
  for (const m of source.matchAll(/\bdiagnosticCheck\(/g)) {
    let depth = 0;
    let i = m.index + m[0].length - 1;
    for (; i < source.length; i++) {
      if (source[i] === '(') depth++;
      else if (source[i] === ')' && --depth === 0) break;
    }
    out.push(source.slice(m.index, i + 1));
  }
  return out;
}

describe('the engine’s checks', () => {
  it('each state a finding', () => {
    const sources = readdirSync(HERE).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));
    let seen = 0;
    for (const file of sources) {
      for (const call of calls(readFileSync(path.join(HERE, file), 'utf8'))) {
        seen++;
        // `found`: a finding handed on (node-reach: why no node was probed).
        expect(call, file).toMatch(/\bfinding:|\bfound\)?$|, found\)$/);
      }
    }
    expect(seen).toBeGreaterThan(80);
  });
});

// What the namespace benchmarks share: their figures (median, spread), their Markdown tables, the
// --runs option, their progress line on stderr, how their main ends the process, and their network
// of two linked hosts.
import { parseArgs } from 'node:util';

import { CLIENT, SERVER } from '../../e2e/netns/ferry-process.js';
import { TestNetwork, type Link } from '../../e2e/netns/test-network.js';

/** The middle of some measurements (the mean of the two middle ones for an even count). */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** "median [min–max]" of some measurements, each as `format` writes it (whole numbers). */
export function spread(
  xs: readonly number[],
  format: (n: number) => string = (n) => n.toFixed(0),
): string {
  if (xs.length === 0) return 'n/a';
  return `${format(median(xs))} [${format(Math.min(...xs))}–${format(Math.max(...xs))}]`;
}

/** A Markdown table of `rows` under `headers`. */
export function markdownTable(
  headers: readonly string[],
  rows: readonly (readonly string[])[],
): string {
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  return [line(headers), line(headers.map(() => '---')), ...rows.map(line)].join('\n');
}

/**
 * The `--runs N` option of a benchmark's arguments (1..100; `fallback` without it), and the words
 * after the options when `positionals` allows them; anything else is an error that ends with `usage`.
 */
export function parseRuns(
  argv: readonly string[],
  usage: string,
  fallback: number,
  positionals = false,
): { runs: number; positionals: string[] } {
  let parsed: { values: { runs?: string | undefined }; positionals: string[] };
  try {
    parsed = parseArgs({
      args: [...argv],
      options: { runs: { type: 'string' } },
      strict: true,
      allowPositionals: positionals,
    });
  } catch (e) {
    throw new Error(`${(e as Error).message}\n${usage}`);
  }
  const text = parsed.values.runs;
  if (text === undefined) return { runs: fallback, positionals: parsed.positionals };
  const runs = Number(text);
  if (!/^\d+$/.test(text) || runs < 1 || runs > 100)
    throw new Error(`--runs takes a whole number 1..100, not ${text}\n${usage}`);
  return { runs, positionals: parsed.positionals };
}

/** Rewrites the one progress line on stderr; nothing when stderr is not a terminal. */
export function progress(what: string): void {
  if (process.stderr.isTTY) process.stderr.write(`\r\x1b[K${what}`);
}

/**
 * Runs a benchmark's main and exits with the code it returns. When it throws, the progress line
 * is cleared and the process exits 1 after `<name>: <message>` on stderr.
 */
export function runBench(name: string, main: () => Promise<number>): void {
  main().then(
    (code) => process.exit(code),
    (e: unknown) => {
      progress('');
      process.stderr.write(`${name}: ${e instanceof Error ? e.message : String(e)}\n`);
      process.exit(1);
    },
  );
}

/**
 * Runs `body` on a new TestNetwork whose SERVER and CLIENT hosts are joined by a direct veth
 * (link.a is the server's end), and destroys the network after it, also when it throws. SIGINT or
 * SIGTERM destroy it and exit 130.
 */
export async function onLinkedHosts<T>(
  body: (net: TestNetwork, link: Link) => Promise<T>,
): Promise<T> {
  const net = TestNetwork.create();
  const interrupted = () => void net.destroyAsync().then(() => process.exit(130));
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  try {
    net.addAccessHost(SERVER);
    net.addAccessHost(CLIENT);
    return await body(net, net.link(SERVER, CLIENT));
  } finally {
    await net.destroyAsync();
  }
}

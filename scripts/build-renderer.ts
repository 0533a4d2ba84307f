// Builds the desktop app's renderer (renderer/main.tsx) for Electron and for the web graphical
// mode: dist/renderer/app.js (minified, its source map beside it), app.css and index.html.
// The page runs under a strict CSP (script-src 'self'; style-src 'self'), so index.html holds
// no inline script or style: only links to the two files. Beside them, the countries' flags
// (flag-icons' 4:3 SVGs, as flag-<code>.svg): images from the page's own origin ('self'), kept
// out of the script so that it stays small.
import { build } from 'esbuild';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readdir, realpath, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { RENDERER_CSP_META } from '../contracts/renderer-policy.js';
import { zodEnglishOnly } from './esbuild-plugins.js';

/** The repository: the first folder up from this file that holds the renderer (src or dist). */
function findRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(path.join(dir, 'renderer', 'main.tsx'))) return dir;
    const up = path.dirname(dir);
    if (up === dir) throw new Error('build-renderer: no renderer/main.tsx above this script');
    dir = up;
  }
}

/** The browsers the bundle is for: Electron's Chromium and Debian's. */
const TARGET = ['chrome120'];

const INDEX_HTML = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta http-equiv="Content-Security-Policy" content="${RENDERER_CSP_META}" />
    <meta name="referrer" content="no-referrer" />
    <title>Ferry</title>
    <link rel="icon" href="data:," />
    <link rel="stylesheet" href="app.css" />
    <script defer src="app.js"></script>
  </head>
  <body>
    <noscript>Ferry needs JavaScript to show its window.</noscript>
    <div id="app"></div>
  </body>
</html>
`;

export interface RendererBuild {
  outDir: string;
  /** Bytes of each file written, by name. */
  files: Record<string, number>;
}

export async function buildRenderer(outDir?: string): Promise<RendererBuild> {
  const root = findRoot();
  const out = path.resolve(outDir ?? path.join(root, 'dist', 'renderer'));
  await mkdir(out, { recursive: true });
  const result = await build({
    absWorkingDir: root,
    entryPoints: [
      { in: 'renderer/main.tsx', out: 'app' },
      { in: 'renderer/styles/app.css', out: 'app' },
    ],
    outdir: out,
    bundle: true,
    platform: 'browser',
    // A classic script: it loads from file:// in Electron as well as over http.
    format: 'iife',
    target: TARGET,
    minify: true,
    sourcemap: 'external',
    jsx: 'automatic',
    define: { 'process.env.NODE_ENV': '"production"' },
    metafile: true,
    logLevel: 'warning',
    plugins: [zodEnglishOnly],
  });
  await writeFile(path.join(out, 'index.html'), INDEX_HTML);
  const files: Record<string, number> = { 'index.html': Buffer.byteLength(INDEX_HTML) };
  for (const [file, meta] of Object.entries(result.metafile.outputs))
    files[path.relative(out, path.resolve(root, file))] = meta.bytes;
  const flags = await copyFlags(root, out);
  files[`flag-*.svg (${flags})`] = 0;
  return { outDir: out, files };
}

/**
 * Copies every 4:3 flag of flag-icons into `out` as flag-<code>.svg (renderer/ui/places/flag.tsx
 * names them so); a flat folder, as the engine host serves only the files at its top.
 */
async function copyFlags(root: string, out: string): Promise<number> {
  const require = createRequire(path.join(root, 'package.json'));
  const dir = path.join(path.dirname(require.resolve('flag-icons/package.json')), 'flags', '4x3');
  const names = (await readdir(dir)).filter((n) => /^[a-z]{2}\.svg$/.test(n));
  await Promise.all(names.map((n) => copyFile(path.join(dir, n), path.join(out, `flag-${n}`))));
  return names.length;
}

async function runsAsMain(): Promise<boolean> {
  const entry = process.argv[1];
  if (!entry) return false;
  const here = await realpath(fileURLToPath(import.meta.url));
  return pathToFileURL(await realpath(entry)).href === pathToFileURL(here).href;
}

if (await runsAsMain()) {
  const { outDir, files } = await buildRenderer(process.argv[2]);
  const listing = Object.entries(files)
    .map(([name, bytes]) => `  ${name} ${(bytes / 1024).toFixed(1)} KiB`)
    .join('\n');
  process.stdout.write(
    `build-renderer: ${path.relative(process.cwd(), outDir) || '.'}\n${listing}\n`,
  );
}

// The renderer's bundle (dist/renderer: index.html, app.js, app.css, ...), read once into memory:
// a fixed set of files, so no request path ever reaches the file system.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { FerryError } from '../../errors.js';

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
};

export interface StaticFile {
  type: string;
  body: Buffer;
}

/** URL path (`/`, `/app.js`) -> file. Throws not-supported when there is no built renderer. */
export async function loadStaticFiles(dir: string): Promise<Map<string, StaticFile>> {
  let names: string[];
  try {
    names = (await readdir(dir, { withFileTypes: true }))
      .filter((e) => e.isFile() && TYPES[path.extname(e.name)] !== undefined)
      .map((e) => e.name);
  } catch {
    names = [];
  }
  if (!names.includes('index.html'))
    throw new FerryError(
      'not-supported',
      'the graphical mode is not built in this installation (npm run build makes dist/renderer)',
    );
  const files = new Map<string, StaticFile>();
  for (const name of names) {
    const file = { type: TYPES[path.extname(name)]!, body: await readFile(path.join(dir, name)) };
    files.set(`/${name}`, file);
    if (name === 'index.html') files.set('/', file);
  }
  return files;
}

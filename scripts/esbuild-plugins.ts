// esbuild plugins the builds share (netcli's bundle, the renderer, Electron's main and preload).
import path from 'node:path';
import type { Plugin } from 'esbuild';

/**
 * zod's messages in English, its default, and none of its ~40 other languages: they were a
 * third of a bundle (~20 ms of every netcli start), and no face switches language.
 */
export const zodEnglishOnly: Plugin = {
  name: 'zod-english-only',
  setup(b) {
    b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      args.importer.includes(`${path.sep}node_modules${path.sep}zod${path.sep}`)
        ? { path: path.resolve(args.resolveDir, args.path), namespace: 'zod-english-only' }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'zod-english-only' }, (args) => ({
      contents: `export { default as en } from './en.js';`,
      resolveDir: path.dirname(args.path),
    }));
  },
};

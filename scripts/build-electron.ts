// Bundles the desktop app's Electron side into dist/electron/ (after tsc, like build-netcli.ts):
// main.cjs (the main process: its own code, contracts and the engine, one copy of each so that
// `instanceof` holds), preload.cjs (the sandboxed preload: one CommonJS file that requires
// nothing but `electron`), netcli.mjs (netcli for the installers: the systemd unit runs
// `netcli daemon` with the app's Electron in Node mode) and the icons. esbuild reads the
// TypeScript sources directly, so electron/ need not be part of tsconfig.build.json.
import { build, type BuildOptions, type Metafile, type Plugin } from 'esbuild';
import { existsSync } from 'node:fs';
import { copyFile, cp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { isBuiltin } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { zodEnglishOnly } from './esbuild-plugins.js';

/** The repository's root: the nearest folder up from here with the package.json. */
function findRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json')) && existsSync(path.join(dir, 'electron')))
      return dir;
    if (path.dirname(dir) === dir) throw new Error(`no repository root above ${from}`);
  }
}

/**
 * Loaded at run time from node_modules, never bundled: Electron itself, and native addons (the
 * Ferry data plane is found by path at run time, native/index.ts; the server's are not
 * expected here at all).
 */
const EXTERNAL = ['electron', 'better-sqlite3', 'argon2', '*.node'];

/** ws's native speed-ups (ws comes with ink's devtools): required only when present. */
const NETCLI_OPTIONAL = ['bufferutil', 'utf-8-validate'];

/**
 * ink imports React's devtools (not installed) in a module it loads only when DEV=true; an ES
 * bundle would hoist that import and fail at every start, so the devtools are a stub here.
 */
const noReactDevtools: Plugin = {
  name: 'no-react-devtools',
  setup(b) {
    b.onResolve({ filter: /^react-devtools-core$/ }, (args) => ({
      path: args.path,
      namespace: 'no-react-devtools',
    }));
    b.onLoad({ filter: /.*/, namespace: 'no-react-devtools' }, () => ({
      contents:
        "const unavailable = () => { throw new Error('React devtools are not part of this build'); };\n" +
        'export default { initialize: unavailable, connectToDevTools: unavailable };\n',
    }));
  },
};

/** An ES module's own URL in a CommonJS bundle (native/index.ts and the GeoIP data use it). */
const IMPORT_META_URL_SHIM =
  "const __ferryImportMetaUrl = require('node:url').pathToFileURL(__filename).href;";

/** The modules a bundle left to be loaded at run time, Node's built-ins aside. */
function externalImports(metafile: Metafile | undefined): string[] {
  const names = new Set<string>();
  for (const output of Object.values(metafile?.outputs ?? {}))
    for (const imp of output.imports)
      if (imp.external && !imp.path.startsWith('node:') && !isBuiltin(imp.path))
        names.add(imp.path);
  return [...names].sort();
}

/**
 * Stops the build when a bundle would load a package at run time that is not on its list: the
 * installers ship what the bundles need, not node_modules as they happen to be.
 */
function checkExternals(name: string, metafile: Metafile | undefined, allowed: string[]): void {
  const unexpected = externalImports(metafile).filter(
    (p) => !allowed.includes(p) && !(allowed.includes('*.node') && p.endsWith('.node')),
  );
  if (unexpected.length > 0) {
    throw new Error(
      `build-electron: ${name} would load ${unexpected.join(', ')} at run time; bundle it, or add it to the list in scripts/build-electron.ts if that is meant`,
    );
  }
}

export interface BuildElectronOptions {
  root?: string;
  /** Where the bundles go (default dist/electron under the root). */
  outDir?: string;
  /** Also bundle netcli for the installers (default true). */
  netcli?: boolean;
}

export interface BuildElectronResult {
  outputs: string[];
}

export async function buildElectron(
  options: BuildElectronOptions = {},
): Promise<BuildElectronResult> {
  const root = options.root ?? findRoot(path.dirname(fileURLToPath(import.meta.url)));
  const outDir = options.outDir ?? path.join(root, 'dist', 'electron');
  await mkdir(outDir, { recursive: true });
  const common: BuildOptions = {
    absWorkingDir: root,
    bundle: true,
    platform: 'node',
    target: 'node20',
    sourcemap: true,
    metafile: true,
    logLevel: 'warning',
    legalComments: 'none',
    plugins: [zodEnglishOnly],
  };

  const main = await build({
    ...common,
    entryPoints: ['electron/main/main.ts'],
    outfile: path.join(outDir, 'main.cjs'),
    format: 'cjs',
    external: EXTERNAL,
    define: { 'import.meta.url': '__ferryImportMetaUrl' },
    banner: { js: IMPORT_META_URL_SHIM },
  });
  checkExternals('main.cjs', main.metafile, EXTERNAL);

  const preload = await build({
    ...common,
    entryPoints: ['electron/preload/preload.ts'],
    outfile: path.join(outDir, 'preload.cjs'),
    format: 'cjs',
    external: ['electron'],
    // Parsed at every load of the window.
    minify: true,
  });
  // A sandboxed preload has no Node: anything it requires besides electron fails at load.
  const preloadRequires = Object.values(preload.metafile?.outputs ?? {})
    .flatMap((o) => o.imports)
    .filter((i) => i.external && i.path !== 'electron')
    .map((i) => i.path);
  if (preloadRequires.length > 0) {
    throw new Error(
      `build-electron: the preload requires ${[...new Set(preloadRequires)].join(', ')}; a sandboxed preload may require only electron`,
    );
  }
  const outputs = [path.join(outDir, 'main.cjs'), path.join(outDir, 'preload.cjs')];

  if (options.netcli !== false) {
    const netcli = await build({
      ...common,
      stdin: {
        contents:
          "import { main } from './cli/main.js';\nprocess.exitCode = await main(process.argv.slice(2));\n",
        resolveDir: root,
        sourcefile: 'netcli-entry.ts',
        loader: 'ts',
      },
      outfile: path.join(outDir, 'netcli.mjs'),
      format: 'esm',
      external: [...EXTERNAL, ...NETCLI_OPTIONAL],
      plugins: [zodEnglishOnly, noReactDevtools],
      // Some of netcli's packages are CommonJS and require Node's built-ins.
      banner: {
        js: "import { createRequire as netcliCreateRequire } from 'node:module'; const require = netcliCreateRequire(import.meta.url);",
      },
    });
    checkExternals('netcli.mjs', netcli.metafile, [...EXTERNAL, ...NETCLI_OPTIONAL]);
    outputs.push(path.join(outDir, 'netcli.mjs'));
  }

  // The tray's and the window's icons, beside main.cjs (main.ts looks for them there).
  for (const icon of ['tray.png', 'icon.png']) {
    await copyFile(path.join(root, 'electron', 'resources', icon), path.join(outDir, icon));
    outputs.push(path.join(outDir, icon));
  }
  return { outputs };
}

/** The GeoIP dataset the engine reads at run time (engine/split/geoip-dataset.ts), shipped as it is. */
const GEOIP_PACKAGE = '@ip-location-db/geo-whois-asn-country';

export interface StageAppOptions {
  root?: string;
  /** Where the app is assembled (default dist/app): electron-builder's `directories.app`. */
  appDir?: string;
}

/**
 * Assembles the app electron-builder packs (electron-builder.yml `directories.app`): the
 * bundles, the renderer, the native addon and the GeoIP dataset, laid out as in the repository
 * (so the bundles find them where they do in development), with a package.json of its own that
 * lists only the dataset: the bundles hold everything else, so neither the repository's
 * node_modules nor a rebuild of its native packages for Electron ends up in the installers.
 */
export async function stageElectronApp(options: StageAppOptions = {}): Promise<string> {
  const root = options.root ?? findRoot(path.dirname(fileURLToPath(import.meta.url)));
  const appDir = options.appDir ?? path.join(root, 'dist', 'app');
  const need = (relative: string, how: string) => {
    const file = path.join(root, relative);
    if (!existsSync(file)) throw new Error(`build-electron: ${relative} is missing: ${how}`);
    return file;
  };
  const bundles = ['main.cjs', 'preload.cjs', 'netcli.mjs', 'tray.png', 'icon.png'].map((f) =>
    need(path.join('dist', 'electron', f), 'run node dist/scripts/build-electron.js first'),
  );
  const renderer = path.dirname(
    need(path.join('dist', 'renderer', 'index.html'), 'build the renderer first (dist/renderer)'),
  );
  const addon = path.join('native', 'build', 'Release', 'ferry_native.node');
  const dataset = path.dirname(
    need(path.join('node_modules', GEOIP_PACKAGE, 'package.json'), 'run npm ci'),
  );

  await rm(appDir, { recursive: true, force: true });
  await mkdir(path.join(appDir, 'dist', 'electron'), { recursive: true });
  for (const file of bundles)
    await copyFile(file, path.join(appDir, 'dist', 'electron', path.basename(file)));
  await cp(renderer, path.join(appDir, 'dist', 'renderer'), { recursive: true });
  // The data plane is Linux's; elsewhere the engine reports it unsupported, as it does in dev.
  if (existsSync(path.join(root, addon))) {
    await mkdir(path.join(appDir, path.dirname(addon)), { recursive: true });
    await copyFile(path.join(root, addon), path.join(appDir, addon));
  } else if (process.platform === 'linux') {
    throw new Error(`build-electron: ${addon} is missing: run npm run build:native`);
  }
  // The engine reads the numeric tables only (engine/split/geoip-dataset.ts); the licence goes along.
  await cp(dataset, path.join(appDir, 'node_modules', GEOIP_PACKAGE), {
    recursive: true,
    filter: (src) => !src.endsWith('.csv') || src.endsWith('-num.csv'),
  });

  const pkg = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')) as Record<
    string,
    unknown
  >;
  const datasetVersion = (
    JSON.parse(await readFile(path.join(dataset, 'package.json'), 'utf8')) as { version: string }
  ).version;
  const appPackage = {
    name: pkg.name,
    productName: 'Ferry',
    version: pkg.version,
    description: pkg.description,
    license: pkg.license,
    private: true,
    main: 'dist/electron/main.cjs',
    dependencies: { [GEOIP_PACKAGE]: datasetVersion },
  };
  await writeFile(path.join(appDir, 'package.json'), `${JSON.stringify(appPackage, null, 2)}\n`);
  return appDir;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  try {
    const { outputs } = await buildElectron();
    for (const file of outputs) process.stdout.write(`${path.relative(process.cwd(), file)}\n`);
    // --stage: also assemble the app for electron-builder (scripts/package.sh).
    if (process.argv.includes('--stage')) {
      const appDir = await stageElectronApp();
      process.stdout.write(`${path.relative(process.cwd(), appDir)}/\n`);
    }
  } catch (e) {
    process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  }
}

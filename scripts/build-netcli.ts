// Bundles netcli's client side into one file, dist/cli/netcli.js, after tsc (npm run build).
// Node 20 loads ES modules one file at a time, and for a client command (status, connect)
// that was most of its start-up: ~150 modules of commander, zod, contracts and cli. From one
// file, what netcli adds to Node's own start about halves (status: ~300 -> ~170 ms).
// `netcli daemon` runs from dist/cli/main.js (bin/netcli chooses): the engine it loads has its
// own copies of contracts and errors, and a class must be one class in a process for
// `instanceof` to hold.
import { build, type Metafile, type Plugin } from 'esbuild';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { zodEnglishOnly } from './esbuild-plugins.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The packages a client command loads at every start. Another one here is a choice to make,
 * not an accident (the daemon's side, say): the build says so and stops.
 */
const CLIENT_PACKAGES = ['commander', 'zod', 'ipaddr.js', 'i18next'];

/** What `netcli daemon` loads (cli/commands/daemon.ts): never part of the client's bundle. */
const DAEMON_SIDE =
  /^(pino|\.\.\/\.\.\/engine\/create-engine\.js|\.\.\/\.\.\/engine\/host\/(local-api-server|web-ui\/web-ui-server)\.js)$/;
const DAEMON_COMMAND = path.join('dist', 'cli', 'commands', 'daemon.js');

const daemonSide: Plugin = {
  name: 'daemon-side',
  setup(b) {
    b.onResolve({ filter: DAEMON_SIDE }, (args) =>
      args.importer.endsWith(DAEMON_COMMAND)
        ? { path: args.path, namespace: 'daemon-side' }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'daemon-side' }, () => ({
      contents: `throw new Error('netcli daemon runs from dist/cli/main.js (bin/netcli), not from this bundle');`,
    }));
  },
};

/**
 * The terminal UI (cli/tui/, with ink, react and yoga) is read only by `netcli tui`: its entry,
 * imported when the command runs (cli/commands/tui.ts), stays out of the bundle and is loaded
 * from its modules beside it (dist/cli/tui/). Bundled, the imports of ink and react would be
 * hoisted to the bundle's top and read at every start. What must be one class in the process
 * (the engine's client and its errors) it takes from the bundle (cli/tui/run.tsx says how).
 */
const TUI_ENTRY = /^\.\.\/tui\/run\.js$/;
const TUI_COMMAND = path.join('dist', 'cli', 'commands', 'tui.js');

const terminalUiOutside: Plugin = {
  name: 'terminal-ui-outside',
  setup(b) {
    b.onResolve({ filter: TUI_ENTRY }, (args) =>
      args.importer.endsWith(TUI_COMMAND) ? { path: './tui/run.js', external: true } : undefined,
    );
  },
};

/**
 * The QR code renderer (cli/qr-code.ts, with qrcode and pngjs) is read only by `netcli devices
 * add`, after the device is added: it stays out of the bundle, loaded from dist/cli/qr-code.js
 * when that command runs. It holds nothing that must be one class in the process.
 */
const QR_ENTRY = /^\.\.\/qr-code\.js$/;
const DEVICES_COMMAND = path.join('dist', 'cli', 'commands', 'devices.js');

const qrCodeOutside: Plugin = {
  name: 'qr-code-outside',
  setup(b) {
    b.onResolve({ filter: QR_ENTRY }, (args) =>
      args.importer.endsWith(DEVICES_COMMAND)
        ? { path: './qr-code.js', external: true }
        : undefined,
    );
  },
};

function packagesOf(metafile: Metafile): Set<string> {
  const names = new Set<string>();
  for (const input of Object.keys(metafile.inputs)) {
    const m = /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (m?.[1]) names.add(m[1]);
  }
  return names;
}

const result = await build({
  absWorkingDir: root,
  entryPoints: ['dist/cli/main.js'],
  outfile: 'dist/cli/netcli.js',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: true,
  metafile: true,
  logLevel: 'warning',
  // commander is CommonJS and requires Node's built-ins: an ES module has no require of its own.
  banner: {
    js: "import { createRequire as netcliCreateRequire } from 'node:module'; const require = netcliCreateRequire(import.meta.url);",
  },
  plugins: [daemonSide, terminalUiOutside, qrCodeOutside, zodEnglishOnly],
});

const unexpected = [...packagesOf(result.metafile)].filter((p) => !CLIENT_PACKAGES.includes(p));
if (unexpected.length > 0) {
  process.stderr.write(
    `build-netcli: the client's bundle now holds ${unexpected.join(', ')}, which every client command would read at ` +
      `start; keep the daemon's side out of it (DAEMON_SIDE), or, if it is meant, add it to CLIENT_PACKAGES in scripts/build-netcli.ts\n`,
  );
  process.exit(1);
}

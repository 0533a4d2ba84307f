#!/usr/bin/env bash
# Builds the desktop installers: checks first that the Electron binary is installed (it is not
# on our build machines: npm installs electron with ELECTRON_SKIP_BINARY_DOWNLOAD=1), then
# builds (tsc, netcli, the Electron bundles, the app staged in dist/app) and runs
# electron-builder for the targets asked for (default: this platform's).
#
#   bash scripts/package.sh                 this platform's installers (electron-builder.yml)
#   bash scripts/package.sh linux           deb + AppImage; also: win (NSIS), mac (dmg)
#   bash scripts/package.sh linux -- --x64  anything after -- goes to electron-builder
#
# Signing comes from the environment only (see electron-builder.yml).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

fail() {
  printf 'package: %s\n' "$1" >&2
  shift
  (($# == 0)) || printf '  %s\n' "$@" >&2
  exit 1
}

# ---- the arguments ----------------------------------------------------------------------------
targets=()
builder_args=()
while (($# > 0)); do
  case "$1" in
    linux | win | mac) targets+=("--$1") ;;
    --) shift; builder_args+=("$@"); break ;;
    -h | --help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) fail "unknown target '$1' (linux, win, mac; electron-builder's own options after --)" ;;
  esac
  shift
done
if ((${#targets[@]} == 0)); then
  case "$(uname -s)" in
    Linux) targets=(--linux) ;;
    Darwin) targets=(--mac) ;;
    MINGW* | MSYS* | CYGWIN*) targets=(--win) ;;
    *) fail "no installer target for $(uname -s); name one: linux, win or mac" ;;
  esac
fi

# ---- the Electron binary, before anything long ------------------------------------------------
# electron-builder wraps node_modules/electron/dist (electronDist below), never a download.
electron_dist="$root/node_modules/electron/dist"
electron_path=$(node -e "try { process.stdout.write(require('electron')) } catch { }" 2>/dev/null || true)
if [[ ! -d "$electron_dist" || -z "$electron_path" || ! -e "$electron_path" ]]; then
  fail "the Electron binary is not installed here, so no installer can be built." \
    "node_modules/electron/dist is missing: electron was installed with ELECTRON_SKIP_BINARY_DOWNLOAD=1" \
    "(this machine cannot download it), and the installers wrap that binary. On a machine with" \
    "internet access, get it with" \
    "  env -u ELECTRON_SKIP_BINARY_DOWNLOAD npm rebuild electron" \
    "(or: node node_modules/electron/install.js), then run bash scripts/package.sh there."
fi

# ---- build ------------------------------------------------------------------------------------
[[ -f dist/renderer/index.html ]] || fail "the renderer is not built (dist/renderer/index.html): build it first"
npx tsc -p tsconfig.build.json
node dist/scripts/build-netcli.js
node dist/scripts/build-electron.js --stage

# ---- the installers ---------------------------------------------------------------------------
exec npx electron-builder --config electron-builder.yml "${targets[@]}" \
  --config.electronDist="$electron_dist" --publish never "${builder_args[@]}"

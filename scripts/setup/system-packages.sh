#!/usr/bin/env bash
# Installs the Debian packages that Ferry's build and tests need, when any is missing.
# Usage: scripts/setup/system-packages.sh [package ...]  (default: the full test set)
set -euo pipefail

# postgresql: the second storage backend; libssl-dev: the native addon's crypto;
# python3-cryptography: the independent check of the protocol's test vectors; ccache: the C++
# test builds (release and sanitizers) stay incremental across fresh clones; the rest builds,
# exercises and measures the namespace test network; chromium (driven by playwright-core) and tmux
# drive the graphical and terminal modes in their tests (fonts-wqy-microhei draws the app's Chinese,
# DejaVu its Latin, Cyrillic and Persian in the screenshots); zbar-tools (zbarimg) reads back the QR
# codes netcli devices add draws; openssl makes the test CA and the control plane's certificate;
# the test internet's censor (e2e/netns/censor/) queues packets with iptables' NFQUEUE target to a
# shim gcc builds against libnetfilter-queue-dev, and its cover site is nginx-light.
DEFAULT_PACKAGES=(postgresql libssl-dev python3-cryptography ccache iproute2 iputils-ping nftables
  wireguard-go wireguard-tools iperf3 curl procps tcpdump chromium tmux fonts-dejavu-core fonts-wqy-microhei
  zbar-tools openssl iptables gcc libnetfilter-queue-dev nginx-light)
packages=("${@:-${DEFAULT_PACKAGES[@]}}")

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
  echo "setup: missing Debian packages: ${missing[*]} (run as root, or install them)" >&2
  exit 1
fi
echo "setup: installing ${missing[*]}" >&2
apt-get update -qq >&2
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2

#!/usr/bin/env bash
# Makes sure the system libraries Skwad links against are present (Debian names:
# libsodium-dev, libedit-dev, libpng-dev, libturbojpeg0-dev, libwebp-dev, libqrencode-dev, pkg-config; nftables and
# zbar-tools, chromium and chromium-driver when root). Installs them when run as root; otherwise
# says in one line what to install. Idempotent and quiet when all is there.
set -euo pipefail
missing=()
command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
if command -v pkg-config >/dev/null 2>&1; then
  pkg-config --exists libsodium 2>/dev/null || missing+=(libsodium-dev)
  pkg-config --exists libedit 2>/dev/null || missing+=(libedit-dev)
  pkg-config --exists libpng 2>/dev/null || missing+=(libpng-dev)
  pkg-config --exists libturbojpeg 2>/dev/null || missing+=(libturbojpeg0-dev)
  pkg-config --exists libwebp 2>/dev/null || missing+=(libwebp-dev)
  pkg-config --exists libqrencode 2>/dev/null || missing+=(libqrencode-dev)
else
  missing+=(libsodium-dev libedit-dev libpng-dev libturbojpeg0-dev libwebp-dev libqrencode-dev)
fi
# nftables: the NAT routers of scripts/testbed.sh (root tests only); installed when root,
# never required otherwise.
if ! command -v nft >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then missing+=(nftables); fi
# zbar-tools: `zbarimg` reads back the QR code `invite` draws (a test only); installed when root.
if ! command -v zbarimg >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then missing+=(zbar-tools); fi
# chromium and chromium-driver: the local web page in a headless browser driven over WebDriver
# (Tests/SkwadWebTests, `skwad bench web` only); installed when root.
if [ ! -x /usr/bin/chromium ] && [ "$(id -u)" = 0 ]; then missing+=(chromium); fi
if [ ! -x /usr/bin/chromedriver ] && [ "$(id -u)" = 0 ]; then missing+=(chromium-driver); fi
command -v swift >/dev/null 2>&1 || { echo "skwad: Swift 6.3 is required (swift not found on PATH)" >&2; exit 1; }
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "skwad: installing ${missing[*]} ..." >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq "${missing[@]}" >/dev/null
else
  echo "skwad: missing system packages; install them with: sudo apt-get install ${missing[*]}" >&2
  exit 1
fi

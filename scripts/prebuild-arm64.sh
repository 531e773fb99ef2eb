#!/bin/sh
# Cross-compiles the linux-arm64 prebuild on an x86-64 host: prebuilds/linux-arm64/zmgate.node,
# next to what `npm run prebuild` makes for the host (prebuilds/linux-x64/). Same build
# definition (CMakeLists.txt, through prebuildify and scripts/cmake-js-shim.sh); --arch arm64
# makes CMakeLists.txt use native/cmake/aarch64-linux-gnu.cmake, and libjpeg-turbo is built for
# aarch64 into its own cache (…/libjpeg-turbo-pic-1-aarch64).
# The build tree is build/cross-arm64, so build/Release (the host addon) is not touched.
# Needs (Debian): g++-aarch64-linux-gnu libc6-dev-arm64-cross (binutils-aarch64-linux-gnu for strip).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
command -v aarch64-linux-gnu-g++ >/dev/null 2>&1 ||
  { echo "prebuild-arm64: aarch64-linux-gnu-g++ is missing: apt-get install -y g++-aarch64-linux-gnu libc6-dev-arm64-cross" >&2; exit 1; }
work="$root/build/cross-arm64"
mkdir -p "$work"
# --cwd: where the shim builds (./build/Release inside it); --out: where prebuilds/ goes.
exec "$root/node_modules/.bin/prebuildify" --napi --strip --name zmgate --arch arm64 --strip-bin aarch64-linux-gnu-strip \
  --node-gyp "$root/scripts/cmake-js-shim.sh" --cwd "$work" --out "$root"
